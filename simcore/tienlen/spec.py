"""Tiến Lên's :class:`~cardsim.simcore.framework.spec.GameSpec`: its rules, tasks, policies, summary and metrics."""
from __future__ import annotations

from cardsim.simcore.framework.spec import GameSpec, MetricSpec, OptionSpec
from cardsim.simcore.tienlen.rules import TienLenRules

#: Tasks, summary and metrics are imported on first use (they load numba, pandas and
#: pyarrow); listing games or printing rules needs only this module and the rules.
_PACKAGE = "cardsim.simcore.tienlen"

SPEC = GameSpec(
    name="tienlen",
    title="Tiến Lên (Vietnamese climbing game), 2-4 players, 52 cards",
    rules_cls=TienLenRules,
    deal=f"{_PACKAGE}.tasks:DEAL",
    play=f"{_PACKAGE}.tasks:PLAY",
    summary=f"{_PACKAGE}.summary:play_summary",
    metrics={
        "deal": MetricSpec("per_deal", f"{_PACKAGE}.summary:deal_metrics", {"per_deal": True}),
        "play": MetricSpec("games", f"{_PACKAGE}.summary:play_metrics",
                           units={"points_": "points", "tricks": "tricks", "plays": "plays"}),
    },
    options=(OptionSpec("games_per_match", "play", "games per match (the previous winner leads the next game, "
                                                   "points add up)", kind=int, short="-k", metavar="K"),),
    rules_doc="docs/rules/tienlen.md",
    exact=f"{_PACKAGE}.exact:exact_table",
    exact_full=f"{_PACKAGE}.exact:exact_table_full",
    ledger=f"{_PACKAGE}.replay:card_ledger",
    trainer=f"{_PACKAGE}.train",
    step=f"{_PACKAGE}.step:TienLenStep",
    hands=f"{_PACKAGE}.events:HANDS",
    balance=f"{_PACKAGE}.summary:balance_outcomes",
    balance_progress=f"{_PACKAGE}.replay:balance_progress",
    throughput={"deal": 5e6, "play": 5e4},  # deals or games per second and core, conservative
)
