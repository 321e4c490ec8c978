"""Custom deal events: throughput of a deal run with one simple user event vs without.

    python benchmarks/bench_custom_event.py [--deals 8000000] [--threads 1]

Runs the same Tiến Lên deal chunk (built-in events only) and then with
``examples/deal_events.py:two_bombs`` added (the user's function, compiled by Numba and
fused into a dealing loop), after a warm-up of both; prints deals/s and the ratio.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numba

from cardsim.simcore.run.runner import RunConfig, run_chunk
from cardsim.simcore.tienlen.rules import TienLenRules

EVENT = str(Path(__file__).resolve().parent.parent / "examples" / "deal_events.py") + ":two_bombs"


def rate(n: int, options: dict) -> float:
    config = RunConfig("tienlen", "deal", TienLenRules(), n=n, seed=1, chunk_size=n, options=options)
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        run_chunk(config, 0)
        best = min(best, time.perf_counter() - t)
    return n / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=8_000_000)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    numba.set_num_threads(args.threads)
    rate(20_000, {})
    rate(20_000, {"events": [EVENT]})  # warm-up: compiles the event and the fused loop
    plain = rate(args.deals, {})
    custom = rate(args.deals, {"events": [EVENT]})
    print(f"Tiến Lên deals, {args.threads} thread(s): built-in events {plain / 1e6:.2f} M deals/s, "
          f"with one custom event {custom / 1e6:.2f} M deals/s ({custom / plain:.0%} of built-in)")


if __name__ == "__main__":
    main()
