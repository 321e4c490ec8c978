"""Tiến Lên play kernel alone, in-process, one thread: seconds for 100k heuristic games and for
500 games with a ``search:64`` seat (best of 3 after a warm-up; no CLI, no Parquet).

    python benchmarks/bench_tienlen_kernel.py
    cd ../before && PYTHONPATH=. python /path/to/benchmarks/bench_tienlen_kernel.py   # another checkout

Compares kernel speed across checkouts without the per-command costs (imports, cache loads)
that ``bench_warm_commands.py`` includes.
"""
import time

import numba

from cardsim.simcore.tienlen.play import play_chunk
from cardsim.simcore.tienlen.rules import TienLenRules


def best_of(runs: int, call) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    numba.set_num_threads(1)
    rules = TienLenRules()
    for label, policies, games in (("heuristic, 100k games", ["heuristic"] * 4, 100_000),
                                   ("search:64 seat 0, 500 games", ["search:64"] + ["heuristic"] * 3, 500)):
        play_chunk(1, 0, 5, rules, policies)  # compile or load
        took = best_of(3, lambda: play_chunk(1, 0, games, rules, policies))
        print(f"{label}, 1 thread: {took:.3f} s")


if __name__ == "__main__":
    main()
