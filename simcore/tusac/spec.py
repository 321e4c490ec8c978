"""Tứ Sắc's :class:`~cardsim.simcore.spec.GameSpec`: its rules, tasks, policies, summary and metrics."""
from __future__ import annotations

from cardsim.simcore.spec import GameSpec, MetricSpec
from cardsim.simcore.tusac import summary
from cardsim.simcore.tusac.rules import TuSacRules
from cardsim.simcore.tusac.tasks import DEAL, PLAY

SPEC = GameSpec(
    name="tusac",
    title="Four-colour cards (Tứ Sắc), 2-4 players, 112 cards",
    rules_cls=TuSacRules,
    deal=DEAL,
    play=PLAY,
    summary=summary.play_summary,
    metrics={
        "deal": MetricSpec("per_deal", summary.deal_metrics, {"per_deal": True}),
        "play": MetricSpec("games", summary.play_metrics, units={"points_": "points", "steals_": "steals per game",
                                                                 "turns": "turns"}),
    },
    rules_doc="docs/rules/tusac.md",
    exact="cardsim.simcore.tusac.exact:exact_table",
)
