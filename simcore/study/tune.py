"""Inverse design: race rule variants on the same deals until the best is certain.

Every combination of the ``--switch`` values is a *candidate* rule set. Candidates are
raced in rounds: in round ``r`` every surviving candidate plays the next block of deals
(games ``D_r .. D_{r+1}-1`` of one seed, the same games for every candidate: common
random numbers), the blocks doubling (``batch``, ``batch``, ``2 batch``, ``4 batch``
...). After each round every objective and constraint is estimated on all the deals
played so far, with bootstrap draws over deals shared by all candidates (so candidate
differences are paired), and

* a candidate is **eliminated** when another candidate is better on every objective with
  a paired difference that excludes 0 (one objective: the current best beats it);
* a candidate is **infeasible** when a constraint's interval lies wholly on its wrong side;
* a candidate is **identical** when it played every deal so far (at least 1,000) exactly
  as an earlier candidate (wins, points, lengths: the switch changed no game).

Tests run at level ``alpha / (candidates - 1)`` per round (Bonferroni over the
candidates). The race stops when one candidate is left, when the budget cannot pay for
the next block. Figures are
those of the balance card (:mod:`cardsim.analysis.balance`) at the first strength, plus
any per-game play metric (``draw``, ``turns``, ``win_seat_0``).
"""
from __future__ import annotations

import dataclasses
import hashlib
import io
import itertools
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd

from cardsim.simcore.framework.config import ConfigError
from cardsim.simcore.framework.registry import get_spec
from cardsim.simcore.framework.spec import resolve_ref
from cardsim.simcore.run.layout import file_sha256
from cardsim.simcore.study.balance import (BalanceConfig, BalancePlay, chunk_frames, concat_outcomes,
                                           table_options)

#: Bootstrap resamples of every estimate in the race (shared by all candidates).
RESAMPLES = 200
#: Deals two candidates must have played identically before one leaves as ``identical``.
IDENTICAL_MIN_DEALS = 1000


@dataclass(frozen=True)
class Objective:
    """``metric`` (``seat_gap``, ``win_rate@dealer``, a play metric), minimised or maximised."""

    metric: str
    sense: str = "min"

    @classmethod
    def parse(cls, text: str) -> "Objective":
        name, colon, sense = text.strip().rpartition(":")
        if not colon:
            name, sense = text.strip(), "min"
        if not name:
            raise ConfigError(f"bad --objective {text!r}: expected METRIC[:min|max]")
        if sense not in ("min", "max"):  # the direction is wrong, not the metric: say so
            raise ConfigError(f"bad --objective {text!r}: the direction after ':' must be min or max, "
                              f"got {sense!r}")
        return cls(name, sense)

    @property
    def label(self) -> str:
        return f"{self.metric}:{self.sense}"


@dataclass(frozen=True)
class Constraint:
    """``metric < bound`` or ``metric > bound``: a candidate must satisfy it."""

    metric: str
    op: str
    bound: float

    @classmethod
    def parse(cls, text: str) -> "Constraint":
        for op in ("<", ">"):
            name, sep, value = text.partition(op)
            if sep:
                try:
                    return cls(name.strip(), op, float(value.strip().lstrip("=")))
                except ValueError:
                    break
        raise ConfigError(f"bad --constraint {text!r}: expected METRIC<NUMBER or METRIC>NUMBER")

    @property
    def label(self) -> str:
        return f"{self.metric}{self.op}{self.bound:g}"


@dataclass(frozen=True)
class TuneConfig:
    """A race: the game, the base rules settings, the switch grid, objectives, budget."""

    game: str
    base_settings: Mapping[str, Any]
    switches: tuple[tuple[str, tuple[str, ...]], ...]
    objectives: tuple[Objective, ...]
    constraints: tuple[Constraint, ...] = ()
    policies: tuple[str, ...] = ("heuristic",)
    field: str = "heuristic"
    budget: int = 100_000
    seed: int = 0
    batch: int = 200
    alpha: float = 0.05
    #: Folder keeping every played chunk's tables (Parquet): a rerun with the same race
    #: reads them instead of playing again (``--resume``); None keeps nothing.
    cache: Any = None

    def candidates(self) -> list[dict[str, str]]:
        names = [name for name, _ in self.switches]
        return [dict(zip(names, values)) for values in itertools.product(*(v for _, v in self.switches))]

    def candidate_rules(self, values: Mapping[str, str]):
        return get_spec(self.game).rules_cls.from_settings({**self.base_settings, **values})

    def balance_config(self, rules, n: int) -> BalanceConfig:
        return BalanceConfig(game=self.game, rules=rules, policies=self.policies, field=self.field, n=n,
                             seed=self.seed, chunk_size=self.batch)

    def manifest(self) -> dict[str, Any]:
        from cardsim.simcore import __version__

        return {"kind": "tune", "cardsim_version": __version__, "game": self.game,
                "base_rules": dict(self.base_settings), "switches": {k: list(v) for k, v in self.switches},
                "objectives": [o.label for o in self.objectives], "constraints": [c.label for c in self.constraints],
                "policies": list(self.policies), "field": self.field, "budget": self.budget, "seed": self.seed,
                "batch": self.batch, "alpha": self.alpha}


