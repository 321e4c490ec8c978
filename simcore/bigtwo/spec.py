"""Big Two's :class:`~cardsim.simcore.framework.spec.GameSpec`: a profile of the Tiến Lên engine."""
from __future__ import annotations

from cardsim.simcore.bigtwo.rules import BigTwoRules
from cardsim.simcore.framework.spec import GameSpec, MetricSpec, OptionSpec

_PACKAGE = "cardsim.simcore.bigtwo"
_ENGINE = "cardsim.simcore.tienlen"

SPEC = GameSpec(
    name="bigtwo",
    title="Big Two (Chinese climbing game with poker hands), 2-4 players, 52 cards",
    rules_cls=BigTwoRules,
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
    rules_doc="docs/rules/bigtwo.md",
    exact=f"{_PACKAGE}.exact:exact_table",
    ledger=f"{_ENGINE}.replay:card_ledger",
    trainer=f"{_PACKAGE}.train",
    step=f"{_PACKAGE}.step:BigTwoStep",
    hands=f"{_PACKAGE}.events:HANDS",
    balance=f"{_PACKAGE}.summary:balance_outcomes",
    balance_progress=f"{_ENGINE}.replay:balance_progress",
    throughput={"deal": 5e6, "play": 5e4},  # deals or games per second and core, conservative
    replay_legend="cards in Big Two's order: 3♦ lowest, 2♠ highest (suits ♦ < ♣ < ♥ < ♠)",
)
