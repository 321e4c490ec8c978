"""Per-game metric columns of each (game, task), for experiments and reports.

The metric functions are declared by each game in its
:class:`~cardsim.simcore.framework.spec.GameSpec` (``metrics``); this module looks them up.
A metric function takes one part of a run's per-game table (a DataFrame) and returns
a DataFrame with one row per game, indexed like the input, of numeric columns: 0/1
indicators (their mean is a rate) or quantities (points, lengths). Experiments compare
the same metric between arms game by game.
"""
from __future__ import annotations

from cardsim.simcore.framework.registry import get_spec


def metric_spec(game: str, task: str):
    """``(table, function, required options)`` for a (game, task), or ConfigError."""
    spec = get_spec(game).metric_spec(task)
    return spec.table, spec.function, dict(spec.required_options)
