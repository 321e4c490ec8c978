"""Tiến Lên self-play training of the learned policy: evolution strategies on duplicate deals.

The learned policy is a linear score over the heuristic's candidates
(:func:`.policies.choose_learned`). Training starts from the heuristic's own weights
(:data:`.learned.HEURISTIC_WEIGHTS`) and improves them by antithetic evolution
strategies (Salimans et al. 2017), the fitness being the win rate that matters:

* iteration ``k`` draws ``PAIRS`` perturbations ``e`` (normal, per-feature scale
  :data:`NOISE`) and plays ``w + e`` and ``w - e`` on the **same** deals (common random
  numbers: the deal's luck cancels out of ``fitness(w + e) - fitness(w - e)``);
* the fitness of a weight vector is its win rate in every seat against each field of
  :data:`FIELDS`: the heuristic, greedy and random players and **itself** (the other
  seats play the current weights ``w``: self-play);
* ``w`` moves by ``STEP * sum(diff * e) / (PAIRS * sd(diff))``.

Everything in iteration ``k`` derives from ``(seed, k)``: the perturbations
(``numpy.random.default_rng([seed, k])``) and the deals (run seed
``mix64(seed * 2**20 + k)``), and games are the ordinary :func:`.play.play_chunk` games,
identical whatever the threads. So a run is deterministic for its seed, and a run
resumed from a checkpoint (the weights and ``k``) gives the uninterrupted run's weights
bit for bit.
"""
from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from cardsim.simcore.primitives.rng import mix64
from cardsim.simcore.tienlen.learned import FEATURES, HEURISTIC_WEIGHTS, format_weights, parse_weights
from cardsim.simcore.tienlen.policies import N_FEATURES
from cardsim.simcore.tienlen.rules import TienLenRules

#: The fields a candidate plays against (``"self"``: the current weights).
FIELDS = ("heuristic", "heuristic", "greedy", "random", "self")
#: Antithetic pairs per iteration.
PAIRS = 8
#: Deals per seat and field for each perturbed weight vector.
DEALS = 500
#: Step size (in units of the noise scale, normalised by the spread of the differences).
STEP = 0.5
#: Per-feature noise scale: 15% of the heuristic's weight, at least 0.3.
NOISE = np.maximum(np.abs(HEURISTIC_WEIGHTS) * 0.15, 0.3)
PLAYERS = 4


def games_per_iteration() -> int:
    """Games one iteration plays: both signs of every pair, every field and seat."""
    return 2 * PAIRS * len(FIELDS) * PLAYERS * DEALS


@dataclass
class TrainState:
    """A training run's checkpoint: the weights after ``iterations`` iterations of ``seed``."""

    seed: int
    iterations: int
    weights: np.ndarray
    first_checkpoint: np.ndarray | None = None
    fitness: list[float] = field(default_factory=list)

    @property
    def games(self) -> int:
        return self.iterations * games_per_iteration()

    def to_text(self, command: str) -> str:
        header = [
            "cardsim learned policy for Tiến Lên: weights of a linear score over the heuristic's candidates",
            f"reproduce: {command}",
            f"train: seed {self.seed}",
            f"train: iterations {self.iterations}",
            f"train: games {self.games}",
        ]
        if self.first_checkpoint is not None:
            header.append("train: first_checkpoint " + " ".join(repr(float(x)) for x in self.first_checkpoint))
        if self.fitness:
            header.append("train: fitness_last " + repr(float(self.fitness[-1])))
        return format_weights(self.weights, header)

    @classmethod
    def from_text(cls, text: str, path: str = "model") -> "TrainState":
        info: dict[str, str] = {}
        for line in text.splitlines():
            if line.startswith("# train: "):
                key, _, value = line[len("# train: "):].partition(" ")
                info[key] = value.strip()
        try:
            first = info.get("first_checkpoint")
            return cls(seed=int(info["seed"]), iterations=int(info["iterations"]), weights=parse_weights(text, path),
                       first_checkpoint=None if first is None else np.array([float(x) for x in first.split()]))
        except (KeyError, ValueError) as e:
            raise ValueError(f"{path}: not a cardsim training checkpoint ({e})") from None


def start_state(seed: int) -> TrainState:
    """Iteration 0: the heuristic's weights."""
    return TrainState(seed=seed, iterations=0, weights=HEURISTIC_WEIGHTS.copy())


