"""Cold start: every command's first run on a fresh install (empty Numba cache) and its
second run (warm cache), wall-clock seconds, one process per run; then ``cardsim compile``
of every game on an empty cache.

    python benchmarks/bench_cold_start.py [--only play] [--games tienlen,tusac] [--no-compile]
                                          [--after-compile | --in-order]

Each command gets a fresh temporary ``NUMBA_CACHE_DIR`` (and cardsim cache folder), so every
first run compiles every kernel it needs from source, as after installing or upgrading.
Also prints the CLI's own overhead (``cardsim --help`` and ``cardsim games``).
``--after-compile`` times instead, per game, ``cardsim compile GAME`` on an empty cache and
then each command's first run after it. ``--in-order`` times, per game on one fresh cache,
each command's first run in the order above (deal, play, play with a search seat, replay),
as a new user trying them one after the other meets them.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CARDSIM = [sys.executable, "-m", "cardsim.cli.main"]


def commands(games: list[str], work: Path) -> list[tuple[str, list[str]]]:
    out = []
    for game in games:
        out.append((f"deal {game}", ["deal", game, "--deals", "20000", "--seed", "1", "--quiet"]))
        n = "20" if game in ("loba", "continental") else "200"
        out.append((f"play {game}", ["play", game, "--games", n, "--seed", "1", "--quiet"]))
        out.append((f"play {game} search", ["play", game, "--games", "2", "--seed", "1", "--quiet",
                                            "--policy", "0=search:4"]))
        out.append((f"replay {game}", ["replay", game, "--seed", "1", "--index", "0"]))
    out.append(("exact tienlen", ["exact", "tienlen"]))
    # the study commands, each on a small question (their first run compiles what play compiles, and more)
    small = ["--seed", "1", "--quiet"]
    out.append(("ladder tienlen", ["ladder", "tienlen", "--policies", "random,heuristic", "--games", "200", *small]))
    out.append(("balance tienlen", ["balance", "tienlen", "--policies", "random,heuristic", "--games", "200", *small]))
    out.append(("tune tienlen", ["tune", "tienlen", "--switch", "pass_resets=off,on", "--objective", "seat_gap",
                                 "--budget", "4000", *small]))
    out.append(("plan tienlen", ["plan", "tienlen", "--effect", "0.02", "--seed", "1"]))
    out.append(("train tienlen", ["train", "tienlen", "--games", "160000", "--out", str(work / "model.txt"),
                                  "--overwrite", *small]))
    return out


#: The issue's cold-start targets, seconds of wall time for a first run: deal <= 10 s, others <= 30 s.
def target(label: str) -> float:
    return 10.0 if label.startswith("deal ") else 30.0


def timed(args: list[str], cache: str) -> float:
    # both caches fresh per command: Numba's kernels and cardsim's exact-value cache
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, CARDSIM_CACHE_DIR=cache + "-exact")
    start = time.perf_counter()
    proc = subprocess.run(CARDSIM + args, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"cardsim {' '.join(args)} failed: {proc.stderr.strip()}")
    return elapsed


def per_game(games: list[str], only: str, compile_first: bool) -> None:
    """Per game, one fresh cache: ``cardsim compile GAME`` first when ``compile_first``
    (``--after-compile``), then each command's first run, one after the other."""
    heading = "first run after compile" if compile_first else "first run, in order"
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        print(f"{'command':28s} {heading:>24s}")
        for game in games:
            cache = str(work / game)
            if compile_first:
                print(f"{'compile ' + game:28s} {timed(['compile', game, '--quiet'], cache):22.1f} s", flush=True)
            for label, cmd in commands([game], work):
                if game in label and (not only or only in label):
                    print(f"{label:28s} {timed(cmd, cache):22.1f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="tienlen,tusac,loba,continental,bigtwo")
    parser.add_argument("--only", default="", help="run only commands whose label contains this text")
    parser.add_argument("--no-compile", action="store_true", help="leave out `cardsim compile` of all games")
    parser.add_argument("--after-compile", action="store_true",
                        help="per game: `cardsim compile GAME` cold, then each command's first run")
    parser.add_argument("--in-order", action="store_true",
                        help="per game, one cache: each command's first run after the ones before it")
    args = parser.parse_args()
    if args.in_order or args.after_compile:
        return per_game(args.games.split(","), args.only, compile_first=args.after_compile)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        overhead = [timed(["--help"], str(work / "h")), timed(["games"], str(work / "h"))]
        print(f"CLI overhead: --help {overhead[0]:.2f} s, games {overhead[1]:.2f} s")
        print(f"{'command':28s} {'first run (cold)':>17s} {'second run':>11s}  target")
        for label, cmd in commands(args.games.split(","), work):
            if args.only and args.only not in label:
                continue
            cache = str(work / label.replace(" ", "_"))
            cold = timed(cmd, cache)
            warm = timed(cmd, cache)
            verdict = "holds" if cold <= target(label) else "MISSED"
            print(f"{label:28s} {cold:15.1f} s {warm:9.1f} s  <= {target(label):.0f} s {verdict}", flush=True)
        if not args.no_compile and not args.only:
            took = timed(["compile", *args.games.split(","), "--quiet"], str(work / "compile-all"))
            print(f"{'compile ' + args.games:28s} {took:15.1f} s (empty cache, {os.cpu_count()} processes)")


if __name__ == "__main__":
    main()
