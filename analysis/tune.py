"""The figures of a ``cardsim tune`` race: each candidate's objectives and constraints
per bootstrap row, and the ranked table of candidates with 95% intervals."""
from __future__ import annotations

import numpy as np
import pandas as pd

from cardsim.analysis.balance import Figure, figure_interval, weighted_mean, bootstrap_weights, figures

CANDIDATE_COLUMNS = ["rank", "candidate", "status", "round_out", "deals", "pareto"]


def metric_names(play, metric_frame: pd.DataFrame, strength: str) -> list[str]:
    """Every name an objective may use: balance figures (``metric`` or ``metric@group``)
    at ``strength`` or over the ladder, and the per-game play metrics."""
    weights = np.ones((1, metric_frame.shape[0]))
    names = []
    for f in figures(play, weights):
        if f.strength in (strength, "all"):
            names += [f.metric, f"{f.metric}@{f.group}"]
    return list(dict.fromkeys(names + list(metric_frame.columns)))


def metric_values(play, metric_frame: pd.DataFrame, weights: np.ndarray, names: list[str],
                  strength: str) -> dict[str, Figure]:
    """``{name: Figure}`` for each requested name (see :func:`metric_names`); a figure's
    ``values`` are float[R], one per weight row.

    A bare balance metric with several groups at the strength (``win_rate``: one per
    seat) is ambiguous and refused with the groups to choose from.
    """
    from cardsim.simcore.framework.config import ConfigError

    found = {}
    items = [f for f in figures(play, weights) if f.strength in (strength, "all")]
    for name in names:
        metric, _, group = name.partition("@")
        matches = [f for f in items if f.metric == metric and (not group or f.group == group)]
        if len(matches) == 1:
            found[name] = matches[0]
        elif len(matches) > 1:
            groups = ", ".join(f"{metric}@{f.group}" for f in matches)
            raise ConfigError(f"'{name}' has several groups: choose one of {groups}")
        elif name in metric_frame.columns:
            x = metric_frame[name].to_numpy(float)
            found[name] = Figure(name, "table", strength, "", x.size, weighted_mean(weights, x), "mean", per_deal=x)
        else:
            known = ", ".join(dict.fromkeys(f.metric for f in items))
            raise ConfigError(f"unknown metric '{name}' (balance figures: {known}; or a play metric: "
                              f"{', '.join(metric_frame.columns)})")
    return found


def estimates(config, states, weights: np.ndarray) -> dict[str, np.ndarray]:
    """Every objective's and constraint's values: ``{metric: float[candidates, R]}``."""
    from cardsim.simcore.study.tune import candidate_play

    names = list(dict.fromkeys([o.metric for o in config.objectives] + [c.metric for c in config.constraints]))
    per = []
    for s in states:
        play, metrics = candidate_play(config, s)
        per.append(metric_values(play, metrics, weights, names, config.policies[0]))
    return {name: np.stack([p[name].values for p in per]) for name in names}


def candidate_table(config, states) -> pd.DataFrame:
    """One row per candidate, best first: its switch values, status, the round it left the
    race and why, deals played, each objective and constraint with its 95% interval over
    its own deals (as in the balance card) and its ``NAME_ess_factor`` (1: not adjusted by
    the deal's controls), and ``pareto`` (survivors no other survivor
    beats on every objective, by estimate)."""
    from cardsim.simcore.study.tune import _name, candidate_play

    names = list(dict.fromkeys([o.metric for o in config.objectives] + [c.metric for c in config.constraints]))
    rows = []
    for s in states:
        play, metrics = candidate_play(config, s)
        values = metric_values(play, metrics, bootstrap_weights(s.deals, config.seed, 1000), names,
                               config.policies[0])
        row = {"candidate": _name(s.values), **s.values, "status": s.status,
               "round_out": s.round_out if s.round_out is not None else -1, "deals": s.deals, "reason": s.reason}
        for name in names:  # each figure's own interval, as the balance card gives it
            low, high = figure_interval(values[name])
            row.update({name: float(values[name].values[0]), f"{name}_ci_low": low, f"{name}_ci_high": high,
                        f"{name}_ess_factor": float(values[name].ess_factor)})
        rows.append(row)
    table = pd.DataFrame(rows)
    first = config.objectives[0]
    order = {"racing": 0, "identical": 1, "eliminated": 2, "infeasible": 3}
    table["_status"] = table["status"].map(order)
    table["_value"] = table[first.metric] * (1 if first.sense == "min" else -1)
    table["_out"] = -table["round_out"]
    table = table.sort_values(["_status", "_out", "_value"], kind="stable").drop(columns=["_status", "_value", "_out"])
    signs = {o.metric: (1.0 if o.sense == "min" else -1.0) for o in config.objectives}
    racing = table[table["status"] == "racing"]
    pareto = []
    for _, r in table.iterrows():
        if r["status"] != "racing":
            pareto.append(False)
            continue
        dominated = any(all(signs[m] * q[m] <= signs[m] * r[m] for m in signs) and
                        any(signs[m] * q[m] < signs[m] * r[m] for m in signs)
                        for _, q in racing.iterrows() if q["candidate"] != r["candidate"])
        pareto.append(not dominated)
    table["pareto"] = pareto
    table.insert(0, "rank", np.arange(1, len(table) + 1))
    return table.reset_index(drop=True)


__all__ = ["estimates", "candidate_table", "metric_values", "metric_names"]
