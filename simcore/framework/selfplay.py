"""Self-play training of a game's learned policy: evolution strategies on duplicate deals.

A game's ``learned`` policy is a linear score ``w . features`` over the heuristic's
candidates, with weights ``w`` (float64[NF], the features named by
:attr:`SelfPlaySpec.features`). Training starts from the heuristic's own weights
(:attr:`SelfPlaySpec.heuristic_weights`) and improves them by antithetic evolution
strategies (Salimans et al. 2017), the fitness being the win rate that matters:

* iteration ``k`` draws ``pairs`` perturbations ``e`` (normal, per-feature scale
  :attr:`SelfPlaySpec.noise`) and plays ``w + e`` and ``w - e`` on the **same** deals
  (common random numbers: the deal's luck cancels out of ``fitness(w + e) - fitness(w - e)``);
* the fitness of a weight vector is its win rate in every seat against each field of
  :attr:`SelfPlaySpec.fields` (for Tiến Lên the heuristic, greedy and random players and
  **itself**: ``"self"``, the other seats play the current weights ``w``: self-play);
* ``w`` moves by ``step * sum(diff * e) / (pairs * sd(diff))``.

Everything in iteration ``k`` derives from ``(seed, k)``: the perturbations
(``numpy.random.default_rng([seed, k])``) and the deals (run seed
``mix64(seed * 2**20 + k)``; field ``f`` and seat ``s`` play run seed
``+ 1_000_003 * f + s``), and the game's :attr:`SelfPlaySpec.seat_wins` plays ordinary
games, identical whatever the threads. So a run is deterministic for its seed, and a run
resumed from a checkpoint (the weights and ``k``) gives the uninterrupted run's weights
bit for bit.

The model file is text: header lines as ``#`` comments (the title, the reproducing
command, the seed, iterations, games, the weights after the first iteration and the last
fitness), then one ``feature value`` line each with ``repr`` floats (reading it back
gives the same bits). It is both the model a ``learned`` seat plays and the checkpoint an
interrupted ``cardsim train GAME`` resumes.

A game gets ``cardsim train GAME`` with an adapter module (``GameSpec.trainer``) that
builds one :class:`SelfPlaySpec` and exposes ``games_per_iteration()``,
``run_training(out, seed, games, minutes, overwrite, on_iteration=None)`` and
``reproduce_command(seed, games, out)`` over the functions here (see
:mod:`cardsim.simcore.tienlen.train`).
"""
from __future__ import annotations

import dataclasses
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from cardsim.simcore.primitives.rng import mix64


@dataclass(frozen=True, eq=False)
class SelfPlaySpec:
    """What self-play training needs to know of a game.

    Attributes
    ----------
    game : str
        The game's name in ``cardsim train {game}`` (the reproducing command).
    title : str
        The model file's first header line.
    features : tuple of str, length NF
        Feature names, in weight order.
    heuristic_weights : float64[NF]
        Iteration 0's weights (the heuristic as a linear score).
    noise : float64[NF]
        Per-feature perturbation scale.
    fields : tuple of str
        The policies of the other seats, one field each; ``"self"``: the current weights.
    pairs : int
        Antithetic pairs per iteration.
    deals : int
        Deals per seat and field for each perturbed weight vector.
    step : float
        Step size (in units of the noise scale, normalised by the spread of the differences).
    players : int
        Seats at the table (the rules trained on must have this many players).
    make_rules : callable () -> rules
        The rules trained on by default.
    seat_wins : callable (run_seed, deals, rules, policies, weights, seat) -> int
        How many of deals ``0 .. deals-1`` of ``run_seed`` ``seat`` won, ``policies``
        being a list of ``players`` policy names (``"learned"`` seats play their row of
        ``weights``, float64[players, NF]).
    display : str
        The game's name in messages (default: ``game``).
    against : str
        ``cardsim train GAME --against POLICY`` (the exploiter): the one field, every other
        seat playing POLICY (:func:`against_field`); empty for the game's own fields.
    field_weights : float64[NF], optional
        The weights of a ``"learned"`` field (the exploiter against a learned player); the
        ``"self"`` field always plays the current weights.
    start : str
        Iteration 0's weights: ``"heuristic"`` (:attr:`heuristic_weights`) or ``"field"``
        (:attr:`field_weights`: the exploiter fine-tunes the learned player it exploits).
    """

    game: str
    title: str
    features: tuple[str, ...]
    heuristic_weights: np.ndarray
    noise: np.ndarray
    fields: tuple[str, ...]
    pairs: int
    deals: int
    step: float
    players: int
    make_rules: Callable[[], Any]
    seat_wins: Callable[[int, int, Any, list, np.ndarray, int], int]
    display: str = ""
    against: str = ""
    field_weights: np.ndarray | None = None
    start: str = "heuristic"

    def __post_init__(self) -> None:
        nf = len(self.features)
        problems = []
        if len(set(self.features)) != nf:
            problems.append("features repeat")
        for name in ("heuristic_weights", "noise"):
            value = getattr(self, name)
            if not (isinstance(value, np.ndarray) and value.dtype == np.float64 and value.shape == (nf,)):
                problems.append(f"{name} is not float64[{nf}]")
        if not self.fields:
            problems.append("no fields")
        if self.start not in START_CHOICES or (self.start == "field" and self.field_weights is None):
            problems.append(f"start {self.start!r} is not one of {START_CHOICES} (field: with field weights)")
        if min(self.pairs, self.deals, self.players) < 1:
            problems.append("pairs, deals and players must be positive")
        if problems:
            raise TypeError(f"SelfPlaySpec {self.game!r}: " + "; ".join(problems))

    @property
    def name(self) -> str:
        """The game's name in messages."""
        return self.display or self.game


