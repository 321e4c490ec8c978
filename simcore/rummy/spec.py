"""Loba's and Continental's :class:`~cardsim.simcore.spec.GameSpec` (one rummy core, two rule sets)."""
from __future__ import annotations

from cardsim.simcore.rummy import summary
from cardsim.simcore.rummy.rules import ContinentalRules, LobaRules
from cardsim.simcore.rummy.tasks import CONTINENTAL_DEAL_TASK as CONTINENTAL_DEAL
from cardsim.simcore.rummy.tasks import CONTINENTAL_PLAY_TASK, LOBA_PLAY_TASK
from cardsim.simcore.rummy.tasks import LOBA_DEAL_TASK as LOBA_DEAL
from cardsim.simcore.spec import GameSpec, MetricSpec, OptionSpec

LOBA = GameSpec(
    name="loba",
    title="Loba / Carioca (contract rummy), 2-5 players, 108 cards",
    rules_cls=LobaRules,
    deal=LOBA_DEAL,
    play=LOBA_PLAY_TASK,
    summary=summary.play_summary,
    metrics={
        "play": MetricSpec("matches", summary.play_metrics, units={"points_": "penalty points", "claims_": "claims per match",
                                                                   "rounds_won_": "rounds", "minus10_": "closes"},
                           points_lower_is_better=True),
    },
    options=(
        OptionSpec("draws", "deal", "also count contracts held after K more stock cards"),
        OptionSpec("claim_seats", "play", "seats allowed to claim (buy / robar): all, none or e.g. 0,2"),
        OptionSpec("max_turns", "play", "turn cap per round"),
    ),
    rules_doc="docs/rules/loba.md",
)

CONTINENTAL = GameSpec(
    name="continental",
    title="Continental (Spanish contract rummy), 2-4 players, 110 cards",
    rules_cls=ContinentalRules,
    deal=CONTINENTAL_DEAL,
    play=CONTINENTAL_PLAY_TASK,
    summary=summary.play_summary,
    metrics={
        "play": MetricSpec("matches", summary.play_metrics, units={"points_": "penalty points", "claims_": "claims per match",
                                                                   "rounds_won_": "rounds", "minus10_": "closes"},
                           points_lower_is_better=True),
    },
    options=(
        OptionSpec("draws", "deal", "also count contracts held after K more stock cards"),
        OptionSpec("claim_seats", "play", "seats allowed to claim (buy / robar): all, none or e.g. 0,2"),
        OptionSpec("max_turns", "play", "turn cap per round"),
    ),
    rules_doc="docs/rules/continental.md",
)
