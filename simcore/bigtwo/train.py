"""``cardsim train bigtwo`` (``GameSpec.trainer``): Tiến Lên's self-play training
(:mod:`cardsim.simcore.tienlen.train`, over :mod:`cardsim.simcore.framework.selfplay`) on
Big Two's default rules, starting from Big Two's heuristic as a linear score
(:data:`.learned.HEURISTIC_WEIGHTS`), against the same fields (the heuristic twice,
greedy, random and the current weights themselves). The model file is Tiến Lên's format;
the shipped one is :data:`.learned.WEIGHTS_FILE`."""
from __future__ import annotations

from cardsim.simcore.bigtwo.learned import HEURISTIC_WEIGHTS
from cardsim.simcore.bigtwo.rules import BigTwoRules
from cardsim.simcore.tienlen import train as _engine

SPEC = _engine.make_spec("bigtwo", "Big Two", BigTwoRules, HEURISTIC_WEIGHTS)
_ADAPTER = _engine.adapter(SPEC)
games_per_iteration = _ADAPTER.games_per_iteration
start_state = _ADAPTER.start_state
iterate = _ADAPTER.iterate
train = _ADAPTER.train
write_model = _ADAPTER.write_model
reproduce_command = _ADAPTER.reproduce_command
run_training = _ADAPTER.run_training

__all__ = ["SPEC", "games_per_iteration", "iterate", "reproduce_command", "run_training", "start_state", "train",
           "write_model"]