#: Iteration 0's weights (``cardsim train --start``): the heuristic's, or the learned field's.
START_CHOICES = ("heuristic", "field")


# -- model files -------------------------------------------------------------------------


#: Largest weight a model file may hold (the shipped models stay within 1,000): a score
#: must stay finite whatever the features, or a game could never pick a move.
MAX_WEIGHT = 1e6


def parse_weights(features: tuple[str, ...], text: str, path: str = "model") -> np.ndarray:
    """Weights from the text of a model file (``name value`` lines; ``#`` comments).

    Parameters
    ----------
    features : tuple of str, length NF
        The feature names, in weight order.
    text : str
        The model file's text.
    path : str
        The file's name in messages.

    Returns
    -------
    float64[NF]

    Raises
    ------
    ValueError
        Naming ``path`` (and the line) for a missing, unknown or repeated feature or a bad
        number (not finite, or larger than :data:`MAX_WEIGHT` in size).
    """
    values: dict[str, float] = {}
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        try:
            if len(parts) != 2 or parts[0] not in features or parts[0] in values:
                raise ValueError
            values[parts[0]] = float(parts[1])
        except ValueError:
            raise ValueError(f"{path}:{n}: expected 'FEATURE VALUE' with a known, new feature, got {line!r}") from None
        if not abs(values[parts[0]]) <= MAX_WEIGHT:  # nan too: scores of inf or nan never pick a move
            raise ValueError(f"{path}:{n}: the weight of {parts[0]} is {parts[1]}: weights must be finite numbers "
                             f"of at most {MAX_WEIGHT:,.0f} in size")
    missing = [f for f in features if f not in values]
    if missing:
        raise ValueError(f"{path}: no weight for {', '.join(missing)}")
    return np.array([values[f] for f in features], np.float64)


def read_weights(features: tuple[str, ...], path: Path | str) -> np.ndarray:
    """:func:`parse_weights` of the model file ``path``: float64[NF]."""
    return parse_weights(features, Path(path).read_text(), str(path))


def format_weights(features: tuple[str, ...], w: np.ndarray, header: list[str]) -> str:
    """A model file's text.

    Parameters
    ----------
    features : tuple of str, length NF
    w : float64[NF]
    header : list of str
        Lines written as ``# `` comments first.

    Returns
    -------
    str
        The header, then one ``feature value`` line each (``repr`` floats: reading the
        file back gives the same bits).
    """
    lines = [f"# {h}" for h in header]
    lines += [f"{name} {float(v)!r}" for name, v in zip(features, w)]
    return "\n".join(lines) + "\n"


# -- training ----------------------------------------------------------------------------


def games_per_iteration(spec: SelfPlaySpec) -> int:
    """Games one iteration plays: both signs of every pair, every field and seat."""
    return 2 * spec.pairs * len(spec.fields) * spec.players * spec.deals


