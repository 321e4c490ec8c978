"""Progress on stderr for long runs, shared by the Python API and the command line: a rich
bar on a terminal or in a notebook (:class:`RunProgress`), the first-run compile notice
(:func:`compiling_notice`) and the count of kernels Numba compiles (:class:`CompileCounter`).
Nothing here runs a simulation."""
from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from functools import lru_cache


def _has_ipywidgets() -> bool:
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        return False
    return True


@lru_cache(maxsize=None)
def stderr_console():
    """The rich console on stderr (imported on first use: commands without progress bars skip rich)."""
    from rich.console import Console

    return Console(stderr=True, highlight=False)


@contextmanager
def compiling_notice(what: str, enabled: bool = True):
    """Say on a terminal's stderr when the block compiles kernels (a first run): a
    transient spinner "compiling the ``what`` kernels (first run only)" with the count so
    far and the elapsed time, then one line with how many compiled in how long. A warm
    run (kernels loaded from Numba's cache) shows nothing; nothing either with
    ``enabled`` False or when stderr is not a terminal."""
    if not enabled or not sys.stderr.isatty():
        yield
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                        console=stderr_console(), transient=True)
    task = []

    def on_compile(count: int) -> None:
        label = f"compiling the {what} kernels (first run only): {count}"
        if not task:
            progress.start()
            task.append(progress.add_task(label, total=None))
        progress.update(task[0], description=label)

    counter = CompileCounter(on_compile)
    try:
        yield
    finally:
        line = counter.close()
        if task:
            progress.stop()
        if line:
            sys.stderr.write(line + "\n")


class CompileCounter:
    """Counts the kernels Numba compiles while registered (Numba's public event API:
    ``numba:compile`` fires only on a compile, never when a kernel loads from the cache)."""

    def __init__(self, on_compile) -> None:
        from numba.core import event

        class _Listener(event.Listener):
            def on_start(inner, ev) -> None:
                self.count += 1
                if self.started is None:
                    self.started = time.perf_counter()
                on_compile(self.count)

            def on_end(inner, ev) -> None:
                pass

        self.count, self.started = 0, None
        self._event = event
        self._listener = _Listener()
        event.register("numba:compile", self._listener)

    def close(self) -> str:
        """Unregister; the closing line to print ('' when nothing compiled)."""
        self._event.unregister("numba:compile", self._listener)
        if not self.count:
            return ""
        return (f"compiled {self.count} kernels in {time.perf_counter() - self.started:.1f} s "
                f"(first run only: later runs load them from Numba's cache)")


class RunProgress:
    """A rich progress bar on stderr, shown from the start of a run on a terminal or in
    a notebook (spinner, chunks done, elapsed time, ETA); silent with --quiet or when
    stderr is neither. Until the first chunk is done its label says so; while the run
    compiles kernels (a first run) it says that, with the count of kernels compiled, and
    at the end one line says how many compiled in how long."""

    def __init__(self, enabled: bool, description: str, total: int):
        from cardsim.simcore.run.runner import Stopwatch

        console = stderr_console()
        # a notebook without ipywidgets cannot show rich's live bar (it would only warn):
        # one plain line at the end instead
        self.plain = enabled and console.is_jupyter and not _has_ipywidgets()
        self.enabled = enabled and not self.plain and (console.is_terminal or console.is_jupyter)
        self.description = description
        self.total = total
        self.clock = Stopwatch()
        self.progress = None
        self.task_id = None
        self.compiles = None
        if self.enabled:
            from rich.progress import (BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn,
                                       TimeRemainingColumn)

            self.progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                                     TextColumn("{task.completed:,}/{task.total:,}"),
                                     TimeElapsedColumn(), TimeRemainingColumn(), console=console,
                                     transient=True)
            self.progress.start()
            self.task_id = self.progress.add_task(
                f"{description} (first chunk)", total=total)  # short: 80 columns keep the times
            self.compiles = CompileCounter(self._compiling)

    def _compiling(self, count: int) -> None:
        self.progress.update(self.task_id, description=f"compiling the {self.description} kernels "
                                                       f"(first run only): {count}")

    def update(self, done: int, total: int) -> None:
        if self.progress is None:
            return
        self.progress.update(self.task_id, completed=done, total=total, description=self.description)

    def close(self) -> None:
        if self.plain:
            sys.stderr.write(f"{self.description}: done in {self.clock():.1f} s\n")
            self.plain = False
        if self.progress is not None:
            self.progress.stop()
            line = self.compiles.close()
            if line:
                sys.stderr.write(line + "\n")
            self.progress = None
