"""Tiến Lên's :class:`~cardsim.simcore.spec.GameSpec`: its rules, tasks, policies, summary and metrics."""
from __future__ import annotations

from cardsim.simcore.spec import GameSpec, MetricSpec, OptionSpec
from cardsim.simcore.tienlen import summary
from cardsim.simcore.tienlen.tasks import DEAL, PLAY
from cardsim.simcore.tienlen.rules import TienLenRules

SPEC = GameSpec(
    name="tienlen",
    title="Tiến Lên (Vietnamese climbing game), 2-4 players, 52 cards",
    rules_cls=TienLenRules,
    deal=DEAL,
    play=PLAY,
    summary=summary.play_summary,
    metrics={
        "deal": MetricSpec("per_deal", summary.deal_metrics, {"per_deal": True}),
        "play": MetricSpec("games", summary.play_metrics, units={"points_": "points", "tricks": "tricks",
                                                                 "plays": "plays"}),
    },
    options=(OptionSpec("games_per_match", "play", "games per match (the previous winner leads the next game)"),),
    rules_doc="docs/rules/tienlen.md",
    exact="cardsim.simcore.tienlen.exact:exact_table",
)
