"""Print the strength tables of docs/results.md from finished strength experiments.

    python experiments/strength_tables.py runs/experiments/strength_tusac_steals [METRIC ...]

One row per (metric, arm, strength): the paired difference with its 95% interval, then
the robustness verdict of each (metric, arm): the paired strength x arm interaction test
(``interaction.parquet``, as ``cardsim experiment`` prints it), or for an older folder
without it the comparison of the per-strength intervals.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from cardsim.analysis.compare import load_comparison, robustness


def main(path: str, metrics: list[str]) -> None:
    table = load_comparison(path)
    if metrics:
        table = table[table["metric"].isin(metrics)]
    print(f"{'metric':26s} {'arm':18s} {'strength':12s} {'baseline':>9s} {'arm':>9s} {'difference':>11s}  95% CI (paired)")
    for r in table.itertuples(index=False):
        print(f"{r.metric:26s} {r.arm:18s} {r.strength:12s} {r.baseline:9.4f} {r.value:9.4f} {r.difference:+11.4f}  "
              f"[{r.ci_low:+.4f}, {r.ci_high:+.4f}]")
    print()
    file = Path(path) / "interaction.parquet"
    interactions = pd.read_parquet(file) if file.is_file() else None
    if interactions is not None and metrics:
        interactions = interactions[interactions["metric"].isin(metrics)]
    for r in robustness(table, interactions).itertuples(index=False):
        print(f"{r.metric} / {r.arm}: {r.verdict}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
