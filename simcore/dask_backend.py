"""Run chunks as Dask tasks (``--backend dask``; needs ``pip install 'cardsim[dask]'``).

Each chunk is one task calling :func:`simcore.runner.write_chunk` on a worker, which
writes that chunk's Parquet parts itself; the client only receives row counts, so it
never holds the results. With ``scheduler=None`` a LocalCluster of ``workers``
single-threaded processes is started for the run. With a remote scheduler the workers
must have cardsim installed and see the output directory (a shared filesystem).
"""
from __future__ import annotations

import os
import uuid
from typing import Callable

from cardsim.simcore.config import ConfigError
from cardsim.simcore.runner import write_chunk


def execute_dask(run, chunk_ids: list[int], scheduler: str | None = None, workers: int | None = None,
                 threads_per_task: int = 1, on_chunk: Callable[[int, int], None] | None = None) -> None:
    """Run ``chunk_ids`` of a :class:`~simcore.output.PartialRun` on a Dask cluster."""
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise ConfigError("the dask backend needs Dask: pip install 'cardsim[dask]'") from None
    cluster = None
    try:
        if scheduler:
            try:
                client = Client(scheduler, timeout="10s")
            except (OSError, TimeoutError) as exc:
                raise ConfigError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
        else:
            cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                                   processes=True, dashboard_address=None)
            client = Client(cluster)
        try:
            tag = uuid.uuid4().hex[:8]
            futures = [client.submit(write_chunk, run.manifest, str(run.out), chunk_id, threads_per_task,
                                     key=f"cardsim-{tag}-chunk-{chunk_id}", pure=False)
                       for chunk_id in chunk_ids]
            for done, future in enumerate(as_completed(futures), 1):
                future.result()  # re-raises a worker's error here
                future.release()
                if on_chunk is not None:
                    on_chunk(done, len(chunk_ids))
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()
