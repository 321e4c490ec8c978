"""What a game reports to the balance card: per-game outcomes in one typed record.

Each game's ``summary.py`` has ``balance_outcomes(tables, rules) -> BalanceOutcomes``
(named by its :class:`~cardsim.simcore.framework.spec.GameSpec` ``balance`` field): the
games of one chunk of a ``play`` run, in game order, reduced to the few arrays the card
needs (:mod:`cardsim.simcore.study.balance` plays the tables, :mod:`cardsim.analysis.balance`
computes the figures).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np


@dataclass(frozen=True)
class BalanceOutcomes:
    """Per-game outcomes of ``G`` games with ``P`` seats.

    Attributes
    ----------
    game : int64[G]
        The game index (the deal's address: same index, same deal, in every table).
    win : float64[G, P]
        1 where the seat won the game (the match, in the rummy games), else 0.
    points : float64[G, P]
        The seat's points (penalty points in the rummy games: see ``points_lower_is_better``).
    length : float64[G]
        The game's length in ``length_unit`` (tricks, turns).
    no_winner : float64[G]
        1 for a game nobody won (a draw, a capped game); the rummy games give the fraction
        of the match's rounds nobody went out in (``no_winner_group`` ``rounds``).
    roles : mapping of str to bool[G, P]
        Game-specific roles: which seat held the role in each game (``leads first``,
        ``dealer``, ``first to play``).
    comebacks : mapping of str to float64[G]
        1 where the eventual winner was not leading at that point of the game, 0 where it
        was, NaN where the game has no such point (empty when the game records no progress).
    controls : float64[G, P, k] or None
        Each seat's own control features of the game (the deal's features and, at tables
        with a costly seat, the heuristic twin: :func:`cardsim.analysis.variance.table_control`),
        centred at their expectation; None when variance reduction is off or the game has none.
    control_fold : int64[G] or None
        The cross-fitting fold of each game (whole matches in Tiến Lên).
    control_mean_cov : float64[P*k, P*k] or None
        The covariance of the features' estimated expectation (seat-major; None: exact).
    """

    game: np.ndarray
    win: np.ndarray
    points: np.ndarray
    length: np.ndarray
    no_winner: np.ndarray
    length_unit: str
    points_lower_is_better: bool = False
    no_winner_group: str = "table"
    roles: Mapping[str, np.ndarray] = field(default_factory=dict)
    comebacks: Mapping[str, np.ndarray] = field(default_factory=dict)
    controls: np.ndarray | None = None
    control_fold: np.ndarray | None = None
    control_mean_cov: np.ndarray | None = None
