"""Issue 51's targets: games needed for the same half-width, plain against adjusted.

For each target one run (or a baseline and an arm on the same deals), its summary with
variance reduction on and off, and the effective sample-size factor ``ess`` (plain
variance over adjusted variance: the adjusted estimate from ``n`` games is as precise
as the plain one from ``ess x n``). Games needed for the half-width ``--half-width``:
``(1.96 sd / h)^2`` with the plain and the adjusted standard deviation.

Targets (issue 51):

* Tiến Lên seat win rates with every seat ``search:64``;
* the Tứ Sắc steal effect (``steals=on`` against ``off``) with every seat ``search:64``;
* Loba and Continental seat match-win rates with one ``search`` seat among heuristics
  (the balance card's one-seat table).

    python benchmarks/bench_variance_targets.py [--quick]

Prints one line per target: the run, its size and wall time, the plain and adjusted
intervals' half-widths, the factor and the games needed both ways.
"""
from __future__ import annotations

import argparse
import math
import tempfile
import time
from pathlib import Path

import cardsim
from cardsim import analysis
from cardsim.analysis.compare import compare
from cardsim.analysis.variance import variance_reduction


def _half(row) -> float:
    return (row["ci_high"] - row["ci_low"]) / 2


def _games_for(n: int, half: float, target: float) -> int:
    return math.ceil(n * (half / target) ** 2)


def seat_rows(path, metric: str, seat_label: str):
    with variance_reduction(True):
        adjusted = analysis.summary(path).set_index(["metric", "group"])
    with variance_reduction(False):
        plain = analysis.summary(path).set_index(["metric", "group"])
    key = next(k for k in adjusted.index if k[0] == metric and k[1].startswith(seat_label))
    return plain.loc[key], adjusted.loc[key], key


def report(name: str, n: int, seconds: float, plain, adjusted, target: float) -> None:
    hp, ha = _half(plain), _half(adjusted)
    print(f"{name}: n={n:,} in {seconds:.0f} s; ±{hp:.4f} plain, ±{ha:.4f} adjusted; ess {adjusted['ess_factor']:.2f}; "
          f"games for ±{target}: {_games_for(n, hp, target):,} plain, {_games_for(n, ha, target):,} adjusted",
          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the games (a smoke run)")
    parser.add_argument("--seed", type=int, default=51)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--rummy-search", default="search:4", help="the rummy tables' search seat")
    args = parser.parse_args()
    scale = 0.1 if args.quick else 1.0
    work = Path(tempfile.mkdtemp(prefix="cardsim-vr-targets-"))

    def count(n: int) -> int:
        return max(100, int(n * scale))

    # Tiến Lên: every seat search:64
    n = count(4000)
    started = time.perf_counter()
    cardsim.play("tienlen", n, seed=args.seed, policy="search:64", threads=args.threads, progress=False,
                 out=work / "tienlen")
    seconds = time.perf_counter() - started
    for seat in range(4):
        plain, adjusted, _ = seat_rows(work / "tienlen", "win_rate", f"seat {seat}")
        report(f"tienlen search:64 win_rate seat {seat}", n, seconds, plain, adjusted, 0.01)

    # Tứ Sắc: the steal effect at search:64 (paired by deal)
    n = count(1000)
    started = time.perf_counter()
    for arm, steals in (("on", "on"), ("off", "off")):
        cardsim.play("tusac", n, seed=args.seed, policy="search:64", rules={"steals": steals}, threads=args.threads,
                     progress=False, out=work / f"tusac-{arm}", chunk_size=n)
    seconds = time.perf_counter() - started
    with variance_reduction(True):
        adjusted = compare(work / "tusac-on", {"off": work / "tusac-off"}).set_index("metric")
    with variance_reduction(False):
        plain = compare(work / "tusac-on", {"off": work / "tusac-off"}).set_index("metric")
    for metric in ("win_seat_0", "points_seat_0"):
        report(f"tusac search:64 steals off - on, {metric}", n, seconds, plain.loc[metric], adjusted.loc[metric],
               0.01 if metric.startswith("win") else 0.5)
    plain_row, adjusted_row, _ = seat_rows(work / "tusac-on", "win_rate", "seat 0")
    report("tusac search:64 win_rate seat 0 (steals on)", n, seconds, plain_row, adjusted_row, 0.01)

    # Loba and Continental: one search seat among heuristics (the balance card's table)
    for game, size in (("loba", 600), ("continental", 600)):
        n = count(size)
        started = time.perf_counter()
        cardsim.play(game, n, seed=args.seed, policy=f"0={args.rummy_search}", threads=args.threads, progress=False,
                     out=work / game)
        seconds = time.perf_counter() - started
        for seat in range(2):
            plain, adjusted, key = seat_rows(work / game, "match_win_rate", f"seat {seat}")
            report(f"{game} {key[1]} match_win_rate", n, seconds, plain, adjusted, 0.02)
    print(f"(runs kept in {work})")


if __name__ == "__main__":
    main()
