"""Run chunks as Dask tasks (``--backend dask``; needs ``pip install 'cardsim[dask]'``).

Each chunk is one task calling :func:`simcore.run.runner.write_chunk` on a worker (after
:func:`write_chunk_on_worker` checked the worker's versions), which
writes that chunk's Parquet parts itself; the client only receives row counts, so it
never holds the results. With ``scheduler=None`` a LocalCluster of ``workers``
single-threaded processes is started for the run. With a remote scheduler the workers
must have cardsim installed and see the output directory under the same absolute path
(a shared filesystem); the path is made absolute before any task is submitted. A task
whose worker dies is rerun elsewhere by the scheduler; parts are deterministic, so a
rerun writes the same bytes.
"""
from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import uuid
from typing import Callable

from cardsim.simcore.framework.config import ConfigError
from cardsim.simcore.run.layout import shorten
from cardsim.simcore.run.runner import write_chunk

#: Seconds to wait for a remote scheduler.
CONNECT_TIMEOUT = "10s"


@contextlib.contextmanager
def _quiet_logs(level: int):
    """Raise the level of Dask's loggers (their shutdown chatter is not the user's business)."""
    loggers = [logging.getLogger(name) for name in ("distributed", "tornado", "asyncio")]
    old = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(level)
    try:
        yield
    finally:
        for lg, value in zip(loggers, old):
            lg.setLevel(value)


@contextlib.contextmanager
def _children_ignore_sigint():
    """Start worker processes with SIGINT ignored: a Ctrl-C goes to the whole process group,
    and only this process should handle it (workers are stopped by closing the cluster)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def _worker_log_level(level: str):
    """Worker processes read their log level from the environment when they start."""
    key = "DASK_LOGGING__DISTRIBUTED"
    previous = os.environ.get(key)
    os.environ[key] = level
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = previous


def connect(scheduler: str | None, workers: int | None):
    """``(client, cluster or None)`` for a remote scheduler or a new LocalCluster."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise ConfigError("the dask backend needs Dask: pip install 'cardsim[dask]'") from None
    if scheduler:
        try:
            return Client(scheduler, timeout=CONNECT_TIMEOUT), None
        except Exception as exc:  # OSError, TimeoutError, ValueError for a malformed address...
            raise ConfigError(f"cannot reach the Dask scheduler at {shorten(scheduler)}: {shorten(exc, 160)}") from None
    with _children_ignore_sigint(), _worker_log_level("error"):
        # no dashboard; the scheduler's HTTP server on a free port (not 8787: no "port in use" warning)
        cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                               processes=True, dashboard_address=None,
                               scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
    try:
        return Client(cluster), cluster
    except BaseException:
        cluster.close()
        raise


def write_chunk_on_worker(manifest, out: str, chunk_id: int, threads: int | None = None) -> dict[str, int]:
    """:func:`~cardsim.simcore.run.runner.write_chunk` on a Dask worker, which first
    checks that it runs the cardsim and Numba the run was started with: a worker with
    other versions could write other data into the same run."""
    import numba

    from cardsim.simcore import __version__
    from cardsim.simcore.framework.config import RunFailed

    mine = {"cardsim_version": __version__, "numba_version": numba.__version__}
    wrong = {k: v for k, v in mine.items() if manifest.get(k, v) != v}
    if wrong:
        said = ", ".join(f"{k.split('_')[0]} {v} (the run: {manifest[k]})" for k, v in wrong.items())
        raise RunFailed(f"a Dask worker runs {said}: install the run's versions on every worker, then resume")
    return write_chunk(manifest, out, chunk_id, threads)


def execute_dask(run, chunk_ids: list[int], scheduler: str | None = None, workers: int | None = None,
                 threads_per_task: int = 1, on_chunk: Callable[[int, int], None] | None = None) -> None:
    """Run ``chunk_ids`` of a :class:`~simcore.run.output.PartialRun` on a Dask cluster.

    On Ctrl-C the submitted tasks are cancelled and the cluster is closed silently
    before ``KeyboardInterrupt`` propagates; finished parts stay on disk.
    """
    from dask.distributed import as_completed

    with _quiet_logs(logging.ERROR):
        client, cluster = connect(scheduler, workers)
        futures = []
        try:
            tag = uuid.uuid4().hex[:8]
            out = os.path.abspath(run.out)  # workers run elsewhere: never send a relative path
            futures = [client.submit(write_chunk_on_worker, run.manifest, out, chunk_id, threads_per_task,
                                     key=f"cardsim-{tag}-chunk-{chunk_id}", pure=False)
                       for chunk_id in chunk_ids]
            for done, future in enumerate(as_completed(futures), 1):
                future.result()  # re-raises a worker's error here
                future.release()
                if on_chunk is not None:
                    on_chunk(done, len(chunk_ids))
        except BaseException:
            # distributed's event-loop thread may still log its own callbacks' errors about
            # the interrupted call after we return (a NameError in its sync() on an early
            # Ctrl-C): the run is over and reported, so those loggers stay silent from here on
            # (child loggers: _quiet_logs restores the parents' levels on the way out).
            for name in ("tornado.application", "tornado.general", "distributed.client", "distributed.utils",
                         "distributed.core"):
                logging.getLogger(name).setLevel(logging.CRITICAL + 1)
            if cluster is None:  # a remote cluster outlives us: stop its work (a LocalCluster just closes)
                with _quiet_logs(logging.CRITICAL + 1), contextlib.suppress(BaseException):
                    client.cancel(futures)
            _close(client, cluster)
            raise
        _close(client, cluster)


def _close(client, cluster) -> None:
    """Close the client and a LocalCluster without warnings or tracebacks, even during Ctrl-C."""
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not break the cleanup
    try:
        with _quiet_logs(logging.CRITICAL + 1):
            with contextlib.suppress(BaseException):
                client.close()
            if cluster is not None:
                with contextlib.suppress(BaseException):
                    cluster.close()
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
