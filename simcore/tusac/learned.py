"""Tứ Sắc learned policy: its model file (the kernel is :func:`.policies.learned_choose`).

The ``learned`` policy makes the heuristic's decisions (take an exposed card with one of
its meld options or decline; discard a legal type) and plays the one with the highest
score ``w . features`` of what it leaves (:data:`FEATURES`: trash, concealed score, the
meld's points, declining, pairs, loose cards, and for a discard how many copies of the
type the seat has not seen). A take and a discard have their own weights. The heuristic
is one such score (:data:`HEURISTIC_WEIGHTS`, exactly: with them the learned policy plays
as the heuristic, a test checks it). The shipped weights (``learned_weights.txt`` beside
this file) come from ``cardsim train tusac`` (see :mod:`.train`).

It reads the seat's own hand, the discards and the tables only.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from cardsim.simcore.framework import selfplay
from cardsim.simcore.tusac.policies import DISCARD_TRASH_WEIGHT, FEATURES, HEUR_TRASH, N_DECISION_FEATURES

#: The heuristic as a linear score: a take by ``-10 * trash + score + taken points`` (see
#: :func:`.policies.take_value`), a discard by least trash, then most points.
HEURISTIC_WEIGHTS = np.zeros(2 * N_DECISION_FEATURES, np.float64)
HEURISTIC_WEIGHTS[:3] = (-float(HEUR_TRASH), 1.0, 1.0)
HEURISTIC_WEIGHTS[N_DECISION_FEATURES:N_DECISION_FEATURES + 2] = (-DISCARD_TRASH_WEIGHT, 1.0)

WEIGHTS_FILE = Path(__file__).with_name("learned_weights.txt")


def parse_weights(text: str, path: str = "model") -> np.ndarray:
    """Weights from a model file's text: float64[N_FEATURES] (see :func:`.selfplay.parse_weights`)."""
    return selfplay.parse_weights(FEATURES, text, path)


def read_weights(path: Path | str = WEIGHTS_FILE) -> np.ndarray:
    """:func:`parse_weights` of a model file."""
    return selfplay.read_weights(FEATURES, path)


def format_weights(w: np.ndarray, header: list[str]) -> str:
    """A model file: ``header`` lines as comments, then one ``feature value`` line each."""
    return selfplay.format_weights(FEATURES, w, header)
