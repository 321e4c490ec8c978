"""Running a deal or play task from the command line: parse counts and seeds, resolve
rules and options, estimate, execute (local or Dask) through the run lifecycle, commit and
print the summary; also ``--precision`` runs.

Module-level lists hold the per-command state that ``cardsim.cli.main.main`` resets.
"""
from __future__ import annotations

import re
import secrets
import sys
from pathlib import Path
from typing import Any, List, Optional

from cardsim.cli.render import print_summary
from cardsim.simcore.framework import registry
from cardsim.simcore.framework.config import ConfigError, Interrupted


_COUNT_RE = re.compile(r"^\s*(\d[\d_]*(?:\.\d+)?(?:[eE]\+?\d+)?)\s*([kKmMgG]?)\s*$")


_SUFFIX = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9}


def parse_count(text: str, what: str) -> int:
    """Parse a positive count: ``1000000``, ``1_000_000``, ``1e6`` or ``1M``."""
    match = _COUNT_RE.match(str(text))
    if not match:
        raise ConfigError(f"{what} must be a positive integer (e.g. 1000000, 1e6, 1M), got {text!r}")
    number, suffix = match.groups()
    value = float(number.replace("_", "")) * _SUFFIX[suffix.lower()]
    if value == float("inf"):  # 1e400: beyond any float, let alone any run
        raise ConfigError(f"{what} is far too large, got {text!r}")
    if value != int(value) or value <= 0:
        raise ConfigError(f"{what} must be a positive integer, got {text!r}")
    return int(value)


#: A seed drawn for the current command (None: given by the user or none drawn).
_DRAWN_SEED: list = [None]


def say_drawn_seed() -> None:
    """One stderr line with a drawn seed, whatever --json/--quiet say: every run can be redone."""
    if _DRAWN_SEED[0] is not None:
        seed = _DRAWN_SEED[0]
        sys.stderr.write(f"cardsim: seed {seed} (drawn; pass --seed {seed} to reproduce)\n")
        _DRAWN_SEED[0] = None


def parse_seed(text: Optional[str]) -> int:
    """A seed in 0..2**64-1 (decimal or 0x hex); a fresh random one when omitted."""
    if text is None:  # drawn: said when the run ends (also with --json / --quiet) so it can be reproduced
        _DRAWN_SEED[0] = secrets.randbelow(2**63)
        return _DRAWN_SEED[0]
    try:
        seed = int(str(text).replace("_", ""), 0)
    except ValueError:
        raise ConfigError(f"--seed must be an integer in 0..2**64-1, got {text!r}") from None
    if not 0 <= seed < 2**64:
        raise ConfigError(f"--seed must be in 0..2**64-1, got {text}")
    return seed


def resolve_rules(game: str, rules_file: Optional[Path], sets: List[str]):
    """Rules from defaults, then ``--rules FILE.toml``, then ``--set key=value``."""
    from cardsim.api import resolve_rules as resolve

    return resolve(game, None, rules_file, sets)


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


#: ``--yes`` of the current command: run even what the estimate says cannot finish.
_YES = [False]


#: ``--metric PATH.py:NAME`` functions of the current command, appended to its summary.
_CUSTOM_METRICS: list[str] = []


def check_custom_metrics(refs: List[str]) -> list[str]:
    """Load every ``--metric`` function once before running (errors exit 2 up front)."""
    from cardsim.simcore.framework.custom import load_function

    for ref in refs:
        load_function(ref, "--metric")
    _CUSTOM_METRICS[:] = list(refs)
    return list(refs)


def report_result(result, as_json: bool, quiet: bool, temporary: bool) -> None:
    """Print a finished run's summary (and the closing line unless ``quiet``/``as_json``)."""
    print_summary(result.summary(), as_json)
    if as_json or quiet:
        say_drawn_seed()
    if not as_json and not quiet:
        meta = result.meta
        where = "" if temporary else f", written to {result.path}"
        sys.stderr.write(f"{meta['game']} {meta['task']}: n={meta['n']:,} seed={meta['seed']}{where}\n")


def _validated_setup(game: str, task: str, n: int, sets: List[str], rules_file: Optional[Path],
                     options: dict[str, Any], chunk_size: Optional[int], default_chunk: Optional[int] = None):
    """The task, resolved rules, normalised options and chunk size of a run, every one
    validated (ConfigError otherwise). ``default_chunk`` overrides the task's default."""
    from cardsim.simcore.run import lifecycle

    spec = registry.get_task(game, task)
    if rules_file is not None:
        lifecycle.check_input_file(rules_file, "rules file")
    rules = resolve_rules(game, rules_file, sets)
    options = task_options(spec, rules, options)
    spec.check_size(n, options)
    if chunk_size is not None and chunk_size <= 0:
        raise ConfigError(f"--chunk-size must be positive, got {chunk_size}")
    chunk_size = chunk_size or default_chunk or spec.default_chunk_size(options)
    spec.check_chunk_size(chunk_size, options)
    return spec, rules, options, chunk_size


