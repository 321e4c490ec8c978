"""Paired differences of a saved ladder: every candidate against the heuristic, on the same deals.

    .venv/bin/python benchmarks/paired_ladder.py DIR [DIR ...]

``DIR`` is a ``cardsim ladder ... --out DIR`` folder. Each candidate played every seat of
the same deals against the field, so its win indicator per (seat, deal) pairs with the
heuristic's (and ``search:64`` with ``search-plain:64`` when both played): the mean
difference with its 95% interval and z, as ``bench_strength.py`` prints them.
"""
from __future__ import annotations

import sys

import pandas as pd

from bench_strength import paired


def main(paths: list[str]) -> None:
    for path in paths:
        games = pd.read_parquet(f"{path}/games.parquet")
        wins = {p: g.sort_values(["seat", "game"])["win"].to_numpy(float) for p, g in games.groupby("policy")}
        pairs = [(p, "heuristic") for p in wins if p != "heuristic"]
        if "search:64" in wins and "search-plain:64" in wins:
            pairs.append(("search:64", "search-plain:64"))
        print(path)
        for a, b in pairs:
            d, lo, hi, z = paired(wins[a], wins[b])
            print(f"  {a} - {b}: {d:+.3f} [{lo:+.3f}, {hi:+.3f}] z {z:+.1f} (pairs {len(wins[a]):,})")


if __name__ == "__main__":
    main(sys.argv[1:])
