"""The Python API: run simulations from a notebook or a script, get pandas tables back.

This module holds the single runs (``deal``, ``play``, ``resume``, ``load``), their
result classes and the input checks the command line shares; the studies
(``experiment``, ``ladder``, ``balance``, ``tune``) are in :mod:`cardsim.study_api`
and importable from here too.

>>> import cardsim
>>> r = cardsim.deal("tienlen", deals=100_000, seed=1)          # doctest: +SKIP
>>> r.rates()                                                   # doctest: +SKIP
>>> p = cardsim.play("tusac", games=2000, seed=1, rules={"steals": "off"})  # doctest: +SKIP
>>> p.summary(); p.tables["games"]                              # doctest: +SKIP

The command line calls these same functions, so a call gives the same data as the
command with the same seed, rules and options, and raises :class:`cardsim.ConfigError`
with the same one-line message the command prints for bad input.
"""
from __future__ import annotations

import os
import re
import secrets
import sys
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from cardsim.simcore.framework import registry
from cardsim.simcore.framework.config import ConfigError, Interrupted, RunFailed, load_rules_file
from cardsim.simcore.framework.outside import OutsideSeatError

PathLike = str | os.PathLike


@dataclass
class Result:
    """A finished ``deal`` or ``play`` run.

    Attributes
    ----------
    tables : dict of str to pandas.DataFrame
        Every table of the run (deal runs ``counts`` and with ``per_deal`` ``per_deal``;
        play runs ``games`` and the game's own tables), read into memory.
    meta : dict
        The run's metadata (``run.json``): game, task, n, seed, rules, options, versions.
    path : pathlib.Path or None
        Where the dataset was written (``out``), None when it was kept in memory only.
    """

    tables: dict[str, Any]
    meta: dict[str, Any]
    path: Optional[Path] = None
    _summary: Any = field(default=None, repr=False)

    @property
    def seed(self) -> int:
        """The run seed (drawn at random when none was given)."""
        return int(self.meta["seed"])

    def summary(self):
        """The summary table the command prints: deal runs ``event, seat, count, n, rate,
        ci_low, ci_high`` (+ ``exact_low, exact_high, z`` where exact values exist, seat -1
        for the table); play runs ``metric, group, n, value, ci_low, ci_high``."""
        return self._summary.copy()

    def rates(self):
        """Deal runs: every event's rate per seat and for the table (seat -1) with its 95%
        Wilson interval, one row per (event, seat)."""
        if self.meta.get("task") != "deal":
            raise ConfigError("rates() is for deal runs; a play run has summary()")
        from cardsim.analysis.tables import rates

        return rates(self.tables["counts"])


@dataclass
class TableResult:
    """A finished experiment or ladder: its tables and metadata.

    Attributes
    ----------
    tables : dict of str to pandas.DataFrame
        Experiments: ``comparison`` (and ``sweep`` for a sweep); ladders: ``ratings`` and ``games``.
    meta : dict
        The experiment's or ladder's description (``experiment.json`` / ``ladder.json``).
    path : pathlib.Path or None
        Where it was written, None when kept in memory only.
    """

    tables: dict[str, Any]
    meta: dict[str, Any]
    path: Optional[Path] = None
    _main: str = field(default="comparison", repr=False)

    def summary(self):
        """The main table: an experiment's ``comparison``, a ladder's ``ratings``."""
        return self.tables[self._main].copy()


# ----------------------------------------------------------------------------- input checks
_COUNT_RE = re.compile(r"^\s*(\d[\d_]*(?:\.\d+)?(?:[eE]\+?\d+)?)\s*([kKmMgG]?)\s*$")


_SUFFIX = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9}


def parse_count(text: str, what: str) -> int:
    """Parse a positive count: ``1000000``, ``1_000_000``, ``1e6`` or ``1M``."""
    match = _COUNT_RE.match(str(text))
    if not match:
        raise ConfigError(f"{what} must be a positive integer (e.g. 1000000, 1e6, 1M), got {text!r}")
    number, suffix = match.groups()
    # exact (1e30 is 10**30, not the nearest float's 1000000000000000019884624838656)
    value = Decimal(number.replace("_", "")) * _SUFFIX[suffix.lower()]
    if value > Decimal(sys.float_info.max):  # 1e400: beyond any float, let alone any run
        raise ConfigError(f"{what} is far too large, got {text!r}")
    if value != value.to_integral_value() or value <= 0:
        raise ConfigError(f"{what} must be a positive integer, got {text!r}")
    return int(value)


