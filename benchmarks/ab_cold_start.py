"""First-run (cold) time of some commands, this checkout against an older commit, the two
alternating in one session (this machine's speed drifts by tens of percent over hours, so
only runs made side by side compare).

    python benchmarks/ab_cold_start.py --old 8cce233 [--rounds 2] [--only search]

The older commit is checked out into a temporary git worktree and imported instead of this
checkout (a ``sitecustomize`` on ``PYTHONPATH`` hides the editable install, also from the
helper process a first run starts). Every run gets an empty ``NUMBA_CACHE_DIR``. Prints
each command's wall-clock seconds per round, both ways, and the median ratio new/old.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

COMMANDS = [
    ("play tienlen", ["play", "tienlen", "--games", "200", "--seed", "1", "--quiet"]),
    ("replay tienlen", ["replay", "tienlen", "--seed", "1", "--index", "0"]),
    ("play tienlen search", ["play", "tienlen", "--games", "2", "--seed", "1", "--quiet", "--policy", "0=search:4"]),
    ("play tusac", ["play", "tusac", "--games", "200", "--seed", "1", "--quiet"]),
    ("play tusac search", ["play", "tusac", "--games", "2", "--seed", "1", "--quiet", "--policy", "0=search:4"]),
    ("play loba", ["play", "loba", "--games", "20", "--seed", "1", "--quiet"]),
    ("play loba search", ["play", "loba", "--games", "2", "--seed", "1", "--quiet", "--policy", "0=search:4"]),
    ("play continental", ["play", "continental", "--games", "20", "--seed", "1", "--quiet"]),
    ("play continental search", ["play", "continental", "--games", "2", "--seed", "1", "--quiet",
                                 "--policy", "0=search:4"]),
    ("replay continental", ["replay", "continental", "--seed", "1", "--index", "0"]),
]

HIDE_EDITABLE = ("import sys\n"
                 "sys.meta_path[:] = [f for f in sys.meta_path if '__editable__' not in repr(f)]\n")


def old_checkout(rev: str, work: Path) -> dict[str, str]:
    """A worktree of ``rev`` importable as ``cardsim``: the environment that selects it."""
    tree = work / "tree"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(tree), rev], check=True)
    path = work / "path"
    path.mkdir()
    (path / "cardsim").symlink_to(tree)
    (path / "sitecustomize.py").write_text(HIDE_EDITABLE)
    return {"PYTHONPATH": str(path)}


def timed(args: list[str], extra_env: dict[str, str], work: Path) -> float:
    cache = tempfile.mkdtemp(dir=work)
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, CARDSIM_CACHE_DIR=cache + "-exact", **extra_env)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "cardsim.cli.main", *args], env=env, capture_output=True,
                          text=True, cwd=work)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"cardsim {' '.join(args)} failed: {proc.stderr.strip()}")
    return elapsed


@contextlib.contextmanager
def old_worktree(rev: str):
    """A temporary folder and, in it, a worktree of ``rev`` importable as ``cardsim``:
    yields ``(folder, environment that selects the worktree)``; removes both afterwards."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        old_env = old_checkout(rev, work)
        try:
            yield work, old_env
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(work / "tree")], check=False)


def alternate(rounds: int, old_env: dict[str, str], measure) -> tuple[list[float], list[float]]:
    """``measure(env)`` ``rounds`` times with the older commit (``old_env``) and with this
    checkout (``{}``), alternating, the order flipped every round: ``(old, new)``."""
    old, new = [], []
    for r in range(rounds):
        pair = [(old, old_env), (new, {})] if r % 2 == 0 else [(new, {}), (old, old_env)]
        for out, env in pair:
            out.append(measure(env))
    return old, new


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True, help="the older commit (any git revision)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--only", default="", help="run only commands whose label contains this text")
    args = parser.parse_args()
    with old_worktree(args.old) as (work, old_env):
        print(f"{'command':26s} {'old (s)':>14s} {'new (s)':>14s} {'new/old':>8s}")
        for label, cmd in COMMANDS:
            if args.only and args.only not in label:
                continue
            old, new = alternate(args.rounds, old_env, lambda env: timed(cmd, env, work))
            ratio = statistics.median(n / o for n, o in zip(new, old))
            print(f"{label:26s} {' '.join(f'{t:6.1f}' for t in old):>14s} "
                  f"{' '.join(f'{t:6.1f}' for t in new):>14s} {ratio:8.2f}", flush=True)


if __name__ == "__main__":
    main()
