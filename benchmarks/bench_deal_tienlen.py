"""Throughput of ``cardsim deal tienlen``: numba kernel vs a plain NumPy baseline.

Run::

    python benchmarks/bench_deal_tienlen.py            # ~1 minute
    python benchmarks/bench_deal_tienlen.py --big      # adds a 10**9-deal CLI run, peak RSS

Prints deals/s of the kernel on 1 thread and on 2 threads, deals/s of a vectorised
NumPy implementation of the same statistics (shuffle by argsort, rank counts by
bincount), and the ratios. Speed is measured here, never asserted in tests.
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

import numba
import numpy as np

from cardsim.simcore.tienlen.deal import deal_counts


def kernel_rate(threads: int, n: int, repeats: int = 3) -> float:
    numba.set_num_threads(threads)
    deal_counts(1, 0, 10_000, 4, 13, 0b11, 64)  # compile / load cache
    best = 0.0
    for r in range(repeats):
        t = time.perf_counter()
        deal_counts(r, 0, n, 4, 13, 0b11, 64)
        best = max(best, n / (time.perf_counter() - t))
    return best


def numpy_deal_stats(rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
    """The same per-seat statistics as the kernel's core events, vectorised with NumPy."""
    perm = np.argsort(rng.random((n, 52)), axis=1)  # perm[b, j] = card at position j
    seat_of_position = np.arange(52) % 4
    rank = perm // 4
    suit = perm % 4
    key = (np.arange(n)[:, None] * 4 + seat_of_position[None, :]) * 13 + rank
    counts = np.bincount(key.ravel(), minlength=n * 4 * 13).reshape(n, 4, 13)
    no_twos = counts[:, :, :12]
    ge2 = no_twos >= 2
    ge3 = no_twos >= 3
    run5 = np.zeros((n, 4), bool)
    for s in range(8):
        run5 |= ge2[:, :, s:s + 5].all(axis=2)
    run3t = np.zeros((n, 4), bool)
    for s in range(10):
        run3t |= ge3[:, :, s:s + 3].all(axis=2)
    black_key = (np.arange(n)[:, None] * 4 + seat_of_position[None, :]) * 2 + (suit < 2)
    colour = np.bincount(black_key.ravel(), minlength=n * 8).reshape(n, 4, 2)
    return {
        "dragon": (no_twos >= 1).all(axis=2),
        "four_twos": counts[:, :, 12] == 4,
        "five_consecutive_pairs": run5,
        "six_pairs": (counts // 2).sum(axis=2) >= 6,
        "three_consecutive_triples": run3t,
        "one_colour": colour.max(axis=2) >= 12,
        "twos": counts[:, :, 12],
        "bomb_four": (counts == 4).any(axis=2),
        "holds_three_spades": (perm == 0).argmax(axis=1) % 4,
    }


def numpy_rate(n: int, batch: int = 50_000) -> float:
    rng = np.random.default_rng(1)
    numpy_deal_stats(rng, 1000)
    t = time.perf_counter()
    done = 0
    while done < n:
        numpy_deal_stats(rng, min(batch, n - done))
        done += batch
    return n / (time.perf_counter() - t)


def big_run(n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "big")
        cmd = [sys.executable, "-m", "cardsim.cli.main", "deal", "tienlen", "--deals", str(n), "--seed", "1",
               "--out", out, "--quiet"]
        t = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - t
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(out) for f in fs) / 2**20
    print(f"CLI run of {n:,} deals (all cores): {wall:.1f} s, {n / wall / 1e6:.2f} M deals/s, "
          f"peak RSS {peak:.0f} MiB, dataset {size:.1f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=40_000_000, help="deals per kernel timing")
    parser.add_argument("--numpy-deals", type=int, default=400_000)
    parser.add_argument("--big", action="store_true", help="also run 10**9 deals through the CLI")
    args = parser.parse_args()

    one = kernel_rate(1, args.deals)
    base = numpy_rate(args.numpy_deals)
    two = kernel_rate(min(2, numba.config.NUMBA_NUM_THREADS), args.deals)
    print(f"machine: {os.cpu_count()} cores, numba {numba.__version__}, numpy {np.__version__}")
    print(f"kernel, 1 thread : {one / 1e6:8.2f} M deals/s")
    print(f"NumPy baseline   : {base / 1e6:8.2f} M deals/s   (kernel / NumPy = {one / base:.1f}x)")
    print(f"kernel, 2 threads: {two / 1e6:8.2f} M deals/s   (2 threads / 1 thread = {two / one:.2f}x)")
    if args.big:
        big_run(10**9)


if __name__ == "__main__":
    main()
