"""Warm wall-clock seconds of whole commands, this checkout against another one side by side.

    python benchmarks/bench_warm_commands.py [--other PATH] [--rounds 3]

Each command runs once to fill the cache, then ``--rounds`` times alternating between the
trees; the best time of each is printed with the ratio (this / other). ``--other`` is a
checkout of an earlier release (``git worktree add ../before REV``), run with this
checkout's Python from its own folder; without it only this checkout is timed.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

COMMANDS = [
    "deal tienlen --deals 20M --seed 1 --quiet",
    "deal tusac --deals 2M --seed 1 --quiet",
    "play tienlen --games 200000 --seed 1 --quiet",
    "play tusac --games 50000 --seed 1 --quiet",
    "play loba --games 1000 --seed 1 --quiet",
    "play continental --games 1000 --seed 1 --quiet",
    "play tienlen --games 2000 --seed 1 --quiet --policy 0=search:64",
    "play loba --games 10 --seed 1 --quiet --policy 0=search:64",
]


def timed(tree: Path, command: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "cardsim", *command.split()], cwd=tree, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", type=Path, help="another checkout to compare against")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    here = Path(__file__).resolve().parents[1]
    trees = [here] + ([args.other.resolve()] if args.other else [])
    print(f"{'command':62s} " + " ".join(f"{'this' if t == here else 'other':>8s}" for t in trees)
          + ("   ratio" if len(trees) == 2 else ""))
    for command in COMMANDS:
        for tree in trees:
            timed(tree, command)  # fills the cache
        best = [min(timed(tree, command) for _ in range(args.rounds)) for tree in trees]
        line = f"{command:62s} " + " ".join(f"{b:7.2f}s" for b in best)
        if len(best) == 2:
            line += f"   {best[0] / best[1]:5.2f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
