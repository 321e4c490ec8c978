"""Loba's learned player: its shipped model (``WEIGHTS_FILE``, ``read_weights``, for the play task's
``learned`` and ``learned:FILE`` seats) and ``cardsim train loba`` (``GameSpec.trainer``):
the adapter of :mod:`.train` for Loba (the policy itself: :mod:`.learned`)."""
from __future__ import annotations

from pathlib import Path

from cardsim.simcore.rummy import learned, train

SPEC = train.LOBA_SPEC
WEIGHTS_FILE = learned.weights_file("loba")
_ADAPTER = train.adapter(SPEC)
games_per_iteration = _ADAPTER.games_per_iteration
start_state = _ADAPTER.start_state
reproduce_command = _ADAPTER.reproduce_command
run_training = _ADAPTER.run_training


def read_weights(path: Path | str = WEIGHTS_FILE):
    """The weights of a model file (default: the shipped one)."""
    return learned.read_weights(path)
