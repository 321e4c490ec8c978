"""Tiến Lên full games per second on one core: numba kernel vs the pure-Python reference.

    .venv/bin/python benchmarks/bench_play_tienlen.py [--games 400000] [--ref-games 40]

The numba kernel runs with ``numba.set_num_threads(1)`` (per-core throughput; compile
time excluded by a warm-up call). The reference engine (:mod:`references.tienlen`,
random policy only: brute-force move enumeration in plain Python) plays the same games
in the same run; the ratio is printed for each policy against it.
"""
from __future__ import annotations

import argparse
import time

import sys
from pathlib import Path

import numba

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the reference engines
from references import tienlen as ref
from cardsim.simcore.tienlen.play import play_chunk
from cardsim.simcore.tienlen.rules import TienLenRules


def rate_kernel(rules, policy, n, seed=12345, repeats=3):
    play_chunk(seed, 0, 64, rules, policy)  # compile / load cache
    best = 0.0
    for _ in range(repeats):
        t = time.perf_counter()
        cols = play_chunk(seed, 0, n, rules, policy)
        best = max(best, n / (time.perf_counter() - t))
    return best, float(cols["plays"].mean())


def rate_reference(rules, n, seed=12345):
    ref.play_game(seed, n, rules, True, -1)  # load the deal kernel
    t = time.perf_counter()
    for i in range(n):
        ref.play_game(seed, i, rules, True, -1)
    return n / (time.perf_counter() - t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=400_000, help="games per numba measurement")
    ap.add_argument("--ref-games", type=int, default=40, help="games for the pure-Python reference")
    ap.add_argument("--players", type=int, default=4)
    args = ap.parse_args()
    numba.set_num_threads(1)
    rules = TienLenRules(players=args.players)
    ref_rate = rate_reference(rules, args.ref_games)
    print(f"Tiến Lên play, {args.players} players, default rules, 1 thread (numba.set_num_threads(1))")
    print(f"{'engine':<28}{'games/s':>14}{'plays/game':>12}{'x reference':>13}")
    print(f"{'reference (Python, random)':<28}{ref_rate:>14,.0f}{'':>12}{1:>13.0f}")
    for policy in ("random", "greedy", "heuristic"):
        rate, plays = rate_kernel(rules, policy, args.games)
        print(f"{'numba ' + policy:<28}{rate:>14,.0f}{plays:>12.1f}{rate / ref_rate:>13,.0f}")


if __name__ == "__main__":
    main()
