"""Tiến Lên learned policy: its model file (the kernel is :func:`.policies.choose_learned`).

The ``learned`` policy considers the same decisions as the heuristic (the lowest-suit
play of each class and top rank, plus the pass when allowed; a play that empties the
hand is taken at once) and plays the one with the highest score ``w . features``
(ties: the pass first, then the candidates in order, like the heuristic). The features
(:data:`FEATURES`) describe the hand the decision leaves and the play itself; the
heuristic is one such linear score (:data:`HEURISTIC_WEIGHTS`, exactly: the learned
policy with those weights plays as the heuristic, a test checks it). The shipped
weights (``learned_weights.txt`` beside this file) come from ``cardsim train tienlen``
(:mod:`.train`, an adapter over :mod:`cardsim.simcore.framework.selfplay`), which
improves the weights by evolution strategies on duplicate deals against heuristic,
greedy, random and self-play fields.

It reads the seat's own hand and the public table only.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from cardsim.simcore.framework import selfplay
from cardsim.simcore.tienlen.policies import FEATURES

#: The heuristic as a linear score (see :func:`.policies.play_value`, :func:`.policies.pass_value`).
HEURISTIC_WEIGHTS = np.array([-10.0, 3.0, 6.0, 1.0,
                              -0.4, 0.3, 6.0, 15.0, -2.0, 0.0, 0.0,
                              -40.0, -20.0, -6.0, -3.0, -6.0,
                              0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])

WEIGHTS_FILE = Path(__file__).with_name("learned_weights.txt")


def parse_weights(text: str, path: str = "model") -> np.ndarray:
    """Weights from the text of a model file (``name value`` lines; ``#`` comments):
    float64[N_FEATURES]. Raises ValueError naming ``path`` for a missing, unknown or
    repeated feature or a bad number (:func:`.selfplay.parse_weights` over :data:`FEATURES`)."""
    return selfplay.parse_weights(FEATURES, text, path)


def read_weights(path: Path | str = WEIGHTS_FILE) -> np.ndarray:
    """:func:`parse_weights` of a model file (default: the shipped one): float64[N_FEATURES]."""
    return selfplay.read_weights(FEATURES, path)


def format_weights(w: np.ndarray, header: list[str]) -> str:
    """A model file: ``header`` lines as comments, then one ``feature value`` line each of
    ``w`` (float64[N_FEATURES]; ``repr`` floats: reading the file back gives the same bits)."""
    return selfplay.format_weights(FEATURES, w, header)