BACKENDS = ("local", "dask")


def task_options(spec, rules, options: dict[str, Any]) -> dict[str, Any]:
    """Normalise and validate a task's options (e.g. per-seat policies)."""
    options = spec.parse_options(rules, options)
    spec.check_options(rules, options)
    return options


def check_backend(backend: str, scheduler: Optional[str], workers: Optional[int]) -> None:
    if backend not in BACKENDS:
        raise ConfigError(f"unknown backend '{backend}' (known: {', '.join(BACKENDS)})")
    if backend != "dask" and (scheduler or workers):
        raise ConfigError("--scheduler and --workers need --backend dask")
    if workers is not None and workers < 1:
        raise ConfigError(f"--workers must be at least 1, got {workers}")


def parse_seed(seed: Any, what: str = "--seed") -> int:
    """A run seed in 0..2**64-1 from an int or its text (decimal, ``1e3`` as counts take
    it, or 0x hex)."""
    if isinstance(seed, bool):
        raise ConfigError(f"{what} must be an integer in 0..2**64-1, got {seed!r}")
    try:
        value = seed if isinstance(seed, int) else int(str(seed).replace("_", ""), 0)
    except ValueError:
        value = _exponent_integer(seed)
        if value is None:
            raise ConfigError(f"{what} must be an integer in 0..2**64-1, got {seed!r}") from None
    if not 0 <= value < 2**64:
        raise ConfigError(f"{what} must be in 0..2**64-1, got {seed}")
    return value


_EXPONENT_RE = re.compile(r"^\s*(\d[\d_]*(?:\.\d+)?[eE]\+?\d{1,3})\s*$")


def _exponent_integer(text: Any) -> int | None:
    """``1e3`` or ``2.5e3`` as the exact integer it names (as :func:`parse_count` reads
    it); None for any other text or a value with a fraction."""
    match = _EXPONENT_RE.match(str(text))
    if not match:
        return None
    value = Decimal(match.group(1).replace("_", ""))
    return int(value) if value == value.to_integral_value() else None


def draw_seed() -> int:
    """A fresh random run seed (the run records it, so it can be redone)."""
    return secrets.randbelow(2**63)


def resolve_rules(game: str, rules: Optional[Mapping[str, Any]] = None, rules_file: Optional[PathLike] = None,
                  sets: Sequence[str] = ()):
    """A game's validated rules: defaults, then ``rules_file`` (TOML), then ``rules``
    (a dict like ``--set``: ``{"players": 3, "steals": "off"}``), then ``sets``
    (``"key=value"`` strings, as ``--set`` gives them)."""
    return registry.rules_class(game).from_settings(_rule_settings(game, rules, rules_file, sets))


def _rule_settings(game: str, rules: Optional[Mapping[str, Any]], rules_file: Optional[PathLike],
                   sets: Sequence[str]) -> dict[str, Any]:
    """The switch settings :func:`resolve_rules` validates, in the order they apply."""
    from cardsim.simcore.framework.config import parse_set_options

    registry.rules_class(game)  # an unknown game fails first
    settings: dict[str, Any] = {}
    if rules_file is not None:
        from cardsim.simcore.run import lifecycle

        lifecycle.check_input_file(rules_file, "rules file")  # capped: --rules /dev/zero
        settings.update(load_rules_file(Path(rules_file), game))
    if rules is not None:
        if not isinstance(rules, Mapping):
            raise ConfigError(f"rules must be a dict of switch names to values, got {type(rules).__name__}")
        # as --set gives them (text), so that values are checked and reported alike; booleans as TOML's
        settings.update({str(k): (v if isinstance(v, bool) else str(v)) for k, v in rules.items()})
    settings.update(parse_set_options(list(sets)))
    return settings


def _setup(game: str, task: str, n: int, rules, options: dict[str, Any], chunk_size: Optional[int],
           default_chunk: Optional[int] = None):
    """The task, normalised options and chunk size of a run, every one validated."""
    spec = registry.get_task(game, task)
    options = task_options(spec, rules, options)
    spec.check_size(n, options)
    if chunk_size is not None and (isinstance(chunk_size, bool) or not isinstance(chunk_size, int)):
        raise ConfigError(f"--chunk-size must be a positive integer, got {chunk_size!r}")
    if chunk_size is not None and chunk_size <= 0:
        raise ConfigError(f"--chunk-size must be positive, got {chunk_size}")
    chunk_size = chunk_size or default_chunk or progress_chunk_size(game, task, n, spec.default_chunk_size(options),
                                                                    options)
    spec.check_chunk_size(chunk_size, options)
    return spec, options, chunk_size


