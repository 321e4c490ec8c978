"""Warm CLI overhead: best-of-N wall-clock seconds of commands that do (almost) no work.

    python benchmarks/bench_cli_overhead.py [--repeat 5]

Each command runs in its own process after one untimed warm-up run (kernels compiled,
exact deal values cached), so the figures are what a user waits for on every call:
interpreter start, imports, argument parsing, and for ``deal`` loading the cached
kernels and exact values. Issue 12 asks for <= 0.7 s on the commands that run nothing
(``--help``, ``games``, ``rules``). Also prints which heavy libraries each command imports.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time

CARDSIM = [sys.executable, "-m", "cardsim.cli.main"]

COMMANDS = [
    ["--help"],
    ["games"],
    ["rules", "tienlen"],
    ["rules", "tusac"],
    ["rules", "loba"],
    ["exact", "tienlen"],
    ["deal", "tienlen", "--deals", "1000", "--seed", "1", "--json"],
    ["deal", "tusac", "--deals", "1000", "--seed", "1", "--json"],
]

HEAVY = ("numba", "pandas", "pyarrow", "matplotlib")

PROBE = ("import sys\nsys.argv = ['cardsim'] + sys.argv[1:]\n"
         "try:\n    from cardsim.cli.main import main\n    main(sys.argv[1:])\nfinally:\n"
         "    sys.stderr.write('HEAVY ' + ','.join(sorted({m.split('.')[0] for m in sys.modules} & set(%r))) + '\\n')\n"
         % (HEAVY,))


def best_time(args: list[str], repeat: int) -> float:
    subprocess.run(CARDSIM + args, capture_output=True, check=True)  # warm-up: compile, fill caches
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(CARDSIM + args, capture_output=True, check=True)
        best = min(best, time.perf_counter() - start)
    return best


def heavy_imports(args: list[str]) -> str:
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True)
    lines = [line for line in proc.stderr.splitlines() if line.startswith("HEAVY ")]
    return lines[-1][6:] if lines and lines[-1][6:] else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{'command':55s} {'best of ' + str(args.repeat):>10s}  heavy imports")
    for command in COMMANDS:
        print(f"{'cardsim ' + ' '.join(command):55s} {best_time(command, args.repeat):9.2f}s  {heavy_imports(command)}")


if __name__ == "__main__":
    main()
