"""The commands about datasets and the cache: ``resume``, ``verify``, ``compile``."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import List, Optional

import typer


from cardsim.cli.runs import report_result
from cardsim.simcore.framework import registry
from cardsim.simcore.framework.config import ConfigError, RunFailed

from cardsim.cli.app import app
from cardsim.cli.params import (ThreadsOpt, WorkersOpt, SchedulerOpt, QuietOpt, JsonOpt, BackendOpt)


@app.command("resume")
def resume_command(
    path: Path = typer.Argument(..., help="the --out PATH of an interrupted run"),
    threads: ThreadsOpt = None,
    backend: BackendOpt = "local",
    scheduler: SchedulerOpt = None,
    workers: WorkersOpt = None,
    quiet: QuietOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Finish an interrupted run: run only its missing chunks (same result as an uninterrupted run)."""
    from cardsim import api

    report_result(api.resume(path, threads=threads, progress=not quiet, backend=backend, scheduler=scheduler,
                             workers=workers), as_json, quiet, temporary=False)


@app.command("verify")
def verify_command(path: Path = typer.Argument(..., help="dataset directory")) -> None:
    """Check a dataset (manifest vs parts, row counts, checksums, metadata) or a study
    folder (an experiment, ladder, balance card or tune race: its tables' checksums and
    every arm dataset in it). Exit 1 on any problem."""
    from cardsim.simcore.run.folders import is_study_folder, verify_folder
    from cardsim.simcore.run.output import Dataset, verify

    if is_study_folder(path):
        problems = verify_folder(path)
        for problem in problems:
            sys.stdout.write(f"PROBLEM {problem}\n")
        if problems:
            raise RunFailed(f"{path}: {len(problems)} problem(s) found")
        record = json.loads((path / "checksums.json").read_text())
        sys.stdout.write(f"OK {path}: {len(record['files'])} files and {len(record['datasets'])} datasets, "
                         f"checksums match\n")
        return
    problems = verify(path)
    if problems:
        for problem in problems:
            sys.stdout.write(f"PROBLEM {problem}\n")
        raise RunFailed(f"{path}: {len(problems)} problem(s) found")
    meta = Dataset(path).meta
    rows = sum(p["rows"] for p in meta["parts"])
    sys.stdout.write(f"OK {path}: {meta['game']} {meta['task']}, n={meta['n']:,}, "
                     f"{len(meta['parts'])} parts, {rows:,} rows, checksums match\n")


COMPILE_TASKS = ("deal", "play", "search", "replay")


@app.command("compile")
def compile_command(
    games: Optional[List[str]] = typer.Argument(None, help="games to compile (default: all)"),
    tasks: str = typer.Option(",".join(COMPILE_TASKS), "--tasks",
                              help="comma-separated, of: deal, play, search (play with a search seat), replay"),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="processes at once (default: all cores)"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="print nothing"),
) -> None:
    """Fill Numba's cache with every command's kernels now, in parallel processes.
    Optional: without it each command compiles what it needs on its first run (seconds
    to half a minute) and later runs load it from the cache. Use it once after installing
    or upgrading cardsim, Numba or NumPy, or after editing a kernel, before timing runs or
    starting batch jobs. Each (game, task) is one small run in its own process; what is
    already in the cache loads instead of compiling. Also builds the games' lookup tables
    (Tứ Sắc's meld tables) into cardsim's cache folder."""
    from cardsim.cli.warm import warm_commands

    names = list(games or registry.game_names())
    for name in names:  # an unknown game: exit 2 before compiling anything
        registry.get_spec(name)
    chosen = [t.strip() for t in tasks.split(",") if t.strip()]
    unknown = [t for t in chosen if t not in COMPILE_TASKS]
    if unknown or not chosen:
        raise ConfigError(f"--tasks takes {', '.join(COMPILE_TASKS)} (comma-separated), got {tasks!r}")
    if jobs is not None and jobs < 1:
        raise ConfigError(f"--jobs must be at least 1, got {jobs}")
    warm_commands(names, chosen, jobs or os.cpu_count() or 1, quiet)