#: A long play run that fits in fewer chunks than this is split into about as many:
#: progress and an ETA from the start, and every thread busy (the data do not depend on it).
PROGRESS_CHUNKS = 32
#: Estimated seconds (one core) from which a play run is split for progress; shorter runs
#: keep one part, since each part costs a few milliseconds to write and check.
PROGRESS_SECONDS = 10.0


def progress_chunk_size(game: str, task: str, n: int, default: int, options: Mapping[str, Any]) -> int:
    """The chunk size of a run of ``n`` without ``--chunk-size``: the task's default, or
    for a play run estimated to take over :data:`PROGRESS_SECONDS` about ``n /
    PROGRESS_CHUNKS`` games (never below ``default / 1024``). Deal runs keep their
    default: their counts table has one row per chunk."""
    from cardsim.simcore.run.estimate import estimate

    if task != "play" or estimate(game, task, n, default, dict(options), 1)[0] < PROGRESS_SECONDS:
        return default
    return min(default, max(1, default // 1024, -(-n // PROGRESS_CHUNKS)))


def _count(value: Any, what: str) -> int:
    """A positive count from an int or its text (``"1e6"``, ``"1M"``), checked as the CLI checks it."""
    return parse_count(str(value), what)


# ----------------------------------------------------------------------------- deal and play
def deal(game: str, deals: int | str, seed: Optional[int] = None, rules: Optional[Mapping[str, Any]] = None,
         out: Optional[PathLike] = None, overwrite: bool = False, threads: Optional[int] = None,
         chunk_size: Optional[int] = None, per_deal: bool = False, events: Sequence[str] = (),
         progress: bool = True, rules_file: Optional[PathLike] = None, **options: Any) -> Result:
    """Deal ``deals`` random hands of ``game`` and count its deal events per seat and for the table.

    Parameters
    ----------
    game : str
        ``tienlen``, ``tusac``, ``loba`` or ``continental`` (``cardsim games``).
    deals : int or str
        Number of deals (``1_000_000``, ``"1e6"``, ``"1M"``).
    seed : int, optional
        Run seed in 0..2**64-1; drawn at random when omitted (``Result.seed``).
    rules : dict, optional
        Rule switches, as ``--set`` takes them (``cardsim rules GAME`` lists them).
    out : path, optional
        Write the Parquet dataset here (a new folder; ``overwrite`` replaces one).
    threads : int, optional
        Worker threads (default: all cores).
    per_deal : bool
        Also keep one row per deal with every hand (needs ``out``).
    events : list of str
        Your own events, ``"PATH.py:FUNCTION"`` (``FUNCTION(hand) -> bool``).
    progress : bool
        Show a progress bar in a terminal or notebook.
    **options
        The game's own deal options (``cardsim deal GAME --help``), by their Python names.

    Returns
    -------
    Result
        ``.rates()``, ``.summary()``, ``.tables["counts"]``.
    """
    if per_deal and out is None:
        raise ConfigError("--per-deal writes one row per deal to keep: it needs --out PATH")
    options = dict(options)
    if per_deal:
        options["per_deal"] = True
    if events:
        from cardsim.simcore.framework.custom import split_ref

        # absolute paths: a resumed run or a Dask worker must find the same file
        options["events"] = [f"{split_ref(e, '--event')[0].resolve()}:{split_ref(e, '--event')[1]}" for e in events]
    return run_task(game, "deal", _count(deals, "--deals"), seed, resolve_rules(game, rules, rules_file), options,
                    out=out, overwrite=overwrite, threads=threads, chunk_size=chunk_size, progress=progress)


def play(game: str, games: int | str, seed: Optional[int] = None, rules: Optional[Mapping[str, Any]] = None,
         policy: Optional[str | Sequence[str]] = None, out: Optional[PathLike] = None, overwrite: bool = False,
         threads: Optional[int] = None, chunk_size: Optional[int] = None, progress: bool = True,
         rules_file: Optional[PathLike] = None, metrics: Sequence[str] = (), **options: Any) -> Result:
    """Play ``games`` whole games of ``game`` with the chosen policies; one row per game.

    Parameters
    ----------
    game : str
        ``tienlen``, ``tusac``, ``loba`` or ``continental``.
    games : int or str
        Number of games (rummy: matches).
    seed : int, optional
        Run seed in 0..2**64-1; drawn at random when omitted.
    rules : dict, optional
        Rule switches, as ``--set`` takes them.
    policy : str or list of str, optional
        As ``--policy``: one for every seat (``"heuristic"``), one per seat
        (``"heuristic,random,random,random"`` or a list), or ``"0=search:256"`` pairs.
    out, overwrite, threads, chunk_size, progress, rules_file
        As for :func:`deal`.
    metrics : list of str
        Your own per-game metrics ``"PATH.py:FUNCTION"``, appended to ``summary()``.
    **options
        The game's own play options (``cardsim play GAME --help``), by their Python names.

    Returns
    -------
    Result
        ``.summary()`` (win rates, points, the game's answers, 95% intervals), ``.tables["games"]``.
    """
    options = dict(options)
    if policy is not None:
        options["policy"] = policy if isinstance(policy, str) else ",".join(map(str, policy))
    if metrics:
        from cardsim.simcore.framework.custom import load_function

        for ref in metrics:
            load_function(ref, "--metric")
    return run_task(game, "play", _count(games, "--games"), seed, resolve_rules(game, rules, rules_file), options,
                    out=out, overwrite=overwrite, threads=threads, chunk_size=chunk_size, progress=progress,
                    metrics=list(metrics))


def run_task(game: str, task: str, n: int, seed: Optional[int], rules, options: dict[str, Any], *,
             out: Optional[PathLike] = None, overwrite: bool = False, threads: Optional[int] = None,
             chunk_size: Optional[int] = None, progress: bool = True, metrics: Sequence[str] = (),
             backend: str = "local", scheduler: Optional[str] = None, workers: Optional[int] = None,
             resume: bool = False, yes: bool = False, read_tables: bool = True) -> Result:
    """Validate everything, run every chunk, write the dataset atomically, read it back.

    The one run path of :func:`deal`, :func:`play` and ``cardsim deal/play``; ``rules`` is
    a validated :class:`~cardsim.simcore.framework.config.Rules`. Raises :class:`ConfigError` for bad
    input before anything runs, :class:`Interrupted` on Ctrl-C (with ``out``, the saved
    chunks stay for ``cardsim resume``). ``read_tables=False`` leaves ``Result.tables``
    empty (the command line prints only the summary).
    """
    from cardsim.simcore.run import lifecycle
    from cardsim.simcore.run.estimate import check_feasible
    from cardsim.simcore.run.runner import RunConfig, set_threads

    seed = draw_seed() if seed is None else parse_seed(seed)
    spec, options, chunk_size = _setup(game, task, n, rules, options, chunk_size)
    check_backend(backend, scheduler, workers)
    check_feasible(game, task, n, chunk_size, options, set_threads(threads),
                   Path(out) if out is not None else None, yes)
    if progress and task == "play":
        _say_outside_speed(game, [(options.get("policies") or (), n)])
    config = RunConfig(game=game, task=task, rules=rules, n=n, seed=seed, chunk_size=chunk_size, options=options)
    manifest = config.manifest()
    if resume and out is None:
        raise ConfigError("--resume needs --out PATH")

    if out is None:  # still stream through a dataset: memory stays bounded while running
        with lifecycle.temporary_folder() as folder:
            run = lifecycle.start_run(folder / "run", manifest, overwrite=False, resume=False)
            try:
                _run_missing_chunks(run, backend, scheduler, workers, progress)
                return _finished(lifecycle.commit(run), None, metrics, read_tables)
            except KeyboardInterrupt:
                raise Interrupted("interrupted") from None
            except RunFailed as exc:  # nothing to resume: the temporary folder goes
                raise RunFailed(str(exc).split(" (")[0]) from None
    out = lifecycle.resolve_out(out)  # expanded once; absolute for remote workers
    with lifecycle.OutputLock(out):
        lifecycle.clean_debris(out)
        run = lifecycle.start_run(out, manifest, overwrite, resume)
        saved_before = lifecycle.saved_chunks(run)
        try:
            _run_missing_chunks(run, backend, scheduler, workers, progress)
        except OutsideSeatError:  # a player's bug, not an interruption: nothing of this run is kept
            if saved_before == 0:
                run.discard()
            raise
        except KeyboardInterrupt:
            saved = lifecycle.saved_chunks(run)
            raise Interrupted(f"interrupted; {saved} of {manifest['n_chunks']} chunks are saved: "
                              f"finish with 'cardsim resume {out}'") from None
        path = lifecycle.commit(run, overwrite=overwrite)
    return _finished(path, path, metrics, read_tables)


def _say_outside_speed(game: str, runs) -> None:
    """The note that outside seats play at Python speed (stderr), when a run has one."""
    import sys

    from cardsim.simcore.framework.outside import speed_note

    note = speed_note(game, runs)
    if note:
        sys.stderr.write(note + "\n")


def resume(path: PathLike, threads: Optional[int] = None, progress: bool = True, backend: str = "local",
           scheduler: Optional[str] = None, workers: Optional[int] = None) -> Result:
    """Finish an interrupted run at ``path``: run only its missing chunks (same data as an
    uninterrupted run)."""
    from cardsim.simcore.run import lifecycle
    from cardsim.simcore.run.runner import set_threads

    check_backend(backend, scheduler, workers)
    set_threads(threads)
    out = lifecycle.resolve_out(path)  # absolute: remote workers run in other folders
    with lifecycle.OutputLock(out):
        lifecycle.clean_debris(out)
        run = lifecycle.reopen_run(out)  # damaged parts (power loss, a killed writer) are deleted and redone
        try:
            _run_missing_chunks(run, backend, scheduler, workers, progress)
        except KeyboardInterrupt:
            raise Interrupted(f"interrupted; {lifecycle.saved_chunks(run)} of {run.manifest['n_chunks']} chunks "
                              f"are saved: resume again with 'cardsim resume {path}'") from None
        done = lifecycle.commit(run, overwrite=False)
    return _finished(done, done, [])


#: the folders that are not runs: description file, their tables, the main table
_TABLE_FOLDERS = (("experiment.json", ("comparison", "sweep", "interaction"), "comparison"),
                  ("ladder.json", ("ratings", "games"), "ratings"),
                  ("balance.json", ("card", "seats", "games"), "card"),
                  ("tune.json", ("candidates", "rounds"), "candidates"))


def load(path: PathLike) -> Result | TableResult:
    """Open a finished run (``Result``), experiment, ladder, balance or tune folder (``TableResult``)."""
    path = Path(path)
    for description, names, main in _TABLE_FOLDERS:
        if (path / description).is_file():
            import json

            import pandas as pd

            from cardsim.simcore.run.folders import check_folder

            check_folder(path, datasets=False)  # its own tables (arms are checked when read)

            tables = {name: pd.read_parquet(path / f"{name}.parquet") for name in names
                      if (path / f"{name}.parquet").is_file()}
            return TableResult(tables, json.loads((path / description).read_text()), path, main)
    return _finished(path, path, [])


def _finished(dataset_path: Path, kept: Optional[Path], metrics: Sequence[str], read_tables: bool = True) -> Result:
    """A committed dataset read into a :class:`Result` (before a temporary folder goes)."""
    from cardsim import analysis
    from cardsim.simcore.run.dataset import Dataset

    dataset = Dataset(dataset_path)
    tables = {name: dataset.read(name) for name in dataset.meta["tables"]} if read_tables else {}
    return Result(tables, dict(dataset.meta), kept, analysis.summary(dataset_path, metrics=list(metrics)))


def _run_missing_chunks(run, backend: str, scheduler: Optional[str], workers: Optional[int], progress: bool) -> None:
    """Execute the chunks of ``run`` that have no parts yet, on the chosen backend."""
    from cardsim.progress import RunProgress
    from cardsim.simcore.run import lifecycle

    bar = RunProgress(progress, f"{run.manifest['task']} {run.manifest['game']}", len(run.missing_chunks()))
    try:
        lifecycle.execute(run, backend, scheduler, workers, on_chunk=bar.update)
    finally:
        bar.close()


# ----------------------------------------------------------------------------- studies
#: The study functions live in :mod:`cardsim.study_api`; ``cardsim.api.ladder`` and
#: ``from cardsim.api import ladder`` still work (loaded on first use, no import cycle).
_STUDY_NAMES = ("experiment", "ladder", "balance", "tune", "_run_experiment")


def __getattr__(name: str):
    if name in _STUDY_NAMES:
        from cardsim import study_api

        return getattr(study_api, name)
    raise AttributeError(f"module 'cardsim.api' has no attribute {name!r}")
