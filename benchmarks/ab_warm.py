"""Warm speed, this checkout against an older commit: each command on its own warm cache,
three alternating runs each (the order flipped every round), wall-clock seconds.

    python benchmarks/ab_warm.py --old REV "play loba --games 2000 --seed 2 --threads 1" ...

Each command runs once per checkout to fill its cache, then three times each way. Prints
the times, the ratio of the sums new/old, and whether both checkouts printed the same
``--json`` summary (they must: a change that keeps results keeps every number). The older
commit is imported from a temporary git worktree, as in ``ab_cold_start.py``.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ab_cold_start import alternate, old_worktree  # noqa: E402


def run(args: list[str], env: dict[str, str], cache: str) -> tuple[float, str]:
    full = dict(os.environ, NUMBA_CACHE_DIR=cache, **env)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "cardsim.cli.main", *args, "--quiet", "--json"], env=full,
                          capture_output=True, text=True, cwd=tempfile.gettempdir())
    if proc.returncode != 0:
        raise SystemExit(f"cardsim {' '.join(args)} failed: {proc.stderr.strip()}")
    return time.perf_counter() - start, proc.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True, help="the older commit")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("commands", nargs="+", help='cardsim arguments, one quoted string per command')
    args = parser.parse_args()
    with old_worktree(args.old) as (work, old_env):
        for command in args.commands:
            argv = command.split()
            caches = {"old": tempfile.mkdtemp(dir=work), "new": tempfile.mkdtemp(dir=work)}
            for env, side in ((old_env, "old"), ({}, "new")):  # fill each cache
                run(argv, env, caches[side])
            outputs: dict[str, str] = {}

            def measure(env: dict[str, str]) -> float:
                side = "old" if env else "new"  # alternate() passes the old commit's environment or {}
                seconds, outputs[side] = run(argv, env, caches[side])
                return seconds

            old, new = alternate(args.rounds, old_env, measure)
            fmt = lambda ts: " ".join(f"{t:.2f}" for t in ts)  # noqa: E731
            same = "same results" if outputs["old"] == outputs["new"] else "RESULTS DIFFER"
            print(f"{command}\n  old {fmt(old)}  new {fmt(new)}  new/old {sum(new) / sum(old):.2f}  {same}",
                  flush=True)


if __name__ == "__main__":
    main()
