"""Scale-out of the run backends, per-chunk overhead, and memory bounds.

Run::

    python benchmarks/bench_backends.py

Prints (all through the real CLI, one process per measurement):

- a Dask LocalCluster (already running, workers warm) with 1 and 2 single-threaded
  workers on the same Tiến Lên deal run, and the speed-up (target >= 1.7x on 2 cores);
- the per-chunk overhead of the Dask backend versus the local backend (many tiny
  chunks, same total work);
- peak RSS of Tiến Lên play runs of 10**6 vs 10**7 games (parts streamed to disk and
  summarised part by part) and of deal runs of 10**8 vs 10**9 deals: memory must not
  grow with N.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time


def cli_run(args: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one ``cardsim`` process."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-c",
               "import resource, sys; from cardsim.cli.main import main; code = main(sys.argv[1:]); "
               "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr); sys.exit(code)",
               *args, "--out", os.path.join(tmp, "run"), "--quiet"]
        t = time.perf_counter()
        done = subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - t
    return wall, int(done.stderr.strip().splitlines()[-1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=400_000_000)
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument("--skip-dask", action="store_true")
    args = parser.parse_args()
    base = ["deal", "tienlen", "--seed", "1"]

    # warm the numba cache so that compile time is not measured
    cli_run(base + ["--deals", "1000"])

    chunk = str(args.deals // 16)
    from dask.distributed import LocalCluster

    rates = {}
    for workers in (() if args.skip_dask else (1, 2)):
        # A running cluster with warm workers (numba loaded): what a batch user has.
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
            dask_args = ["--backend", "dask", "--scheduler", cluster.scheduler_address]
            cli_run(base + ["--deals", str(2 * 10**6), "--chunk-size", str(10**6)] + dask_args)
            wall, _ = cli_run(base + ["--deals", str(args.deals), "--chunk-size", chunk] + dask_args)
        rates[workers] = args.deals / wall
        print(f"dask, {workers} worker(s): {rates[workers] / 1e6:7.2f} M deals/s ({wall:.1f} s for {args.deals:,} deals, "
              f"16 chunks, client start included)")
    if rates:
        print(f"dask scaling 1 -> 2 workers: {rates[2] / rates[1]:.2f}x")

    tiny_chunks, tiny = 400, 1000
    tl, _ = cli_run(base + ["--deals", str(tiny_chunks * tiny), "--chunk-size", str(tiny), "--threads", "1"])
    td, _ = cli_run(base + ["--deals", str(tiny_chunks * tiny), "--chunk-size", str(tiny),
                            "--backend", "dask", "--workers", "1"])
    t0d, _ = cli_run(base + ["--deals", str(tiny), "--chunk-size", str(tiny), "--backend", "dask", "--workers", "1"])
    t0l, _ = cli_run(base + ["--deals", str(tiny), "--chunk-size", str(tiny), "--threads", "1"])
    per_local = (tl - t0l) / (tiny_chunks - 1)
    per_dask = (td - t0d) / (tiny_chunks - 1)
    print(f"per-chunk cost with {tiny} deals per chunk: local {per_local * 1e3:.1f} ms, dask {per_dask * 1e3:.1f} ms "
          f"(Dask overhead {1e3 * (per_dask - per_local):.1f} ms per chunk)")

    if not args.skip_memory:
        for n in (10**6, 10**7):
            wall, rss = cli_run(["play", "tienlen", "--seed", "1", "--games", str(n)])
            print(f"play run of {n:.0e} heuristic games: {wall:6.1f} s, peak RSS {rss:6.0f} MiB")
        for n in (10**8, 10**9):
            wall, rss = cli_run(base + ["--deals", str(n)])
            print(f"deal run of {n:.0e} deals: {wall:6.1f} s, peak RSS {rss:6.0f} MiB")


if __name__ == "__main__":
    main()
