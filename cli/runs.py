"""Running a deal or play task from the command line: parse counts and seeds, resolve
rules and options, estimate, execute (local or Dask) through the run lifecycle, commit and
print the summary; also ``--precision`` runs.

The per-command state (a drawn seed, ``--yes``, ``--metric`` functions) is one
:class:`CommandState`, :data:`STATE`, that ``cardsim.cli.main.main`` resets per command.
"""
from __future__ import annotations

import secrets
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, List, Optional

from cardsim.api import parse_count, task_options  # noqa: F401  (the commands import them from here)
from cardsim.cli.render import print_summary
from cardsim.simcore.framework.config import ConfigError, Interrupted


@dataclass
class CommandState:
    """What the current command's options leave for the code that runs it.

    Attributes
    ----------
    drawn_seed : int or None
        A seed drawn for the command (None: given by the user, or none drawn).
    yes : bool
        ``--yes``: run even what the estimate says cannot finish.
    custom_metrics : list of str
        ``--metric PATH.py:NAME`` functions, appended to the summary.
    """

    drawn_seed: Optional[int] = None
    yes: bool = False
    custom_metrics: list[str] = field(default_factory=list)

    def reset(self) -> None:
        """Forget the previous command's state (``main()`` may run many in one process)."""
        self.drawn_seed, self.yes, self.custom_metrics = None, False, []


#: The state of the command being run.
STATE = CommandState()


def say_drawn_seed() -> None:
    """One stderr line with a drawn seed, whatever --json/--quiet say: every run can be redone."""
    if STATE.drawn_seed is not None:
        seed = STATE.drawn_seed
        sys.stderr.write(f"cardsim: seed {seed} (drawn; pass --seed {seed} to reproduce)\n")
        STATE.drawn_seed = None


def parse_seed(text: Optional[str]) -> int:
    """A seed in 0..2**64-1 (decimal or 0x hex); a fresh random one when omitted."""
    if text is None:  # drawn: said when the run ends (also with --json / --quiet) so it can be reproduced
        STATE.drawn_seed = secrets.randbelow(2**63)
        return STATE.drawn_seed
    from cardsim.api import parse_seed as parse

    return parse(text)


def resolve_rules(game: str, rules_file: Optional[Path], sets: List[str]):
    """Rules from defaults, then ``--rules FILE.toml``, then ``--set key=value``."""
    from cardsim.api import resolve_rules as resolve

    return resolve(game, None, rules_file, sets)


def check_custom_metrics(refs: List[str]) -> list[str]:
    """Load every ``--metric`` function once before running (errors exit 2 up front)."""
    from cardsim.simcore.framework.custom import load_function

    for ref in refs:
        load_function(ref, "--metric")
    STATE.custom_metrics = list(refs)
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


def execute_run(game: str, task: str, n: int, seed: Optional[str], threads: Optional[int],
                sets: List[str], rules_file: Optional[Path], out: Optional[Path], overwrite: bool,
                chunk_size: Optional[int], quiet: bool, as_json: bool, options: dict[str, Any],
                backend: str = "local", scheduler: Optional[str] = None, workers: Optional[int] = None,
                resume: bool = False) -> None:
    """Validate everything, run all chunks, write the dataset atomically, print the summary."""
    from cardsim.api import run_task

    rules = resolve_rules(game, rules_file, sets)
    result = run_task(game, task, n, parse_seed(seed), rules, options, out=out, overwrite=overwrite,
                      threads=threads, chunk_size=chunk_size, progress=not quiet, metrics=STATE.custom_metrics,
                      backend=backend, scheduler=scheduler, workers=workers, resume=resume, yes=STATE.yes,
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
    from cardsim.api import _finished, _setup
    from cardsim.simcore.run import lifecycle
    from cardsim.simcore.run.precision import DEAL_CHUNK, describe, final_config, run_to_precision
    from cardsim.simcore.run.runner import RunConfig, set_threads

    if given_n is not None:
        raise ConfigError(f"give --precision with --max N (a cap), not {'--deals' if task == 'deal' else '--games'}")
    if backend != "local" or resume:
        raise ConfigError("--precision runs on the local backend and cannot be resumed: drop --backend/--resume")
    cap = parse_count(max_text, "--max") if max_text is not None else (10**9 if task == "deal" else 10**7)
    rules = resolve_rules(game, rules_file, sets)
    spec, options, chunk_size = _setup(game, task, cap, rules, options, chunk_size,
                                       DEAL_CHUNK if task == "deal" else None)
    config = RunConfig(game=game, task=task, rules=rules, n=cap, seed=parse_seed(seed), chunk_size=chunk_size,
                       options=options)
    set_threads(threads)
    if out is not None:
        from cardsim.simcore.run.outpath import check_output_path

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
            report_result(_finished(lifecycle.commit(run), None, STATE.custom_metrics, False), as_json, quiet, True)
    else:
        out = lifecycle.resolve_out(out)
        with lifecycle.OutputLock(out):
            lifecycle.clean_debris(out)
            run = lifecycle.start_run(out, manifest, overwrite, False)
            write_all(run)
            path = lifecycle.commit(run, overwrite=overwrite)
            report_result(_finished(path, path, STATE.custom_metrics, False), as_json, quiet, False)
    sys.stderr.write(describe(report) + "\n")


# ----------------------------------------------------------------------------- commands