def fitness(w: np.ndarray, current: np.ndarray, run_seed: int, deals: int, rules: TienLenRules) -> float:
    """Win rate of weights ``w`` in every seat against every field of :data:`FIELDS` on
    deals ``0 .. deals-1`` of ``run_seed`` (seat ``s`` uses the run seed plus ``s``)."""
    from cardsim.simcore.tienlen.play import play_chunk

    P = rules.players
    wins = 0
    for f_index, field_name in enumerate(FIELDS):
        for seat in range(P):
            policies = ["learned" if field_name == "self" else field_name] * P
            policies[seat] = "learned"
            weights = np.tile(current, (P, 1))
            weights[seat] = w
            seed = (run_seed + 1_000_003 * f_index + seat) % (1 << 64)
            cols = play_chunk(seed, 0, deals, rules, policies, weights=weights)
            wins += int((cols[f"place_{seat}"] == 1).sum())
    return wins / (len(FIELDS) * P * deals)


def iterate(state: TrainState, rules: TienLenRules) -> TrainState:
    """One iteration (see the module docstring)."""
    k = state.iterations
    noise_rng = np.random.default_rng([state.seed, k])
    run_seed = int(mix64(np.uint64((state.seed * (1 << 20) + k) % (1 << 64))))
    eps = noise_rng.standard_normal((PAIRS, N_FEATURES)) * NOISE
    w = state.weights
    diff = np.zeros(PAIRS)
    total = 0.0
    for i in range(PAIRS):
        plus = fitness(w + eps[i], w, run_seed, DEALS, rules)
        minus = fitness(w - eps[i], w, run_seed, DEALS, rules)
        diff[i] = plus - minus
        total += plus + minus
    sd = diff.std()
    new = w + STEP * (diff @ eps) / (PAIRS * sd) if sd > 0 else w.copy()
    return TrainState(seed=state.seed, iterations=k + 1, weights=new,
                      first_checkpoint=new.copy() if k == 0 else state.first_checkpoint,
                      fitness=[*state.fitness, total / (2 * PAIRS)])


def train(state: TrainState, games: int | None, minutes: float | None,
          on_iteration: Callable[[TrainState], None] | None = None, rules: TienLenRules | None = None) -> TrainState:
    """Iterate until ``games`` games in all (the checkpoint's included; whole iterations)
    or ``minutes`` of wall time; ``on_iteration`` gets each new state."""
    rules = rules or TienLenRules()
    if rules.players != PLAYERS:
        raise ValueError(f"training plays {PLAYERS}-player Tiến Lên")
    t0 = time.monotonic()
    while True:
        if games is not None and state.games + games_per_iteration() > games:
            return state
        if minutes is not None and time.monotonic() - t0 >= 60 * minutes:
            return state
        state = iterate(state, rules)
        if on_iteration is not None:
            on_iteration(state)


def write_model(path: Path, state: TrainState, command: str) -> None:
    """Write the model file atomically (a unique temporary file beside it, then rename)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(state.to_text(command))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def reproduce_command(seed: int, games: int, out: str = "model.txt") -> str:
    return f"cardsim train tienlen --seed {seed} --games {games} --out {out}"


def run_training(out: Path, seed: int, games: int | None, minutes: float | None, overwrite: bool,
                 on_iteration: Callable[[TrainState], None] | None = None) -> tuple[TrainState, int]:
    """``cardsim train tienlen``: train into the model file ``out``, resuming the
    checkpoint already there (same seed) unless ``overwrite``; the file is rewritten
    after every iteration. Returns the final state and the iteration it started from.
    Raises ConfigError with one line for bad input."""
    from cardsim.simcore.framework.config import ConfigError

    per = games_per_iteration()
    if games is not None and games < per:
        raise ConfigError(f"--games must be at least {per:,} (one training iteration), got {games:,}")
    if minutes is not None and not minutes > 0:
        raise ConfigError(f"--minutes must be positive, got {minutes}")
    if out.is_dir() or (out.exists() and not out.is_file()) or not out.parent.is_dir():
        raise ConfigError(f"--out {out}: not a usable file path")
    state = start_state(seed)
    if out.exists() and not overwrite:
        try:
            state = TrainState.from_text(out.read_text(), str(out))
        except (ValueError, UnicodeDecodeError):
            raise ConfigError(f"{out} exists and is not a training checkpoint; use --overwrite to replace it") from None
        if state.seed != seed:
            raise ConfigError(f"{out} was trained with seed {state.seed}; pass --seed {state.seed} to resume it "
                              "or --overwrite to start again")
    started = state.iterations

    def checkpoint(s: TrainState) -> None:
        write_model(out, s, reproduce_command(s.seed, s.games, out.name))
        if on_iteration is not None:
            on_iteration(s)

    state = train(state, games, minutes, checkpoint)
    return state, started


__all__ = ["FEATURES", "TrainState", "games_per_iteration", "iterate", "run_training", "start_state", "train",
           "write_model"]
