"""Tứ Sắc self-play training of the learned policy: the adapter over
:mod:`cardsim.simcore.framework.selfplay` (evolution strategies on duplicate deals; the
method is described there).

Training starts from the heuristic as a linear score (:data:`.learned.HEURISTIC_WEIGHTS`)
and plays every seat against the fields of :data:`FIELDS` (the heuristic twice, random
players and the current weights themselves), the fitness being the win rate. Games are the
ordinary :func:`.play.play_chunk` games. ``cardsim train tusac`` calls
:func:`games_per_iteration`, :func:`run_training` and :func:`reproduce_command`.

Which weights move (:data:`NOISE`): a discard keeps the heuristic's first rule (least
trash; its weight is not perturbed) and learns what decides between discards that leave
as much trash (points, pairs and loose cards kept, and how many copies of the card are
still unseen: the danger of feeding a taker); a take learns all its weights. Features that
are always 0 for a decision kind are not perturbed.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from cardsim.simcore.framework import selfplay
from cardsim.simcore.tusac.learned import HEURISTIC_WEIGHTS
from cardsim.simcore.tusac.policies import FEATURES
from cardsim.simcore.tusac.rules import TuSacRules

#: The fields a candidate plays against (``"self"``: the current weights).
FIELDS = ("heuristic", "heuristic", "random", "self")
PAIRS = 8
DEALS = 500
STEP = 0.5
PLAYERS = 4
#: Per-feature noise scale (order :data:`.policies.FEATURES`): take trash, score, points,
#: decline, pairs, singles, unseen; then the same for a discard.
NOISE = np.array([1.5, 0.3, 0.3, 1.0, 1.0, 1.0, 0.0,
                  0.0, 0.3, 0.0, 0.0, 1.0, 1.0, 1.0])


def seat_wins(run_seed: int, deals: int, rules: TuSacRules, policies: list, weights: np.ndarray, seat: int) -> int:
    """Deals ``0 .. deals-1`` of ``run_seed`` won by ``seat`` (``weights``: float64[P, N_FEATURES])."""
    from cardsim.simcore.tusac.play import play_chunk

    cols = play_chunk(run_seed, 0, deals, rules, policies, weights=weights)
    return int((cols["winner"] == seat).sum())


SPEC = selfplay.SelfPlaySpec(
    game="tusac",
    title="cardsim learned policy for Tứ Sắc: weights of a linear score over the heuristic's decisions",
    features=tuple(FEATURES), heuristic_weights=HEURISTIC_WEIGHTS, noise=NOISE, fields=FIELDS,
    pairs=PAIRS, deals=DEALS, step=STEP, players=PLAYERS, make_rules=TuSacRules, seat_wins=seat_wins,
    display="Tứ Sắc",
)

games_per_iteration = partial(selfplay.games_per_iteration, SPEC)
start_state = partial(selfplay.start_state, SPEC)
train = partial(selfplay.train, SPEC)
reproduce_command = partial(selfplay.reproduce_command, SPEC)
run_training = partial(selfplay.run_training, SPEC)
