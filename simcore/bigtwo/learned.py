"""Big Two learned policy: its model file (the kernel is :func:`cardsim.simcore.tienlen.policies.choose_learned_bigtwo`).

Big Two's ``learned`` is the Tiến Lên engine's learned policy under the Big Two profile:
it considers the same decisions as Big Two's heuristic (its candidates, five-card hands
included, plus the pass) and plays the one with the highest score ``w . features``. The
features are Tiến Lên's (:data:`FEATURES`, the same names and model-file format), the
ones Big Two's heuristic uses read as it reads them (its units, fours, the rank of a full
house or four + kicker, no bombs: :func:`cardsim.simcore.tienlen.policies._features_of`),
so that with :data:`HEURISTIC_WEIGHTS` the learned policy *is* Big Two's heuristic (a
test checks it). The shipped weights (``learned_weights.txt`` beside this file) come
from ``cardsim train bigtwo`` (:mod:`.train`: Tiến Lên's training, :mod:`cardsim.simcore.tienlen.train`,
with Big Two's rules and starting weights).

It reads the seat's own hand and the public table only.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from cardsim.simcore.tienlen import learned as _engine
from cardsim.simcore.tienlen.learned import FEATURES, format_weights, parse_weights

#: Big Two's heuristic as a linear score (:func:`cardsim.simcore.tienlen.policies.play_value_bigtwo`,
#: :func:`~cardsim.simcore.tienlen.policies.pass_value`): a card shed is worth 1 (Tiến Lên: 0.3),
#: a four 2, no chop term; the pass as in Tiến Lên.
HEURISTIC_WEIGHTS = np.array([-10.0, 3.0, 2.0, 1.0,
                              -0.4, 1.0, 0.0, 15.0, -2.0, 0.0, 0.0,
                              -40.0, -20.0, -6.0, -3.0, -6.0,
                              0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])

WEIGHTS_FILE = Path(__file__).with_name("learned_weights.txt")


def read_weights(path: Path | str = WEIGHTS_FILE) -> np.ndarray:
    """The weights of a model file (default: Big Two's shipped one): float64[N_FEATURES]."""
    return _engine.read_weights(path)


__all__ = ["FEATURES", "HEURISTIC_WEIGHTS", "WEIGHTS_FILE", "format_weights", "parse_weights", "read_weights"]
