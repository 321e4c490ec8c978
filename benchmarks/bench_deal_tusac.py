"""Throughput of ``cardsim deal tusac``: numba kernel vs a plain NumPy baseline.

Run::

    python benchmarks/bench_deal_tusac.py                 # ~1 minute
    python benchmarks/bench_deal_tusac.py --deals 10000000

Prints deals/s of the kernel on 1 thread (best of 5, wall clock and per CPU second, the
latter robust to other processes) and on 2 threads, deals/s of a
vectorised NumPy implementation of the same per-seat statistics (shuffle by argsort,
type counts by bincount), the ratio, and the meld engine's hands/s. Speed is measured
here, never asserted in tests.
"""
from __future__ import annotations

import argparse
import os
import time

import numba
import numpy as np

from cardsim.simcore.tusac import melds
from cardsim.simcore.tusac.cards import GENERAL_TYPES, SOLDIER_TYPES
from cardsim.simcore.tusac.deal import deal_counts, deal_rows

SIZES = np.array([21, 20, 20, 20])


def kernel_rate(threads: int, n: int, repeats: int = 5) -> tuple[float, float]:
    """Best wall-clock and best CPU-time deals/s (CPU time is robust to other load on 1 thread)."""
    numba.set_num_threads(threads)
    deal_counts(1, 0, 10_000, 4, 64)  # compile / load cache
    best = best_cpu = 0.0
    for r in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        deal_counts(r, 0, n, 4, 64)
        best = max(best, n / (time.perf_counter() - t))
        best_cpu = max(best_cpu, n / (time.process_time() - c))
    return best, best_cpu


def numpy_deal_stats(rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
    """Per-seat weak / triple / quadruple / full-colour soldiers / Generals, vectorised with NumPy."""
    perm = np.argsort(rng.random((n, 112)), axis=1)[:, :81]  # physical cards at positions 0..80
    seat_of_position = np.repeat(np.arange(4), SIZES)
    key = (np.arange(n)[:, None] * 4 + seat_of_position[None, :]) * 28 + perm // 4
    counts = np.bincount(key.ravel(), minlength=n * 4 * 28).reshape(n, 4, 28)
    generals = counts[:, :, list(GENERAL_TYPES)].sum(axis=2)
    triple = (counts == 3).any(axis=2)
    quad = (counts == 4).any(axis=2)
    full = (counts[:, :, list(SOLDIER_TYPES)] > 0).all(axis=2)
    weak = (generals == 0) & ~triple & ~quad & ~full
    return {"weak_hand": weak, "dealt_triple": triple, "dealt_quadruple": quad,
            "full_colour_soldiers": full, "generals": np.minimum(generals, 8)}


def numpy_rate(n: int, batch: int = 20_000) -> float:
    rng = np.random.default_rng(1)
    numpy_deal_stats(rng, 1000)
    t = time.perf_counter()
    done = 0
    while done < n:
        numpy_deal_stats(rng, min(batch, n - done))
        done += batch
    return n / (time.perf_counter() - t)


def meld_rate(n: int = 1_000_000) -> float:
    numba.set_num_threads(1)
    hands = np.ascontiguousarray(deal_rows(5, 0, n // 4, 4)[0][:, :4].reshape(-1, 28))
    locked = np.zeros(len(hands), np.int64)
    tabs = melds.meld_tables()
    melds.meld_eval_many(hands[:10], locked[:10], tabs.trash, tabs.score)
    t = time.perf_counter()
    melds.meld_eval_many(hands, locked, tabs.trash, tabs.score)
    return len(hands) / (time.perf_counter() - t)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20_000_000, help="deals per kernel timing")
    parser.add_argument("--numpy-deals", type=int, default=200_000)
    args = parser.parse_args()

    one, one_cpu = kernel_rate(1, args.deals)
    base = numpy_rate(args.numpy_deals)
    two, _ = kernel_rate(min(2, numba.config.NUMBA_NUM_THREADS), args.deals)
    hands = meld_rate()
    print(f"machine: {os.cpu_count()} cores, numba {numba.__version__}, numpy {np.__version__}, "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"kernel, 1 thread : {one / 1e6:8.2f} M deals/s   (per CPU second: {one_cpu / 1e6:.2f} M)")
    print(f"NumPy baseline   : {base / 1e6:8.2f} M deals/s   (kernel / NumPy = {one / base:.1f}x)")
    print(f"kernel, 2 threads: {two / 1e6:8.2f} M deals/s   (2 threads / 1 thread = {two / one:.2f}x)")
    print(f"meld_eval, 1 thread: {hands / 1e6:6.2f} M hands/s  (= {hands / 1e3:,.0f} hands per ms)")


if __name__ == "__main__":
    main()