@dataclass
class TrainState:
    """A training run's checkpoint: the weights after ``iterations`` iterations of ``seed``.

    Attributes
    ----------
    seed : int
    iterations : int
    weights : float64[NF]
    first_checkpoint : float64[NF] or None
        The weights after iteration 1 (kept in the model file: a test can reproduce them).
    fitness : list of float
        Each iteration's mean fitness of its perturbed weights (this process's iterations;
        the model file keeps the last).
    spec : SelfPlaySpec
        The game's training spec (a game's adapter may subclass with a default).
    """

    seed: int
    iterations: int
    weights: np.ndarray
    first_checkpoint: np.ndarray | None = None
    fitness: list[float] = field(default_factory=list)
    spec: SelfPlaySpec | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.spec, SelfPlaySpec):
            raise TypeError("TrainState needs its SelfPlaySpec (spec=...)")

    @property
    def games(self) -> int:
        """Training games so far: ``iterations * games_per_iteration(spec)``."""
        return self.iterations * games_per_iteration(self.spec)

    def to_text(self, command: str) -> str:
        """The model file's text (see :func:`state_text`)."""
        return state_text(self.spec, self, command)

    @classmethod
    def from_text(cls, spec: SelfPlaySpec, text: str, path: str = "model") -> "TrainState":
        """The checkpoint in a model file's text (see :func:`state_from_text`)."""
        return state_from_text(spec, text, path, cls)


def state_text(spec: SelfPlaySpec, state: TrainState, command: str) -> str:
    """The model file of ``state``: the header (title, ``reproduce: command``, seed,
    iterations, games, first checkpoint, last fitness) and the weights."""
    header = [
        spec.title,
        f"reproduce: {command}",
        f"train: seed {state.seed}",
        f"train: iterations {state.iterations}",
        f"train: games {state.iterations * games_per_iteration(spec)}",
    ]
    if spec.against:
        header.append(f"train: against {spec.against}")
    if spec.start != "heuristic":
        header.append(f"train: start {spec.start}")
    if state.first_checkpoint is not None:
        header.append("train: first_checkpoint " + " ".join(repr(float(x)) for x in state.first_checkpoint))
    if state.fitness:
        header.append("train: fitness_last " + repr(float(state.fitness[-1])))
    return format_weights(spec.features, state.weights, header)


def state_from_text(spec: SelfPlaySpec, text: str, path: str = "model", cls: type = TrainState) -> TrainState:
    """The checkpoint in a model file's text, as a ``cls`` (:class:`TrainState` or a
    subclass). Raises ValueError naming ``path`` for a file that is not a checkpoint."""
    info: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("# train: "):
            key, _, value = line[len("# train: "):].partition(" ")
            info[key] = value.strip()
    try:
        first = info.get("first_checkpoint")
        return cls(seed=int(info["seed"]), iterations=int(info["iterations"]),
                   weights=parse_weights(spec.features, text, path),
                   first_checkpoint=None if first is None else np.array([float(x) for x in first.split()]),
                   spec=spec)
    except (KeyError, ValueError) as e:
        raise ValueError(f"{path}: not a cardsim training checkpoint ({e})") from None


def start_state(spec: SelfPlaySpec, seed: int) -> TrainState:
    """Iteration 0: the heuristic's weights, or the learned field's (``spec.start == "field"``)."""
    weights = spec.field_weights if spec.start == "field" else spec.heuristic_weights
    return TrainState(seed=seed, iterations=0, weights=weights.copy(), spec=spec)


def fitness(spec: SelfPlaySpec, w: np.ndarray, current: np.ndarray, run_seed: int, rules: Any) -> float:
    """Win rate of weights ``w`` in every seat against every field.

    Parameters
    ----------
    spec : SelfPlaySpec
    w : float64[NF]
        The weights tried (one seat).
    current : float64[NF]
        The current weights (the other seats' in the ``"self"`` field).
    run_seed : int
        Field ``f``, seat ``s`` plays deals ``0 .. spec.deals-1`` of run seed
        ``run_seed + 1_000_003 * f + s`` (mod 2**64).
    rules
        The game's rules (``spec.players`` players).

    Returns
    -------
    float
        Wins over ``len(spec.fields) * spec.players * spec.deals`` games.
    """
    P = spec.players
    wins = 0
    for f_index, field_name in enumerate(spec.fields):
        for seat in range(P):
            policies = ["learned" if field_name == "self" else field_name] * P
            policies[seat] = "learned"
            fixed = field_name == "learned" and spec.field_weights is not None
            weights = np.tile(spec.field_weights if fixed else current, (P, 1))
            weights[seat] = w
            seed = (run_seed + 1_000_003 * f_index + seat) % (1 << 64)
            wins += int(spec.seat_wins(seed, spec.deals, rules, policies, weights, seat))
    return wins / (len(spec.fields) * P * spec.deals)


