"""Loba and Continental learned policy: its model files (the kernel is :func:`.policies.learned_choose`).

The ``learned`` policy makes the heuristic's decisions and scores them by ``w . features``
(:data:`.policies.FEATURES`): taking the pile top or the stock, claiming the refused card
or not (each taken when its score is positive) and which card to discard (the highest
score). Take, claim and discard have their own weights; lay-downs, lay-offs and the
decisions of a seat already down are the heuristic's. The heuristic is one such score
(:data:`HEURISTIC_WEIGHTS`, exactly: with them the learned policy plays as the heuristic, a
test checks it). Each game has its own shipped weights (:func:`weights_file`), trained by
``cardsim train loba`` / ``cardsim train continental`` (see :mod:`.train`).

It reads the seat's own hand and public information only: the pile, the table melds, the
cards other seats are known to hold, who is down, the match totals and the rounds left.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from cardsim.simcore.framework import selfplay
from cardsim.simcore.rummy.policies import (CLAIM_MAX_DIST, DISCARD_DISTANCE_WEIGHT, FEATURES, O_CLAIM, O_DISCARD,
                                            O_TAKE)

#: The heuristic as a linear score: take (claim) ``-0.5 + improves`` (a claim also needs
#: ``near``: ``-1.5 + improves + near``); discard ``-25 * distance + points - 50 * joker``.
HEURISTIC_WEIGHTS = np.zeros(len(FEATURES), np.float64)
HEURISTIC_WEIGHTS[O_TAKE:O_TAKE + 2] = (-0.5, 1.0)
HEURISTIC_WEIGHTS[O_CLAIM:O_CLAIM + 2] = (-1.5, 1.0)
HEURISTIC_WEIGHTS[FEATURES.index("claim_near")] = 1.0
HEURISTIC_WEIGHTS[O_DISCARD:O_DISCARD + 3] = (-DISCARD_DISTANCE_WEIGHT, 1.0, -50.0)
assert CLAIM_MAX_DIST == 3  # claim_near is "distance <= CLAIM_MAX_DIST + 1"

#: The shipped model of each game.
WEIGHTS_FILES = {"loba": Path(__file__).with_name("learned_weights_loba.txt"),
                 "continental": Path(__file__).with_name("learned_weights_continental.txt")}


def weights_file(game: str) -> Path:
    """The shipped model file of ``game`` (``loba`` or ``continental``)."""
    return WEIGHTS_FILES[game]


def parse_weights(text: str, path: str = "model") -> np.ndarray:
    """Weights from a model file's text: float64[N_FEATURES] (see :func:`.selfplay.parse_weights`)."""
    return selfplay.parse_weights(FEATURES, text, path)


def read_weights(path: Path | str) -> np.ndarray:
    """:func:`parse_weights` of a model file."""
    return selfplay.read_weights(FEATURES, path)


def format_weights(w: np.ndarray, header: list[str]) -> str:
    """A model file: ``header`` lines as comments, then one ``feature value`` line each."""
    return selfplay.format_weights(FEATURES, w, header)
