"""Warm wall-clock seconds of whole commands, this checkout against another one side by side.

    python benchmarks/bench_warm_commands.py [--other PATH] [--rounds 3] [--only TEXT]

Each command runs once to fill the cache, then ``--rounds`` times alternating between the
trees; the best time of each is printed with the ratio (this / other). ``--other`` is a
checkout of an earlier release (``git worktree add ../before REV``), run with this
checkout's Python from its own folder; without it only this checkout is timed.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
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


def import_path(tree: Path, work: Path) -> dict:
    """The environment that imports ``cardsim`` from ``tree``: a folder ``work/cardsim``
    holding links to ``tree``'s ``cardsim/`` files and its ``simcore``, ``cli`` and
    ``analysis`` folders (the layout an install gives), first on ``PYTHONPATH`` and the
    working folder (the editable install maps ``cardsim`` to this checkout otherwise)."""
    package = work / "cardsim"
    if not package.exists():
        package.mkdir(parents=True)
        for item in (tree / "cardsim").iterdir():
            if item.suffix == ".py":
                (package / item.name).symlink_to(item)
        for folder in ("simcore", "cli", "analysis"):
            (package / folder).symlink_to(tree / folder, target_is_directory=True)
    return {**os.environ, "PYTHONPATH": str(work)}


def timed(tree: Path, command: str, env: dict) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "cardsim", *command.split()], cwd=env["PYTHONPATH"], check=True, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", type=Path, help="another checkout to compare against")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default="", help="time only the commands containing this text")
    args = parser.parse_args()
    here = Path(__file__).resolve().parents[1]
    trees = [here] + ([args.other.resolve()] if args.other else [])
    work = Path(tempfile.mkdtemp(prefix="cardsim-trees-"))
    envs = {tree: import_path(tree, work / str(i)) for i, tree in enumerate(trees)}
    print(f"{'command':62s} " + " ".join(f"{'this' if t == here else 'other':>8s}" for t in trees)
          + ("   ratio" if len(trees) == 2 else ""))
    for command in [c for c in COMMANDS if args.only in c]:
        for tree in trees:
            timed(tree, command, envs[tree])  # fills the cache
        best = [min(timed(tree, command, envs[tree]) for _ in range(args.rounds)) for tree in trees]
        line = f"{command:62s} " + " ".join(f"{b:7.2f}s" for b in best)
        if len(best) == 2:
            line += f"   {best[0] / best[1]:5.2f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