def block_ends(batch: int, deals_max: int) -> list[int]:
    """Deals played after each round: ``batch, 2 batch, 4 batch ...`` up to ``deals_max``."""
    ends, played, block = [], 0, batch
    while played < deals_max:
        played = min(played + block, deals_max)
        ends.append(played)
        block = played  # the next block doubles what has been played
    return ends


def tables_per_candidate(config: TuneConfig) -> int:
    return len(config.balance_config(config.candidate_rules(config.candidates()[0]), 2).tables())


def validate(config: TuneConfig) -> list[dict[str, str]]:
    """The candidates, every one validated; ConfigError for a bad grid, metric or budget."""
    if not config.switches:
        raise ConfigError("give at least one --switch NAME=V1,V2,...")
    if not config.objectives:
        raise ConfigError("give at least one --objective METRIC[:min|max]")
    for objective in config.objectives:
        if objective.sense not in ("min", "max"):
            raise ConfigError(f"bad --objective {objective.metric}:{objective.sense}: use :min or :max")
    candidates = config.candidates()
    if len(candidates) < 2:
        raise ConfigError("the switches give a single candidate: nothing to tune")
    rules_cls = get_spec(config.game).rules_cls
    for name, values in config.switches:
        if name not in rules_cls.SWITCHES:
            raise ConfigError(f"unknown switch '{name}' for {config.game} (see `cardsim rules {config.game}`)")
        if len(set(values)) != len(values) or not values:
            raise ConfigError(f"--switch {name}: give distinct values")
    for values in candidates:
        rules = config.candidate_rules(values)
        for _, _, seats in config.balance_config(rules, 2).tables():
            table_options(config.balance_config(rules, 2), seats)
    if config.batch < 2:
        raise ConfigError(f"--batch must be at least 2, got {config.batch}")
    need = len(candidates) * tables_per_candidate(config) * config.batch
    if config.budget < need:
        raise ConfigError(f"--budget {config.budget:,} cannot evaluate {len(candidates)} candidates: one round of "
                          f"--batch {config.batch} deals needs {need:,} games; raise --budget or lower --batch")
    return candidates


@dataclass
class CandidateState:
    """One candidate's played games (balance outcomes and play metrics per table)."""

    values: dict[str, str]
    rules: Any
    status: str = "racing"  # racing, eliminated, infeasible, identical (to a candidate still racing)
    round_out: int | None = None
    reason: str = ""
    deals: int = 0
    parts: dict[tuple[str, int], list] = field(default_factory=dict)
    metric_parts: list[pd.DataFrame] = field(default_factory=list)