def iterate(spec: SelfPlaySpec, state: TrainState, rules: Any) -> TrainState:
    """One iteration (see the module docstring): the state after ``state.iterations + 1``
    (the same class as ``state``)."""
    k = state.iterations
    noise_rng = np.random.default_rng([state.seed, k])
    run_seed = int(mix64(np.uint64((state.seed * (1 << 20) + k) % (1 << 64))))
    eps = noise_rng.standard_normal((spec.pairs, len(spec.features))) * spec.noise
    w = state.weights
    diff = np.zeros(spec.pairs)
    total = 0.0
    for i in range(spec.pairs):
        plus = fitness(spec, w + eps[i], w, run_seed, rules)
        minus = fitness(spec, w - eps[i], w, run_seed, rules)
        diff[i] = plus - minus
        total += plus + minus
    sd = diff.std()
    new = w + spec.step * (diff @ eps) / (spec.pairs * sd) if sd > 0 else w.copy()
    return dataclasses.replace(state, iterations=k + 1, weights=new,
                               first_checkpoint=new.copy() if k == 0 else state.first_checkpoint,
                               fitness=[*state.fitness, total / (2 * spec.pairs)], spec=spec)


def train(spec: SelfPlaySpec, state: TrainState, games: int | None, minutes: float | None,
          on_iteration: Callable[[TrainState], None] | None = None, rules: Any = None) -> TrainState:
    """Iterate until ``games`` games in all (the checkpoint's included; whole iterations)
    or ``minutes`` of wall time; ``on_iteration`` gets each new state. ``rules``: default
    ``spec.make_rules()``; ValueError unless it has ``spec.players`` players."""
    rules = spec.make_rules() if rules is None else rules
    if getattr(rules, "players", spec.players) != spec.players:
        raise ValueError(f"training plays {spec.players}-player {spec.name}")
    per = games_per_iteration(spec)
    t0 = time.monotonic()
    while True:
        if games is not None and state.iterations * per + per > games:
            return state
        if minutes is not None and time.monotonic() - t0 >= 60 * minutes:
            return state
        state = iterate(spec, state, rules)
        if on_iteration is not None:
            on_iteration(state)


def write_model(spec: SelfPlaySpec, path: Path, state: TrainState, command: str) -> None:
    """Write ``state``'s model file to ``path`` atomically (a unique temporary file beside
    it, then rename)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # as any file the user writes (mkstemp makes it owner-only)
        with os.fdopen(fd, "w") as fh:
            fh.write(state_text(spec, state, command))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    """The process's umask (read by setting it and restoring it at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def remove_stale_temporaries(path: Path) -> list[Path]:
    """Remove the temporary model files (``.NAME.XXXXXXXX.tmp``, :func:`write_model`) that a
    training run killed while saving left beside ``path``; call while holding its lock."""
    import glob
    import re

    pattern = re.compile(re.escape(f".{path.name}.") + r"[A-Za-z0-9_]{8}\.tmp")  # mkstemp's 8 characters
    removed = []
    for entry in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
        if pattern.fullmatch(entry.name) and (entry.is_file() or entry.is_symlink()):
            entry.unlink(missing_ok=True)
            removed.append(entry)
    return removed


def against_field(spec: SelfPlaySpec, policy: str, weights_file: Path | str | None = None,
                  start: str = "heuristic") -> SelfPlaySpec:
    """The exploiter's training: the learned seat against one field, every other seat
    ``policy`` (how much a player trained only to beat ``policy`` gains over it measures
    how exploitable ``policy`` is). A learned ``policy`` (``learned``, ``learned:FILE``)
    plays the weights of ``weights_file``. ``start``: iteration 0's weights, the heuristic's
    or (``"field"``, a learned ``policy`` only) the exploited player's own, so that the
    exploiter starts level with it and training only has to find its weaknesses."""
    import dataclasses

    if start not in START_CHOICES:
        raise ValueError(f"--start must be one of {', '.join(START_CHOICES)}, got {start!r}")
    if policy == "learned" or policy.startswith("learned:"):
        if weights_file is None:
            raise ValueError("a learned field needs its weights file")
        return dataclasses.replace(spec, fields=("learned",), against=policy,
                                   field_weights=read_weights(spec.features, weights_file), start=start)
    if start == "field":
        raise ValueError("--start field needs a learned field (--against learned or learned:FILE)")
    return dataclasses.replace(spec, fields=(policy,), against=policy)


