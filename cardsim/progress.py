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


COMPILE_RECORD = "cardsim-compile-counts.json"


def _record_path():
    """Where the kernels each command compiled last time are counted: beside Numba's cache
    of cardsim's kernels (kept when a source change drops the kernels themselves)."""
    import os
    from pathlib import Path

    from cardsim.simcore.primitives.kernel_cache import SIMCORE

    cache_dir = os.environ.get("NUMBA_CACHE_DIR")
    return (Path(cache_dir) if cache_dir else SIMCORE / "__pycache__") / COMPILE_RECORD


def last_compile(what: str) -> tuple[int, float] | None:
    """``(kernels, seconds)`` of the last first run of ``what`` on this machine, or None."""
    import json

    try:
        count, seconds = json.loads(_record_path().read_text())[what]
        return int(count), float(seconds)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _remember_compile(what: str, count: int, seconds: float) -> None:
    import json
    import os

    path = _record_path()
    try:
        record = json.loads(path.read_text()) if path.is_file() else {}
        if not isinstance(record, dict):
            record = {}
        record[what] = [count, round(seconds, 1)]
        tmp = path.with_name(f".{COMPILE_RECORD}.{os.getpid()}")
        tmp.write_text(json.dumps(record, sort_keys=True) + "\n")
        os.replace(tmp, path)
    except (OSError, ValueError):
        pass  # a read-only cache: the next first run just shows no total


def compile_label(what: str, count: int) -> str:
    """``compiling the WHAT kernels (first run only): 34`` with, when this machine compiled
    them before (a source change or upgrade dropped them), ``/61, about 40 s``."""
    last = last_compile(what)
    total = f"/{last[0]}, about {last[1]:.0f} s" if last and last[0] >= count else ""
    return f"compiling the {what} kernels (first run only): {count}{total}"


class _PlainCompileLines:
    """Compile notice for a stderr that is not a terminal (batch jobs, logs): one line when
    kernels have been compiling for :data:`PLAIN_AFTER` seconds, one when the run ends
    (a compile shorter than that, e.g. a custom event function, says nothing)."""

    PLAIN_AFTER = 2.0

    def __init__(self, what: str):
        import threading

        self.what = what
        self.said = False
        self.lock = threading.Lock()
        self.timer = None
        self.counter = CompileCounter(self._first)

    def _first(self, count: int) -> None:
        if count == 1 and self.timer is None:
            import threading

            self.timer = threading.Timer(self.PLAIN_AFTER, self._say)
            self.timer.daemon = True
            self.timer.start()

    def _say(self) -> None:
        with self.lock:
            if self.said or self.counter is None:
                return
            self.said = True
            last = last_compile(self.what)
            hint = f", about {last[1]:.0f} s for {last[0]} kernels last time" if last else ""
            sys.stderr.write(f"compiling the {self.what} kernels (first run only{hint})...\n")
            sys.stderr.flush()

    def close(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        with self.lock:
            line = self.counter.close(self.what)
            self.counter = None
            if line and self.said:
                sys.stderr.write(line + "\n")


@contextmanager
def compiling_notice(what: str, enabled: bool = True):
    """Say on a terminal's stderr when the block compiles kernels (a first run): a
    transient spinner "compiling the ``what`` kernels (first run only)" with the count so
    far and the elapsed time, then one line with how many compiled in how long. A warm
    run (kernels loaded from Numba's cache) shows nothing; nothing either with
    ``enabled`` False or when stderr is not a terminal."""
    if not enabled:
        yield
        return
    if not sys.stderr.isatty():
        plain = _PlainCompileLines(what)
        try:
            yield
        finally:
            plain.close()
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                        console=stderr_console(), transient=True)
    task = []

    def on_compile(count: int) -> None:
        label = compile_label(what, count)
        if not task:
            progress.start()
            task.append(progress.add_task(label, total=None))
        progress.update(task[0], description=label)

    counter = CompileCounter(on_compile)
    try:
        yield
    finally:
        line = counter.close(what)
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

    def close(self, what: str = "") -> str:
        """Unregister; the closing line to print ('' when nothing compiled). With ``what``,
        remember the count and time for the next first run's total (:func:`compile_label`)."""
        self._event.unregister("numba:compile", self._listener)
        if not self.count:
            return ""
        seconds = time.perf_counter() - self.started
        if what:
            _remember_compile(what, self.count, seconds)
        return (f"compiled {self.count} kernels in {seconds:.1f} s "
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
        # a log file or a batch job's stderr: plain lines when kernels compile
        self.plain_compiles = _PlainCompileLines(description) if enabled and not self.enabled else None
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
        self.progress.update(self.task_id, description=compile_label(self.description, count))

    def update(self, done: int, total: int) -> None:
        if self.progress is None:
            return
        self.progress.update(self.task_id, completed=done, total=total, description=self.description)

    def close(self) -> None:
        if self.plain_compiles is not None:
            self.plain_compiles.close()
            self.plain_compiles = None
        if self.plain:
            sys.stderr.write(f"{self.description}: done in {self.clock():.1f} s\n")
            self.plain = False
        if self.progress is not None:
            self.progress.stop()
            line = self.compiles.close(self.description)
            if line:
                sys.stderr.write(line + "\n")
            self.progress = None
