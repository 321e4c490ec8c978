"""Cold start: every command's first run on a fresh install (empty Numba cache) and its
second run (warm cache), wall-clock seconds, one process per run.

    python benchmarks/bench_cold_start.py [--only play] [--games tienlen,tusac] [--no-source]
                                          [--after-compile | --in-order]

The first run gets the kernels the command needs from the kernels shipped precompiled
(:mod:`cardsim.simcore.kernel_store`: machine code generated for this CPU) and writes
them to Numba's cache (``NUMBA_CACHE_DIR``, here a fresh temporary folder per command so
that every command is measured cold); the second run loads them from there. The third
column is the first run with the store switched off (``CARDSIM_KERNEL_STORE=0``): every
kernel compiled from its source, as after editing a kernel or with another Numba version
(``--no-source`` leaves it out). Also prints the CLI's own overhead
(``cardsim --help`` and ``cardsim games``). ``--after-compile`` times instead, per game,
``cardsim compile GAME`` on an empty cache and then each command's first run after it.
``--in-order`` times, per game on one fresh cache, each command's first run in the order
above (deal, play, play with a search seat, replay), as a new user trying them one after
the other meets them: a command reuses the kernels an earlier one compiled with the same
signatures (a search run recompiles only the game loop and the search).
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
    return out


def timed(args: list[str], cache: str, parallel: bool = True, store: bool = True) -> float:
    # both caches fresh per command: Numba's kernels and cardsim's exact-value cache
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, CARDSIM_CACHE_DIR=cache + "-exact",
               CARDSIM_PARALLEL_COMPILE="1" if parallel else "0", CARDSIM_KERNEL_STORE="1" if store else "0")
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
    parser.add_argument("--games", default="tienlen,tusac,loba,continental")
    parser.add_argument("--only", default="", help="run only commands whose label contains this text")
    parser.add_argument("--serial", action="store_true", help="also time each first run compiled in one process")
    parser.add_argument("--no-source", action="store_true",
                        help="leave out the first runs that compile every kernel from source")
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
        status = subprocess.run([sys.executable, "-m", "cardsim.simcore.kernel_store", "status"],
                                capture_output=True, text=True).stdout.strip()
        print(status)
        print(f"{'command':28s} {'first run (cold)':>17s} {'second run':>11s}"
              + ("" if args.no_source else f" {'cold, from source':>18s}")
              + (f" {'source, one process':>20s}" if args.serial else ""))
        for label, cmd in commands(args.games.split(","), work):
            if args.only and args.only not in label:
                continue
            cache = str(work / label.replace(" ", "_"))
            cold = timed(cmd, cache)
            warm = timed(cmd, cache)
            line = f"{label:28s} {cold:15.1f} s {warm:9.1f} s"
            if not args.no_source:
                line += f" {timed(cmd, cache + '-source', store=False):16.1f} s"
            if args.serial:
                line += f" {timed(cmd, cache + '-serial', parallel=False, store=False):18.1f} s"
            print(line, flush=True)


if __name__ == "__main__":
    main()
