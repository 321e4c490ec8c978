"""Loba's and Continental's :class:`~cardsim.simcore.framework.spec.GameSpec` (one rummy core, two rule sets)."""
from __future__ import annotations

from cardsim.simcore.rummy.rules import ContinentalRules, LobaRules
from cardsim.simcore.framework.spec import GameSpec, MetricSpec, OptionSpec

#: Tasks, summary and metrics are imported on first use (they load numba, pandas and
#: pyarrow); listing games or printing rules needs only this module and the rules.
_PACKAGE = "cardsim.simcore.rummy"

#: The metrics of both games: per-match wins, penalty points (fewer is better), claims ...
_METRICS = {"play": MetricSpec("matches", f"{_PACKAGE}.summary:play_metrics",
                               units={"points_": "penalty points", "claims_": "claims per match",
                                      "rounds_won_": "rounds", "minus10_": "closes"},
                               points_lower_is_better=True)}
_OPTIONS = (
    OptionSpec("draws", "deal", "also count contracts held after K more stock cards", kind=int, metavar="K"),
    OptionSpec("claim_seats", "play", "seats allowed to claim a refused discard (buy / robar de contra): all "
                                      "(default), none, or a list like 0,2 (with the rule switch claims on)",
               metavar="SEATS"),
    OptionSpec("max_turns", "play", "turn cap per round (a round that reaches it ends unfinished)", kind=int,
               metavar="N"),
)


def _rummy_spec(name: str, title: str, rules_cls, deal: str, play: str, play_rate: float) -> GameSpec:
    """One rummy game: the shared summary, metrics and options, its own rules and tasks."""
    return GameSpec(name=name, title=title, rules_cls=rules_cls, deal=f"{_PACKAGE}.tasks:{deal}",
                    play=f"{_PACKAGE}.tasks:{play}", summary=f"{_PACKAGE}.summary:play_summary",
                    metrics=_METRICS, options=_OPTIONS, rules_doc=f"docs/rules/{name}.md",
                    ledger=f"{_PACKAGE}.replay:card_ledger",
                    balance=f"{_PACKAGE}.summary:balance_outcomes",
                    trainer=f"{_PACKAGE}.learned_{name}", step=f"{_PACKAGE}.step:RummyStep",
                    throughput={"deal": 5e5, "play": play_rate})  # per second and core, conservative


LOBA = _rummy_spec("loba", "Loba / Carioca (contract rummy), 2-5 players, 108 cards", LobaRules,
                   "LOBA_DEAL_TASK", "LOBA_PLAY_TASK", 1e3)
CONTINENTAL = _rummy_spec("continental", "Continental (Spanish contract rummy), 2-4 players, 110 cards",
                          ContinentalRules, "CONTINENTAL_DEAL_TASK", "CONTINENTAL_PLAY_TASK", 8e2)