def execute_run(game: str, task: str, n: int, seed: Optional[str], threads: Optional[int],
                sets: List[str], rules_file: Optional[Path], out: Optional[Path], overwrite: bool,
                chunk_size: Optional[int], quiet: bool, as_json: bool, options: dict[str, Any],
                backend: str = "local", scheduler: Optional[str] = None, workers: Optional[int] = None,
                resume: bool = False) -> None:
    """Validate everything, run all chunks, write the dataset atomically, print the summary."""
    from cardsim.api import run_task

    rules = resolve_rules(game, rules_file, sets)
    result = run_task(game, task, n, parse_seed(seed), rules, options, out=out, overwrite=overwrite,
                      threads=threads, chunk_size=chunk_size, progress=not quiet, metrics=_CUSTOM_METRICS,
                      backend=backend, scheduler=scheduler, workers=workers, resume=resume, yes=_YES[0],
                      read_tables=False)
    report_result(result, as_json, quiet, temporary=out is None)


def _required(value: Optional[str], flag: str) -> str:
    if value is None:
        raise ConfigError(f"{flag} is required (or --precision EPS to run until a target precision)")
    return value


def execute_precision_run(game: str, task: str, given_n: Optional[str], max_text: Optional[str], eps: float,
                          targets: List[str], seed: Optional[str], threads: Optional[int], sets: List[str],
                          rules_file: Optional[Path], out: Optional[Path], overwrite: bool,
                          chunk_size: Optional[int], quiet: bool, as_json: bool, options: dict[str, Any],
                          backend: str, resume: bool) -> None:
    """``--precision``: run chunks in index order until the targets are precise enough,
    then write exactly those chunks as the dataset (see :mod:`cardsim.simcore.run.precision`)."""
    from cardsim.api import _finished
    from cardsim.simcore.run import lifecycle
    from cardsim.simcore.run.precision import DEAL_CHUNK, describe, final_config, run_to_precision
    from cardsim.simcore.run.runner import RunConfig, set_threads

    if given_n is not None:
        raise ConfigError(f"give --precision with --max N (a cap), not {'--deals' if task == 'deal' else '--games'}")
    if backend != "local" or resume:
        raise ConfigError("--precision runs on the local backend and cannot be resumed: drop --backend/--resume")
    cap = parse_count(max_text, "--max") if max_text is not None else (10**9 if task == "deal" else 10**7)
    spec, rules, options, chunk_size = _validated_setup(game, task, cap, sets, rules_file, options, chunk_size,
                                                        DEAL_CHUNK if task == "deal" else None)
    config = RunConfig(game=game, task=task, rules=rules, n=cap, seed=parse_seed(seed), chunk_size=chunk_size,
                       options=options)
    set_threads(threads)
    if out is not None:
        from cardsim.simcore.run.output import check_output_path

        check_output_path(out, overwrite)
    show = not quiet and sys.stderr.isatty()

    def on_chunk(n: int, widths: dict[str, float]) -> None:
        if show:
            worst = max(widths.values())
            sys.stderr.write(f"\r  n={n:,}: widest 95% half-width {worst:.3g} (target {eps:g})   ")
            sys.stderr.flush()

    try:
        n, chunks, report = run_to_precision(config, eps, list(targets) or None, on_chunk)
    except KeyboardInterrupt:
        raise Interrupted("interrupted; nothing was written") from None
    if show:
        sys.stderr.write("\n")
    manifest = final_config(config, n).manifest()
    manifest["precision"] = report

    def write_all(run) -> None:
        for chunk_id, tables in enumerate(chunks):
            run.write_chunk(chunk_id, tables)

    if out is None:
        with lifecycle.temporary_folder() as folder:
            run = lifecycle.start_run(folder / "run", manifest, overwrite=False, resume=False)
            write_all(run)
            report_result(_finished(lifecycle.commit(run), None, _CUSTOM_METRICS, False), as_json, quiet, True)
    else:
        out = lifecycle.resolve_out(out)
        with lifecycle.OutputLock(out):
            lifecycle.clean_debris(out)
            run = lifecycle.start_run(out, manifest, overwrite, False)
            write_all(run)
            path = lifecycle.commit(run, overwrite=overwrite)
            report_result(_finished(path, path, _CUSTOM_METRICS, False), as_json, quiet, False)
    sys.stderr.write(describe(report) + "\n")


# ----------------------------------------------------------------------------- commands
