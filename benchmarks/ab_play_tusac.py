"""Tứ Sắc play speed of whatever tree is on PYTHONPATH, for side-by-side A/B runs of two versions.

    PYTHONPATH=../old python benchmarks/ab_play_tusac.py    # the old tree's code
    PYTHONPATH=.        python benchmarks/ab_play_tusac.py    # this tree's code

One thread, ``play_chunk`` over 8,000 games per policy (heuristic, random), best of 5 by
process CPU time (less sensitive than wall time to other jobs on shared cores); prints
games per second. Alternate the two trees several times: a single pair of runs differs
by up to ~30% on a shared 2-core machine.
"""
from __future__ import annotations

import time

import numba

from cardsim.simcore.tusac.play import play_chunk
from cardsim.simcore.tusac.rules import TuSacRules


def main(games: int = 8000, repeats: int = 5) -> None:
    numba.set_num_threads(1)
    rules = TuSacRules()
    out = []
    for policy in ("heuristic", "random"):
        play_chunk(1, 0, 200, rules, policy)  # compile / load
        best = float("inf")
        for _ in range(repeats):
            start = time.process_time()
            play_chunk(1, 0, games, rules, policy)
            best = min(best, time.process_time() - start)
        out.append(f"{policy} {games / best:,.0f} games/s")
    print("  ".join(out))


if __name__ == "__main__":
    main()
