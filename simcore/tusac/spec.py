"""Tứ Sắc's :class:`~cardsim.simcore.framework.spec.GameSpec`: its rules, tasks, policies, summary and metrics."""
from __future__ import annotations

from cardsim.simcore.framework.spec import GameSpec, MetricSpec
from cardsim.simcore.tusac.rules import TuSacRules

#: Tasks, summary and metrics are imported on first use (they load numba, pandas and
#: pyarrow); listing games or printing rules needs only this module and the rules.
_PACKAGE = "cardsim.simcore.tusac"

SPEC = GameSpec(
    name="tusac",
    title="Four-colour cards (Tứ Sắc), 2-4 players, 112 cards",
    rules_cls=TuSacRules,
    deal=f"{_PACKAGE}.tasks:DEAL",
    play=f"{_PACKAGE}.tasks:PLAY",
    summary=f"{_PACKAGE}.summary:play_summary",
    metrics={
        "deal": MetricSpec("per_deal", f"{_PACKAGE}.summary:deal_metrics", {"per_deal": True}),
        "play": MetricSpec("games", f"{_PACKAGE}.summary:play_metrics",
                           units={"points_": "points", "steals_": "steals per game", "turns": "turns"}),
    },
    rules_doc="docs/rules/tusac.md",
    exact=f"{_PACKAGE}.exact:exact_table",
    ledger=f"{_PACKAGE}.replay:card_ledger",
    hands=f"{_PACKAGE}.events:HANDS",
    balance=f"{_PACKAGE}.summary:balance_outcomes",
    balance_progress=f"{_PACKAGE}.replay:balance_progress",
    tables=f"{_PACKAGE}.play:tables",
    trainer=f"{_PACKAGE}.train",
    step=f"{_PACKAGE}.step:TuSacStep",
    throughput={"deal": 2.5e6, "play": 2e4},  # deals or games per second and core, conservative
    replay_legend=("cards: colour R red, Y yellow, G green, W white, then G General, A Advisor, E Elephant, "
                   "C Chariot, H Horse, N cannon, S Soldier (RG = red General); 2YH = two yellow Horses"),
)