def play_block(config: TuneConfig, state: CandidateState, start: int, stop: int, deals_max: int) -> int:
    """Play games ``start .. stop-1`` of every table of one candidate; the games played."""
    from cardsim.analysis.variance import table_control
    from cardsim.simcore.run.runner import RunConfig
    from cardsim.simcore.study.balance import with_controls

    spec = get_spec(config.game)
    task = spec.play
    outcomes_of = resolve_ref(spec.balance)
    metric = spec.metric_spec("play")
    bconfig = config.balance_config(state.rules, deals_max)
    played = 0
    for strength, rotation, seats in bconfig.tables():
        options = table_options(bconfig, seats)
        control = table_control(config.game, state.rules.to_dict(), bconfig.options, config.seed, deals_max, seats)
        run = RunConfig(game=config.game, task="play", rules=state.rules, n=deals_max, seed=config.seed,
                        chunk_size=config.batch, options=options)
        for chunk_id in range(start // config.batch, -(-stop // config.batch)):
            tables = _cached_chunk(config, state, f"{strength}@{rotation}", chunk_id,
                                   lambda: chunk_frames(task, run, chunk_id))
            outcomes = outcomes_of(tables, state.rules)
            if spec.balance_progress and rotation < 0:  # comebacks from move logs, replayed (the cache keeps tables)
                outcomes = dataclasses.replace(outcomes, comebacks=resolve_ref(spec.balance_progress)(
                    run, chunk_id, state.rules))
            outcomes = with_controls(outcomes, control, tables[metric.table])  # variance reduction (or None)
            state.parts.setdefault((strength, rotation), []).append(outcomes)
            if (strength, rotation) == (config.policies[0], -1):
                state.metric_parts.append(metric.function(tables[metric.table]).reset_index(drop=True))
            played += len(tables[metric.table])
    state.deals = stop
    return played


def _cached_chunk(config: TuneConfig, state: CandidateState, table: str, chunk_id: int,
                  play: Callable[[], dict[str, pd.DataFrame]]) -> dict[str, pd.DataFrame]:
    """One chunk's tables: read from ``config.cache`` when an earlier run of the same race
    saved them (the games depend only on the seed and game index), else played and saved
    (each file written whole, then renamed; ``N.done`` last, with every file's SHA-256).

    A saved chunk is used only when every file matches its recorded checksum: an edited,
    truncated or unreadable one (or a ``.done`` without checksums) is played again, as
    ``cardsim resume`` redoes a damaged part. A link at the candidate's folder is refused.
    """
    import json
    from pathlib import Path

    from cardsim.simcore.run.outpath import refuse_link

    if config.cache is None:
        return play()
    key = hashlib.sha256(f"{_name(state.values)}|{table}".encode()).hexdigest()[:16]
    folder = Path(config.cache) / key
    refuse_link(folder, "a folder of the saved race")
    done = folder / f"{chunk_id}.done"
    saved = _saved_chunk(folder, chunk_id, done)
    if saved is not None:
        return saved
    tables = play()
    folder.mkdir(parents=True, exist_ok=True)
    digests = {}
    for name, frame in tables.items():
        tmp = folder / f".{chunk_id}.{name}.parquet.tmp"
        tmp.unlink(missing_ok=True)  # a killed writer's (or a link): written afresh, never through it
        frame.to_parquet(tmp, index=False)
        digests[name] = file_sha256(tmp)
        tmp.replace(folder / f"{chunk_id}.{name}.parquet")
    tmp = folder / f".{chunk_id}.done.tmp"
    tmp.unlink(missing_ok=True)
    tmp.write_text(json.dumps({"sha256": digests}) + "\n")
    tmp.replace(done)  # last: a chunk counts as saved only when all its tables are
    return tables


def _saved_chunk(folder, chunk_id: int, done) -> dict[str, pd.DataFrame] | None:
    """The tables of a saved chunk, or None when it is missing or any file differs from
    the checksum its ``.done`` recorded (then the chunk is played again)."""
    import json

    import pyarrow as pa

    try:
        digests = json.loads(done.read_text())["sha256"]
        if not isinstance(digests, dict) or not digests:
            return None
        tables = {}
        for name, digest in digests.items():
            file = folder / f"{chunk_id}.{name}.parquet"
            data = file.read_bytes()
            if hashlib.sha256(data).hexdigest() != digest:
                return None
            tables[name] = pd.read_parquet(io.BytesIO(data))
        return tables
    except (OSError, ValueError, KeyError, TypeError, pa.ArrowException):  # missing, unreadable, an old format
        return None


def candidate_play(config: TuneConfig, state: CandidateState) -> tuple[BalancePlay, pd.DataFrame]:
    """The candidate's games so far as a balance card's play, and its per-game play metrics."""
    alone, rotations = {}, {}
    for (strength, rotation), parts in state.parts.items():
        record = concat_outcomes(parts)
        if rotation < 0:
            alone[strength] = record
        else:
            rotations.setdefault(strength, []).append(record)
    play = BalancePlay(config.balance_config(state.rules, state.deals), alone, rotations)
    return play, pd.concat(state.metric_parts, ignore_index=True)


def race(config: TuneConfig, estimate: Callable[[list, np.ndarray], dict[str, np.ndarray]],
         on_round: Callable[[int, int, int], None] | None = None) -> tuple[list[CandidateState], list[dict]]:
    """Run the race. ``estimate(states, weights) -> {metric label: float[candidates, R]}``
    gives every objective's and constraint's values per candidate and bootstrap row
    (:func:`cardsim.analysis.tune.estimates`). Returns the candidates' final states and
    the round log (one dict per round and candidate)."""
    from statistics import NormalDist

    candidates = validate(config)
    states = [CandidateState(values, config.candidate_rules(values)) for values in candidates]
    per_deal = tables_per_candidate(config)
    # what one candidate could play with the whole budget: the savings of early eliminations
    # buy the survivors more deals
    deals_max = config.budget // per_deal
    deals_max -= deals_max % config.batch
    ends = block_ends(config.batch, deals_max)
    spent = 0
    z = NormalDist().inv_cdf(1 - config.alpha / (2 * (len(states) - 1)))
    log: list[dict] = []
    start = 0
    for round_no, stop in enumerate(ends):
        alive = [s for s in states if s.status == "racing"]
        cost = len(alive) * per_deal * (stop - start)
        if round_no and spent + cost > config.budget:
            affordable = (config.budget - spent) // (len(alive) * per_deal)
            stop = start + affordable - affordable % config.batch
            if stop <= start:
                break
        for s in alive:
            spent += play_block(config, s, start, stop, deals_max)
        start = stop
        _mark_identical(alive, round_no, stop)
        alive = [s for s in alive if s.status == "racing"]
        from cardsim.analysis.balance import bootstrap_weights

        weights = bootstrap_weights(stop, config.seed + round_no, RESAMPLES)
        values = estimate(alive, weights)
        _decide(config, alive, values, z, round_no, stop, log)
        if on_round is not None:
            on_round(round_no + 1, spent, config.budget)
        if sum(s.status == "racing" for s in states) <= 1 or stop >= deals_max:
            break
    return states, log


def _same_games(a: CandidateState, b: CandidateState) -> bool:
    """Whether two candidates played every deal so far alike (wins, points, lengths)."""
    for key, parts in a.parts.items():
        x, y = concat_outcomes(parts), concat_outcomes(b.parts[key])
        if not (np.array_equal(x.win, y.win) and np.array_equal(x.points, y.points)
                and np.array_equal(x.length, y.length) and np.array_equal(x.no_winner, y.no_winner)):
            return False
    return True


def _mark_identical(alive: list[CandidateState], round_no: int, deals: int) -> None:
    """A variant whose games equal an earlier candidate's on at least
    :data:`IDENTICAL_MIN_DEALS` deals cannot be told apart from it: it leaves the race as
    ``identical`` (with 95% confidence the switch changes fewer than 3 / deals of the games)."""
    if deals < IDENTICAL_MIN_DEALS:
        return
    for i, s in enumerate(alive):
        twin = next((t for t in alive[:i] if t.status == "racing" and _same_games(s, t)), None)
        if twin is not None:
            s.status, s.round_out = "identical", round_no + 1
            s.reason = f"played all {deals:,} deals exactly as {_name(twin.values)}"


def _decide(config: TuneConfig, alive: list[CandidateState], values: dict[str, np.ndarray], z: float,
            round_no: int, deals: int, log: list[dict]) -> None:
    """Mark infeasible and eliminated candidates after a round (see the module docstring)."""
    def interval(x: np.ndarray) -> tuple[float, float]:
        se = float(np.std(x[1:], ddof=1)) if x.size > 2 else math.nan
        return float(x[0] - z * se), float(x[0] + z * se)

    for i, s in enumerate(alive):
        for c in config.constraints:
            low, high = interval(values[c.metric][i])
            if (c.op == "<" and low >= c.bound) or (c.op == ">" and high <= c.bound):
                s.status, s.round_out = "infeasible", round_no + 1
                s.reason = f"{c.label} fails: {c.metric} in [{low:.4g}, {high:.4g}] after {deals:,} deals"
    feasible = [i for i, s in enumerate(alive) if s.status == "racing"]
    signs = {o.label: (1.0 if o.sense == "min" else -1.0) for o in config.objectives}
    verdicts: dict[int, str] = {}
    for i in feasible:
        for j in feasible:
            if i == j:
                continue
            # j beats i on every objective, each paired difference excluding 0
            reasons = []
            for o in config.objectives:
                d = signs[o.label] * (values[o.metric][i] - values[o.metric][j])
                low, high = interval(d)
                if low <= 0:
                    break
                reasons.append(f"{o.metric} {'+' if o.sense == 'min' else '-'}{d[0]:.4g} [{low:.4g}, {high:.4g}]")
            else:
                verdicts.setdefault(i, f"beaten by {_name(alive[j].values)} after {deals:,} deals: "
                                       + "; ".join(reasons))
    for i, reason in verdicts.items():
        alive[i].status, alive[i].round_out, alive[i].reason = "eliminated", round_no + 1, reason
    for i, s in enumerate(alive):
        entry = {"round": round_no + 1, "deals": deals, "candidate": _name(s.values), "status": s.status}
        for o in config.objectives:
            entry[o.label] = float(values[o.metric][i][0])
        log.append(entry)


def _name(values: Mapping[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items())


__all__ = ["Objective", "Constraint", "TuneConfig", "CandidateState", "race", "validate", "block_ends",
           "candidate_play", "tables_per_candidate", "play_block"]
