"""Compile CPU of recorded compile plans, this checkout against an older commit, the two
alternating in one session (this machine's speed drifts by tens of percent over hours, so
only runs made side by side compare).

    python benchmarks/ab_compile_cpu.py --old 433799b [--rounds 2] tusac-deal loba-play-search

Each plan (a key of ``simcore/compile_plans``, each checkout its own recorded plan) is
compiled cold in one process with an empty ``NUMBA_CACHE_DIR``; the child's CPU seconds
(user + system) are what a first run spends compiling, split over two processes. The
older commit is imported from a temporary git worktree, as in ``ab_cold_start.py``.
Prints each plan's CPU seconds per round, both ways, and the ratio of the sums new/old.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ab_cold_start import alternate, old_worktree  # noqa: E402
from ab_compile_switches import cpu_seconds  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True, help="the older commit")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("plans", nargs="+", help="compile plan keys, e.g. loba-play-search")
    args = parser.parse_args()
    with old_worktree(args.old) as (work, old_env):
        print(f"{'plan':24s} {'old (CPU s)':>15s} {'new (CPU s)':>15s}  new/old")
        for plan in args.plans:
            old, new = alternate(args.rounds, old_env, lambda env: cpu_seconds(plan, env, "", work)[0])
            runs = lambda ts: " ".join(f"{t:6.1f}" for t in ts)  # noqa: E731
            print(f"{plan:24s} {runs(old):>15s} {runs(new):>15s}  {sum(new) / sum(old):7.2f}", flush=True)


if __name__ == "__main__":
    main()
