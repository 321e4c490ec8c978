"""Loba and Continental self-play training of the learned policy: the adapters over
:mod:`cardsim.simcore.framework.selfplay` (evolution strategies on duplicate deals; the
method is described there).

Training starts from the heuristic as a linear score (:data:`.learned.HEURISTIC_WEIGHTS`)
and plays every seat against the fields of :data:`FIELDS` (the heuristic twice, random
players and the current weights themselves), the fitness being the share of **matches**
won (all rounds of the game). Games are the ordinary :func:`.play.play_chunk` games.
``cardsim train loba`` / ``cardsim train continental`` call the module of the game
(:mod:`.learned_loba`, :mod:`.learned_continental`): its ``games_per_iteration``,
``run_training`` and ``reproduce_command`` are the partials of :func:`adapter`.

Which weights move (:data:`NOISE`, scaled to each feature's range): all of them, the
discard's distance weight included (its heuristic value, 25, puts keeping the contract
distance first; a smaller one trades it against the points caught in hand). A deal is a
whole match, so deals per iteration are few (:data:`DEALS`: one iteration about 20 s on two
cores).
"""
from __future__ import annotations

from functools import partial
from types import SimpleNamespace

import numpy as np

from cardsim.simcore.framework import selfplay
from cardsim.simcore.rummy.learned import HEURISTIC_WEIGHTS
from cardsim.simcore.rummy.policies import FEATURES
from cardsim.simcore.rummy.rules import ContinentalRules, LobaRules

#: The fields a candidate plays against (``"self"``: the current weights).
FIELDS = ("heuristic", "heuristic", "random", "self")
PAIRS = 8
DEALS = 40
STEP = 0.5
PLAYERS = 4
_TAKE = [0.3, 0.3, 0.3, 0.02, 0.3, 0.1, 0.2, 0.2, 0.2]
#: Per-feature noise scale (order :data:`.policies.FEATURES`): take bias, improves, lowers,
#: points, joker, distance, threat, behind, last_round; claim the same plus near; discard
#: distance, points, joker, links, unseen, layable, points_threat.
NOISE = np.array(_TAKE + _TAKE + [0.3] + [3.0, 0.3, 5.0, 1.0, 1.0, 3.0, 0.1])
assert NOISE.shape == (len(FEATURES),)


def seat_wins(run_seed: int, deals: int, rules, policies: list, weights: np.ndarray, seat: int) -> int:
    """Matches ``0 .. deals-1`` of ``run_seed`` won by ``seat`` (``weights``: float64[P, N_FEATURES])."""
    from cardsim.simcore.rummy.play import play_chunk

    cols = play_chunk(run_seed, 0, deals, rules, policies, weights=weights)
    return int((cols["matches"]["winner"] == seat).sum())


def make_spec(game: str, display: str, make_rules) -> selfplay.SelfPlaySpec:
    """The :class:`.selfplay.SelfPlaySpec` of ``game`` (4 players, its default rules)."""
    return selfplay.SelfPlaySpec(
        game=game,
        title=f"cardsim learned policy for {display}: weights of a linear score over the heuristic's decisions",
        features=tuple(FEATURES), heuristic_weights=HEURISTIC_WEIGHTS, noise=NOISE, fields=FIELDS,
        pairs=PAIRS, deals=DEALS, step=STEP, players=PLAYERS, make_rules=make_rules, seat_wins=seat_wins,
        display=display,
    )


LOBA_SPEC = make_spec("loba", "Loba", LobaRules)
CONTINENTAL_SPEC = make_spec("continental", "Continental", ContinentalRules)


def adapter(spec: selfplay.SelfPlaySpec) -> SimpleNamespace:
    """``cardsim train``'s functions for ``spec`` (a game's module re-exports them)."""
    return SimpleNamespace(
        SPEC=spec,
        games_per_iteration=partial(selfplay.games_per_iteration, spec),
        start_state=partial(selfplay.start_state, spec),
        train=partial(selfplay.train, spec),
        reproduce_command=partial(selfplay.reproduce_command, spec),
        run_training=partial(selfplay.run_training, spec),
    )
