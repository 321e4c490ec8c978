"""Paired comparison of experiment arms, streamed chunk by chunk."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from cardsim.analysis.metrics import metric_spec
from cardsim.analysis.stats import PairedMoments
from cardsim.simcore.config import ConfigError
from cardsim.simcore.output import Dataset

COMPARISON_COLUMNS = ["metric", "arm", "n", "baseline", "value", "difference", "ci_low", "ci_high",
                      "unpaired_ci_low", "unpaired_ci_high", "se_ratio"]

_INDEX_COLUMNS = ("game", "deal")


def _aligned_parts(baseline: Dataset, arm: Dataset, table: str):
    base_parts, arm_parts = baseline.parts(table), arm.parts(table)
    if [p.name for p in base_parts] != [p.name for p in arm_parts]:
        raise ConfigError(f"{arm.path} and {baseline.path} were not chunked alike: cannot pair games")
    for base_part, arm_part in zip(base_parts, arm_parts):
        a = pd.read_parquet(base_part)
        b = pd.read_parquet(arm_part)
        key = next((c for c in _INDEX_COLUMNS if c in a.columns), None)
        if key is not None:
            a = a.sort_values(key).reset_index(drop=True)
            b = b.sort_values(key).reset_index(drop=True)
            if not np.array_equal(a[key].to_numpy(), b[key].to_numpy()):
                raise ConfigError(f"{arm.path} and {baseline.path} hold different games: cannot pair them")
        yield a, b


def compare(baseline_path: str | os.PathLike, arm_paths: dict[str, str | os.PathLike]) -> pd.DataFrame:
    """Compare each arm with the baseline, metric by metric, on the same games.

    Parameters
    ----------
    baseline_path : path
        Dataset of the baseline arm.
    arm_paths : dict
        ``{arm name: dataset path}``; each must share the baseline's game, task, seed,
        n and chunking (common random numbers: game ``i`` is the same deal in all).

    Returns
    -------
    DataFrame
        Columns ``metric, arm, n, baseline, value, difference, ci_low, ci_high,
        unpaired_ci_low, unpaired_ci_high, se_ratio``: 95% intervals of ``value -
        baseline`` paired game by game, the interval two independent runs would give,
        and the ratio of their standard errors (paired / unpaired).
    """
    baseline = Dataset(baseline_path)
    game, task = baseline.meta["game"], baseline.meta["task"]
    table, metric_fn, _ = metric_spec(game, task)
    rows = []
    for arm_name, arm_path in arm_paths.items():
        arm = Dataset(arm_path)
        for key in ("game", "task", "seed", "n", "chunk_size"):
            if arm.meta[key] != baseline.meta[key]:
                raise ConfigError(f"arm {arm_name} differs from the baseline in {key}: cannot pair games")
        moments: dict[str, PairedMoments] = {}
        for a, b in _aligned_parts(baseline, arm, table):
            ma, mb = metric_fn(a), metric_fn(b)
            for metric in ma.columns:
                if metric in mb.columns:
                    moments.setdefault(metric, PairedMoments()).add(ma[metric].to_numpy(), mb[metric].to_numpy())
        for metric, acc in moments.items():
            paired, unpaired = acc.paired(), acc.unpaired()
            rows.append({
                "metric": metric, "arm": arm_name, "n": acc.n, "baseline": acc.mean_a, "value": acc.mean_b,
                "difference": paired["difference"], "ci_low": paired["ci_low"], "ci_high": paired["ci_high"],
                "unpaired_ci_low": unpaired["ci_low"], "unpaired_ci_high": unpaired["ci_high"],
                "se_ratio": paired["se"] / unpaired["se"] if unpaired["se"] > 0 else float("nan"),
            })
    return pd.DataFrame(rows, columns=COMPARISON_COLUMNS)


def load_comparison(path: str | os.PathLike) -> pd.DataFrame:
    """The comparison table saved by ``cardsim experiment``."""
    file = Path(path) / "comparison.parquet"
    if not file.is_file():
        raise ConfigError(f"not an experiment directory (no comparison.parquet): {path}")
    return pd.read_parquet(file)
