"""Tứ Sắc full games per second on one core: numba kernel vs the pure-Python reference.

    .venv/bin/python benchmarks/bench_play_tusac.py [--games 200000] [--ref-games 200]

The numba kernel runs with ``numba.set_num_threads(1)`` (per-core throughput; compile
time excluded by a warm-up call). The reference (:mod:`references.tusac`: plain
Python game loop and claims, meld evaluations through the meld engine) plays the same
games, decision for decision, in the same run; the ratio is printed per policy.
"""
from __future__ import annotations

import argparse
import time

import sys
from pathlib import Path

import numba

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the reference engines
from references import tusac as ref
from cardsim.simcore.tusac.play import play_chunk
from cardsim.simcore.tusac.rules import TuSacRules


def rate_kernel(rules, policy, n, seed=12345, repeats=3):
    play_chunk(seed, 0, 64, rules, policy)  # compile / load cache
    best = 0.0
    for _ in range(repeats):
        t = time.perf_counter()
        cols = play_chunk(seed, 0, n, rules, policy)
        best = max(best, n / (time.perf_counter() - t))
    return best, float(cols["turns"].mean()), float((cols["winner"] >= 0).mean())


def rate_reference(rules, policy, n, seed=12345):
    ref.play_game(seed, n, rules, policy)  # load kernels used by the reference
    t = time.perf_counter()
    for i in range(n):
        ref.play_game(seed, i, rules, policy)
    return n / (time.perf_counter() - t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200_000, help="games per numba measurement")
    ap.add_argument("--ref-games", type=int, default=200, help="games for the pure-Python reference")
    ap.add_argument("--players", type=int, default=4)
    args = ap.parse_args()
    numba.set_num_threads(1)
    rules = TuSacRules(players=args.players)
    print(f"Tứ Sắc play, {args.players} players, default rules, 1 thread (numba.set_num_threads(1))")
    print(f"{'policy':<12}{'reference games/s':>19}{'numba games/s':>15}{'x reference':>13}"
          f"{'turns/game':>12}{'won':>7}")
    for policy in ("heuristic", "random"):
        ref_rate = rate_reference(rules, policy, args.ref_games)
        rate, turns, won = rate_kernel(rules, policy, args.games)
        print(f"{policy:<12}{ref_rate:>19,.0f}{rate:>15,.0f}{rate / ref_rate:>13,.0f}{turns:>12.1f}{won:>7.1%}")


if __name__ == "__main__":
    main()