def reproduce_command(spec: SelfPlaySpec, seed: int, games: int, out: str = "model.txt") -> str:
    """The command that trains the model file ``out`` again."""
    against = f" --against {spec.against}" if spec.against else ""
    start = f" --start {spec.start}" if spec.start != "heuristic" else ""
    return f"cardsim train {spec.game} --seed {seed} --games {games}{against}{start} --out {out}"


def run_training(spec: SelfPlaySpec, out: Path, seed: int, games: int | None, minutes: float | None,
                 overwrite: bool, on_iteration: Callable[[TrainState], None] | None = None
                 ) -> tuple[TrainState, int]:
    """``cardsim train GAME``: train into the model file ``out``, resuming the checkpoint
    already there (same seed) unless ``overwrite``; the file is rewritten after every
    iteration. Returns the final state and the iteration it started from. Raises
    ConfigError with one line for bad input."""
    from cardsim.simcore.framework.config import ConfigError

    out = Path(out)
    per = games_per_iteration(spec)
    if games is not None and games < per:
        raise ConfigError(f"--games must be at least {per:,} (one training iteration), got {games:,}")
    if minutes is not None and not minutes > 0:
        raise ConfigError(f"--minutes must be positive, got {minutes}")
    if out.is_dir() or (out.exists() and not out.is_file()) or not out.parent.is_dir():
        raise ConfigError(f"--out {out}: not a usable file path")
    from cardsim.simcore.run.lifecycle import OutputLock

    with OutputLock(out):  # one training run per model file: it may remove the temporaries of a killed one
        remove_stale_temporaries(out)
        return _train_into(spec, out, seed, games, minutes, overwrite, on_iteration)


def _train_into(spec: SelfPlaySpec, out: Path, seed: int, games: int | None, minutes: float | None,
                overwrite: bool, on_iteration: Callable[[TrainState], None] | None) -> tuple[TrainState, int]:
    """:func:`run_training` once ``out`` is checked and locked."""
    from cardsim.simcore.framework.config import ConfigError

    per = games_per_iteration(spec)
    state = start_state(spec, seed)
    if out.exists() and not overwrite:
        try:
            state = state_from_text(spec, out.read_text(), str(out), type(state))
        except (ValueError, UnicodeDecodeError):
            raise ConfigError(f"{out} exists and is not a training checkpoint; use --overwrite to replace it") from None
        if state.seed != seed:
            raise ConfigError(f"{out} was trained with seed {state.seed}; pass --seed {state.seed} to resume it "
                              "or --overwrite to start again")
        against = next((line[len("# train: against "):].strip() for line in out.read_text().splitlines()
                        if line.startswith("# train: against ")), "")
        if against != spec.against:
            was = f"against {against}" if against else "against the game's own fields"
            now = f"--against {spec.against}" if spec.against else "without --against"
            raise ConfigError(f"{out} was trained {was}; resuming it {now} would mix two trainings: use "
                              "--overwrite to start again or another --out")
        start = next((line[len("# train: start "):].strip() for line in out.read_text().splitlines()
                      if line.startswith("# train: start ")), "heuristic")
        if start != spec.start:
            raise ConfigError(f"{out} was trained from --start {start}; resuming it with --start {spec.start} would "
                              "mix two trainings: use --overwrite to start again or another --out")
    started = state.iterations

    def checkpoint(s: TrainState) -> None:
        write_model(spec, out, s, reproduce_command(spec, s.seed, s.iterations * per, out.name))
        if on_iteration is not None:
            on_iteration(s)

    state = train(spec, state, games, minutes, checkpoint)
    return state, started


__all__ = ["SelfPlaySpec", "TrainState", "against_field", "fitness", "format_weights", "games_per_iteration", "iterate",
           "parse_weights", "read_weights", "reproduce_command", "run_training", "start_state", "state_from_text",
           "state_text", "train", "write_model"]
