"""Paired differences of a saved ladder: candidates against each other, on the same deals.

    .venv/bin/python benchmarks/paired_ladder.py DIR [DIR ...] [--pair A,B ...] [--metric win|points|score] [--pool]

``DIR`` is a ``cardsim ladder ... --out DIR`` folder. Each candidate played every seat of
the same deals against the field, so its value per (seat, deal) pairs with any other
candidate's. Without ``--pair``: every candidate against the heuristic (when it played),
and ``search:64`` against ``search-plain:64`` when both played; else each candidate against
the one listed before it. The mean difference A - B with its 95% interval and z, as
``bench_strength.py`` prints them. ``--metric points`` pairs the points (in the rummy
games penalty points per match: lower is better) instead of the win indicator.
``--pool`` pools the pairs of every ``DIR`` (ladders of the same policies on different
seeds: independent deals) into one figure.
"""
from __future__ import annotations

import argparse

import pandas as pd

from bench_strength import paired


def default_pairs(policies: list[str]) -> list[tuple[str, str]]:
    """Every policy against the heuristic (plus search:64 - search-plain:64), else consecutive pairs."""
    if "heuristic" in policies:
        pairs = [(p, "heuristic") for p in policies if p != "heuristic"]
        if "search:64" in policies and "search-plain:64" in policies:
            pairs.append(("search:64", "search-plain:64"))
        return pairs
    return list(zip(policies[1:], policies[:-1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+", help="cardsim ladder --out folders")
    ap.add_argument("--pair", action="append", default=[], help="A,B: print A - B (repeatable)")
    ap.add_argument("--metric", default="win", choices=("win", "points", "score"))
    ap.add_argument("--pool", action="store_true", help="pool the pairs of every DIR (different seeds)")
    args = ap.parse_args()
    frames = [pd.read_parquet(f"{path}/games.parquet") for path in args.dirs]
    if args.pool:
        frames = [pd.concat([f.assign(game=f["game"] + i * 10**9) for i, f in enumerate(frames)], ignore_index=True)]
        args.dirs = [" + ".join(args.dirs)]
    for path, games in zip(args.dirs, frames):
        values = {p: g.sort_values(["seat", "game"])[args.metric].to_numpy(float)
                  for p, g in games.groupby("policy", observed=True)}
        order = [p for p in dict.fromkeys(games["policy"].astype(str)) if p in values]
        pairs = [tuple(x.split(",")) for x in args.pair] or default_pairs(order)
        print(f"{path} ({args.metric})")
        for a, b in pairs:
            d, lo, hi, z = paired(values[a], values[b])
            print(f"  {a} - {b}: {d:+.3f} [{lo:+.3f}, {hi:+.3f}] z {z:+.1f} (pairs {len(values[a]):,})")


if __name__ == "__main__":
    main()
