"""Loba's and Continental's :class:`~cardsim.simcore.spec.GameSpec` (one rummy core, two rule sets)."""
from __future__ import annotations

from cardsim.simcore.rummy import summary
from cardsim.simcore.rummy.rules import ContinentalRules, LobaRules
from cardsim.simcore.rummy.tasks import CONTINENTAL_DEAL_TASK as CONTINENTAL_DEAL
from cardsim.simcore.rummy.tasks import CONTINENTAL_PLAY_TASK, LOBA_PLAY_TASK
from cardsim.simcore.rummy.tasks import LOBA_DEAL_TASK as LOBA_DEAL
from cardsim.simcore.spec import GameSpec, MetricSpec, OptionSpec

#: The metrics of both games: per-match wins, penalty points (fewer is better), claims ...
_METRICS = {"play": MetricSpec("matches", summary.play_metrics,
                               units={"points_": "penalty points", "claims_": "claims per match",
                                      "rounds_won_": "rounds", "minus10_": "closes"},
                               points_lower_is_better=True)}
_OPTIONS = (
    OptionSpec("draws", "deal", "also count contracts held after K more stock cards"),
    OptionSpec("claim_seats", "play", "seats allowed to claim (buy / robar): all, none or e.g. 0,2"),
    OptionSpec("max_turns", "play", "turn cap per round"),
)


def _rummy_spec(name: str, title: str, rules_cls, deal, play) -> GameSpec:
    """One rummy game: the shared summary, metrics and options, its own rules and tasks."""
    return GameSpec(name=name, title=title, rules_cls=rules_cls, deal=deal, play=play,
                    summary=summary.play_summary, metrics=_METRICS, options=_OPTIONS,
                    rules_doc=f"docs/rules/{name}.md")


LOBA = _rummy_spec("loba", "Loba / Carioca (contract rummy), 2-5 players, 108 cards", LobaRules, LOBA_DEAL,
                   LOBA_PLAY_TASK)
CONTINENTAL = _rummy_spec("continental", "Continental (Spanish contract rummy), 2-4 players, 110 cards",
                          ContinentalRules, CONTINENTAL_DEAL, CONTINENTAL_PLAY_TASK)
