"""Tiến Lên self-play training of the learned policy: the adapter over
:mod:`cardsim.simcore.framework.selfplay` (evolution strategies on duplicate deals; the
method is described there).

The learned policy is a linear score over the heuristic's candidates
(:func:`.policies.choose_learned`); training starts from the heuristic's own weights
(:data:`.learned.HEURISTIC_WEIGHTS`) and plays every seat against the fields of
:data:`FIELDS` (the heuristic twice, greedy, random and the current weights themselves).
Games are the ordinary :func:`.play.play_chunk` games. The functions here are the
framework's with :data:`SPEC` bound; ``cardsim train tienlen`` calls
:func:`games_per_iteration`, :func:`run_training` and :func:`reproduce_command`.

The engine's other profile trains the same way: :func:`make_spec` builds the spec of a
profile from its rules and starting weights, :func:`adapter` the functions ``cardsim
train`` calls (``cardsim train bigtwo``: :mod:`cardsim.simcore.bigtwo.train`).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import Callable

import numpy as np

from cardsim.simcore.framework import selfplay
from cardsim.simcore.tienlen.learned import FEATURES, HEURISTIC_WEIGHTS
from cardsim.simcore.tienlen.rules import TienLenRules

#: The fields a candidate plays against (``"self"``: the current weights).
FIELDS = ("heuristic", "heuristic", "greedy", "random", "self")
#: Antithetic pairs per iteration.
PAIRS = 8
#: Deals per seat and field for each perturbed weight vector.
DEALS = 500
#: Step size (in units of the noise scale, normalised by the spread of the differences).
STEP = 0.5
PLAYERS = 4


def noise_scale(start: np.ndarray) -> np.ndarray:
    """Per-feature noise scale: 15% of the starting (heuristic's) weight, at least 0.3."""
    return np.maximum(np.abs(start) * 0.15, 0.3)


#: Tiến Lên's per-feature noise scale (:func:`noise_scale` of the heuristic's weights).
NOISE = noise_scale(HEURISTIC_WEIGHTS)


def seat_wins(run_seed: int, deals: int, rules: TienLenRules, policies: list, weights: np.ndarray, seat: int) -> int:
    """Deals ``0 .. deals-1`` of ``run_seed`` won by ``seat`` (``weights``: float64[P, N_FEATURES])."""
    from cardsim.simcore.tienlen.play import play_chunk

    cols = play_chunk(run_seed, 0, deals, rules, policies, weights=weights)
    return int((cols[f"place_{seat}"] == 1).sum())


def make_spec(game: str, display: str, make_rules: Callable, start: np.ndarray) -> selfplay.SelfPlaySpec:
    """The :class:`.selfplay.SelfPlaySpec` of a profile of the engine: ``game`` (its
    ``cardsim train`` name), trained on ``make_rules()`` from the weights ``start`` (its
    heuristic as a linear score, float64[N_FEATURES]; noise :func:`noise_scale` of them),
    against :data:`FIELDS` with :data:`PAIRS`, :data:`DEALS`, :data:`STEP`, 4 players."""
    return selfplay.SelfPlaySpec(
        game=game,
        title=f"cardsim learned policy for {display}: weights of a linear score over the heuristic's candidates",
        features=tuple(FEATURES), heuristic_weights=start, noise=noise_scale(start), fields=FIELDS,
        pairs=PAIRS, deals=DEALS, step=STEP, players=PLAYERS, make_rules=make_rules, seat_wins=seat_wins,
        display=display,
    )


SPEC = make_spec("tienlen", "Tiến Lên", TienLenRules, HEURISTIC_WEIGHTS)


def adapter(spec: selfplay.SelfPlaySpec) -> SimpleNamespace:
    """``cardsim train``'s functions for another profile's ``spec`` (its module re-exports them)."""
    return SimpleNamespace(
        SPEC=spec,
        games_per_iteration=partial(selfplay.games_per_iteration, spec),
        start_state=partial(selfplay.start_state, spec),
        iterate=partial(selfplay.iterate, spec),
        train=partial(selfplay.train, spec),
        write_model=partial(selfplay.write_model, spec),
        reproduce_command=partial(selfplay.reproduce_command, spec),
        run_training=partial(selfplay.run_training, spec),
    )


@dataclass
class TrainState(selfplay.TrainState):
    """:class:`.selfplay.TrainState` of :data:`SPEC` (``from_text(text, path)``)."""

    spec: selfplay.SelfPlaySpec = field(default=SPEC, repr=False)

    @classmethod
    def from_text(cls, text: str, path: str = "model") -> "TrainState":  # type: ignore[override]
        return selfplay.state_from_text(SPEC, text, path, cls)


def games_per_iteration() -> int:
    """Games one iteration plays: both signs of every pair, every field and seat."""
    return selfplay.games_per_iteration(SPEC)


def start_state(seed: int) -> TrainState:
    """Iteration 0: the heuristic's weights."""
    return TrainState(seed=seed, iterations=0, weights=HEURISTIC_WEIGHTS.copy())


def fitness(w: np.ndarray, current: np.ndarray, run_seed: int, deals: int, rules: TienLenRules) -> float:
    """:func:`.selfplay.fitness` on ``deals`` deals per seat and field (``w``, ``current``:
    float64[N_FEATURES])."""
    return selfplay.fitness(dataclasses.replace(SPEC, deals=deals), w, current, run_seed, rules)


def iterate(state: TrainState, rules: TienLenRules) -> TrainState:
    """One iteration (:func:`.selfplay.iterate`)."""
    return selfplay.iterate(SPEC, state, rules)


def train(state: TrainState, games: int | None, minutes: float | None,
          on_iteration: Callable[[TrainState], None] | None = None, rules: TienLenRules | None = None) -> TrainState:
    """Iterate until ``games`` games in all (the checkpoint's included; whole iterations)
    or ``minutes`` of wall time; ``on_iteration`` gets each new state (:func:`.selfplay.train`)."""
    return selfplay.train(SPEC, state, games, minutes, on_iteration, rules)


def write_model(path: Path, state: TrainState, command: str) -> None:
    """Write the model file atomically (:func:`.selfplay.write_model`)."""
    selfplay.write_model(SPEC, path, state, command)


def reproduce_command(seed: int, games: int, out: str = "model.txt") -> str:
    """``cardsim train tienlen --seed S --games N --out F``."""
    return selfplay.reproduce_command(SPEC, seed, games, out)


def run_training(out: Path, seed: int, games: int | None, minutes: float | None, overwrite: bool,
                 on_iteration: Callable[[TrainState], None] | None = None) -> tuple[TrainState, int]:
    """``cardsim train tienlen`` (:func:`.selfplay.run_training`): returns the final state
    and the iteration it started from; ConfigError with one line for bad input."""
    return selfplay.run_training(SPEC, out, seed, games, minutes, overwrite, on_iteration)


__all__ = ["FEATURES", "SPEC", "TrainState", "adapter", "games_per_iteration", "iterate", "make_spec", "run_training",
           "start_state", "train", "write_model"]
