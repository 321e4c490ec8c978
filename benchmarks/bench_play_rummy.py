"""Loba and Continental full hands per second on one core: numba kernel vs the Python reference.

    .venv/bin/python benchmarks/bench_play_rummy.py [--games 2000] [--ref-hands 3]

The numba kernel (:mod:`cardsim.simcore.rummy.play`) runs with ``numba.set_num_threads(1)``
(per-core throughput; compile time excluded by a warm-up call) and plays whole games
(all rounds); the rate is counted in hands (rounds) per second. The reference
(:func:`references.rummy.play_hand`: a plain Python game loop over card lists,
the same rules and heuristic, meld questions answered by the compiled solver of
:mod:`simcore.rummy.melds`, lay-off checks by the pure-Python meld validator) plays
``--ref-hands`` hands of every round in the same run; the ratio is printed.
"""
from __future__ import annotations

import argparse
import time

import sys
from pathlib import Path

import numba

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the reference engines
from references import rummy as ref
from cardsim.simcore.rummy.rules import ContinentalRules
from cardsim.simcore.rummy.play import play_chunk
from cardsim.simcore.rummy.rules import LobaRules


def rate_kernel(rules, policy, n, seed=12345, repeats=3):
    play_chunk(seed, 0, 8, rules, policy)  # compile / load cache
    best = 0.0
    for _ in range(repeats):
        t = time.perf_counter()
        cols = play_chunk(seed, 0, n, rules, policy)
        best = max(best, len(cols["hands"]["game"]) / (time.perf_counter() - t))
    h = cols["hands"]
    return best, float(h["turns"].mean()), float(h["capped"].mean())


def rate_reference(rules, policy, per_round, seed=12345):
    R = len(rules.rounds())
    ref.play_hand(rules, 0, policy, seed=-1)  # load the solver
    t = time.perf_counter()
    for i in range(per_round):
        for r in range(R):
            ref.play_hand(rules, r, policy, seed=seed + i * R + r)
    return per_round * R / (time.perf_counter() - t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000, help="games (all rounds) per numba measurement")
    ap.add_argument("--ref-hands", type=int, default=3, help="reference hands per round")
    args = ap.parse_args()
    numba.set_num_threads(1)
    print("contract rummy play, 4 players, default rules (Loba also with claims), 1 thread")
    print(f"{'game':<22}{'engine':<22}{'hands/s':>12}{'turns/hand':>12}{'capped':>9}{'x reference':>13}")
    for name, rules in (("loba", LobaRules()), ("loba claims", LobaRules(claims=True)),
                        ("continental", ContinentalRules())):
        ref_rate = rate_reference(rules, "heuristic", args.ref_hands)
        print(f"{name:<22}{'reference heuristic':<22}{ref_rate:>12,.1f}{'':>12}{'':>9}{1:>13.0f}")
        for policy in ("heuristic", "random"):
            rate, turns, capped = rate_kernel(rules, policy, args.games)
            print(f"{name:<22}{'numba ' + policy:<22}{rate:>12,.0f}{turns:>12.1f}{capped:>9.3f}"
                  f"{rate / ref_rate:>13,.0f}")


if __name__ == "__main__":
    main()
