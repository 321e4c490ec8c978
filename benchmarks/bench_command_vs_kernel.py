"""The commands against the bare kernels, one thread, warm cache (issue 50's timing table).

    python benchmarks/bench_command_vs_kernel.py          # about a minute

Prints, side by side in one run: the bare deal kernel's deals/s (``deal_counts`` called
in-process, best of 3), ``cardsim deal tienlen --threads 1`` deals/s (wall time of the whole
command: start-up, chunks, Parquet, summary) and their ratio (target >= 1.0 for a long
enough run: the command adds only a fixed cost), then ``cardsim play tienlen --policy random``
games/s and its ratio to the bare deal kernel (a random game deals, then plays ~25 turns).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from bench_deal_tienlen import kernel_rate  # noqa: E402

CARDSIM = [sys.executable, "-m", "cardsim.cli.main"]


def command_rate(args: list[str], n: int, repeats: int = 3) -> float:
    best = 0.0
    for _ in range(repeats):
        t = time.perf_counter()
        subprocess.run(CARDSIM + args, check=True, capture_output=True, env=dict(os.environ, NUMBA_NUM_THREADS="1"))
        best = max(best, n / (time.perf_counter() - t))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=50_000_000)
    parser.add_argument("--games", type=int, default=2_000_000)
    args = parser.parse_args()
    bare = kernel_rate(1, args.deals)
    deal = command_rate(["deal", "tienlen", "--deals", str(args.deals), "--seed", "1", "--threads", "1", "--quiet"],
                        args.deals)
    play = command_rate(["play", "tienlen", "--games", str(args.games), "--seed", "1", "--threads", "1", "--policy",
                         "random", "--quiet"], args.games)
    print(f"bare deal kernel (in-process)         {bare:14,.0f} deals/s")
    print(f"cardsim deal tienlen --threads 1      {deal:14,.0f} deals/s   {deal / bare:5.2f}x the bare kernel "
          f"({args.deals:,} deals)")
    print(f"cardsim play tienlen --policy random  {play:14,.0f} games/s   {play / bare:5.3f}x the bare deal kernel "
          f"({args.games:,} games)")


if __name__ == "__main__":
    main()
