"""Print the strength tables of docs/results.md from finished strength experiments.

    python experiments/strength_tables.py runs/experiments/strength_tusac_steals [METRIC ...]

One row per (metric, arm, strength): the paired difference with its 95% interval, then
the robustness verdict of each (metric, arm).
"""
from __future__ import annotations

import sys

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
    for r in robustness(table).itertuples(index=False):
        print(f"{r.metric} / {r.arm}: {r.verdict}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
