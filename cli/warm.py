"""``cardsim compile``: fill Numba's ordinary on-disk cache for every command, ahead of time.

Each (game, task) is one small run of the real command in its own process, so the cache
gets exactly the kernels (and argument types) that command compiles; several run at once.
Numba writes each cache entry atomically, so processes that compile a shared kernel at
the same time leave one valid entry.
"""
from __future__ import annotations

import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

from cardsim.simcore.framework import registry
from cardsim.simcore.framework.config import RunFailed

#: the small runs that compile each task's kernels, longest first (they start first)
_WARM_ARGS = {
    "search": ["play {game} --games 1 --seed 0 --quiet --policy 0=search:4"],
    "play": ["play {game} --games 2 --seed 0 --quiet", "play {game} --games 2 --seed 0 --quiet --policy random"],
    "replay": ["replay {game} --seed 0 --index 0"],
    "deal": ["deal {game} --deals 1000 --seed 0 --quiet"],
}


def warm_commands(games: list[str], tasks: list[str], jobs: int, quiet: bool) -> None:
    """Run each (game, task)'s small runs in up to ``jobs`` processes at once.

    Parameters
    ----------
    games : list of str
        Registered game names.
    tasks : list of str
        Keys of ``_WARM_ARGS`` (``deal``, ``play``, ``search``, ``replay``).
    jobs : int
        Processes at once (>= 1).
    quiet : bool
        Print nothing.

    Raises
    ------
    RunFailed
        One of the runs failed (its last stderr line is quoted).
    """
    from cardsim.simcore.framework.spec import resolve_ref

    start = time.perf_counter()
    for game in games:  # the lookup tables a game builds in plain Python, once, before the processes
        spec = registry.get_spec(game)
        if spec.tables:
            resolve_ref(spec.tables)(spec.rules_cls())
    runs = [(game, task, line.format(game=game).split())
            for task in sorted(tasks, key=list(_WARM_ARGS).index) for game in games for line in _WARM_ARGS[task]]
    progress = None
    if not quiet and sys.stderr.isatty():
        from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        from cardsim.cli.render import stderr_console

        progress = Progress(SpinnerColumn(), TextColumn("compiling the kernels of"), TextColumn("{task.description}"),
                            BarColumn(), TextColumn("{task.completed}/{task.total} runs"), TimeElapsedColumn(),
                            console=stderr_console(), transient=True)
        progress.start()
        bar = progress.add_task(", ".join(games), total=len(runs))
    failures = []
    try:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(_run, args): (game, task, args) for game, task, args in runs}
            for future in as_completed(futures):
                game, task, args = futures[future]
                took, error = future.result()
                if error:
                    failures.append(f"cardsim {' '.join(args)}: {error}")
                if progress is not None:
                    progress.advance(bar)
                elif not quiet:
                    sys.stderr.write(f"{game} {task}: {'failed' if error else 'ready'} ({took:.1f} s)\n")
    finally:
        if progress is not None:
            progress.stop()
    if failures:
        raise RunFailed(failures[0])
    if not quiet:
        sys.stderr.write(f"compiled {len(runs)} runs' kernels ({', '.join(games)}; {', '.join(tasks)}) in "
                         f"{time.perf_counter() - start:.1f} s with {jobs} processes; first runs now load them "
                         f"from Numba's cache\n")


def _run(args: list[str]) -> tuple[float, str]:
    """One cardsim command in a new process: (seconds, last stderr line or '' on success)."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "cardsim", *args], stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines = proc.stderr.strip().splitlines()
    return time.perf_counter() - start, (lines[-1] if lines else f"exit {proc.returncode}") if proc.returncode else ""
