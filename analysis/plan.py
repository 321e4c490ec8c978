"""How many games does a question need? A pilot run, then the sample sizes, plain and adjusted.

:func:`plan` plays a short pilot (seconds), measures one per-game metric's standard
deviation with and without the deal's control variates (:mod:`cardsim.analysis.variance`)
and the pilot's wall time per game, and returns the games (and the time on this
machine) needed for

* a 95% interval of half-width ``half_width`` (default: the effect): ``n = (1.96 sd / h)^2``;
* 80% power to detect ``effect`` at the 5% level (two-sided), for a single estimate
  against a known value, ``n = ((1.96 + 0.84) sd / effect)^2``, and for two independent
  arms (twice that per arm; paired arms on the same deals, as ``cardsim experiment``
  runs them, need at most this many and usually far fewer).

The adjusted row uses the measured ``ess_factor`` only where it is above 1 (the
summaries fall back to plain estimates otherwise). The pilot's standard deviation has
its own error (a few percent at 2000 games): treat the numbers as planning figures.
"""
from __future__ import annotations

import math
import time
from typing import Any, Mapping, Optional, Sequence

import numpy as np
import pandas as pd

from cardsim.simcore.framework.config import ConfigError
from cardsim.simcore.primitives.intervals import Z95

Z80 = 0.8416212335729143
#: Pilot games by game (quick policies); searching seats use a tenth, at least 10.
PILOT_GAMES = {"tienlen": 2000, "tusac": 2000, "loba": 30, "continental": 30}
PLAN_COLUMNS = ["estimator", "metric", "pilot_games", "value", "sd", "ess_factor", "half_width", "games_for_ci",
                "effect", "games_for_power", "games_per_arm_unpaired", "seconds_per_game", "hours_for_ci",
                "hours_for_power"]
_ALIASES = {"win_rate": "win", "match_win_rate": "win", "points": "points", "match_points": "points"}


def metric_column(metric: str, columns: Sequence[str]) -> tuple[str, int]:
    """The per-game column of ``metric`` (``win_rate@seat0`` -> ``win_seat_0``; ``turns``
    -> ``turns``) and the seat it belongs to (0 for game-level metrics)."""
    name, _, where = metric.partition("@")
    seat = 0
    if where:
        digits = where.removeprefix("seat").strip()
        if not digits.isdigit():
            raise ConfigError(f"--metric {metric!r}: the part after @ must be seatN (e.g. win_rate@seat0)")
        seat = int(digits)
        column = f"{_ALIASES.get(name, name)}_seat_{seat}"
    else:
        column = name
    if column not in columns:
        raise ConfigError(f"--metric {metric!r} is not a per-game metric of this game; choose from: "
                          + ", ".join(_spell(c) for c in columns))
    return column, seat


def _spell(column: str) -> str:
    """``win_seat_0`` -> ``win_rate@seat0`` (how --metric spells it)."""
    head, sep, seat = column.rpartition("_seat_")
    if not sep:
        return column
    return f"{'win_rate' if head == 'win' else head}@seat{seat}"


def _needed(sd: float, width: float) -> int:
    return max(1, math.ceil((sd / width) ** 2)) if width > 0 else 0


def plan(game: str, effect: float, metric: str = "win_rate@seat0", *, half_width: Optional[float] = None,
         policy: Optional[str | Sequence[str]] = None, rules: Optional[Mapping[str, Any]] = None,
         pilot_games: Optional[int] = None, seed: int = 1, threads: Optional[int] = None,
         progress: bool = False, **options: Any) -> pd.DataFrame:
    """Games needed for a question, from a pilot run: rows ``plain`` and ``adjusted``.

    Parameters
    ----------
    game : str
        ``tienlen``, ``tusac``, ``loba`` or ``continental``.
    effect : float
        The smallest effect worth detecting (e.g. ``0.02`` on a win rate).
    metric : str
        ``NAME@seatK`` (``win_rate@seat0``, ``points@seat2``) or a game-level per-game
        metric (``turns``, ``draw``, ``tricks``).
    half_width : float, optional
        Wanted 95% half-width (default: ``effect``).
    policy, rules, threads, **options
        As for :func:`cardsim.play`.
    pilot_games : int, optional
        Pilot size (default :data:`PILOT_GAMES`, a tenth with searching seats).

    Returns
    -------
    DataFrame
        :data:`PLAN_COLUMNS`, one row per estimator.
    """
    import cardsim
    from cardsim.analysis.metrics import metric_spec
    from cardsim.analysis.variance import cross_fitted, deal_control

    if not (isinstance(effect, (int, float)) and effect > 0 and math.isfinite(effect)):
        raise ConfigError(f"--effect must be a positive number, got {effect!r}")
    width = effect if half_width is None else half_width
    if not (isinstance(width, (int, float)) and width > 0 and math.isfinite(width)):
        raise ConfigError(f"--half-width must be a positive number, got {half_width!r}")
    if pilot_games is None:
        if game not in PILOT_GAMES:
            cardsim.api.resolve_rules(game, rules)  # the usual unknown-game error
        pilot_games = PILOT_GAMES.get(game, 200)
        text = policy if isinstance(policy, str) or policy is None else ",".join(policy)
        if text and any(word in text for word in ("search", "oracle")):
            pilot_games = max(10, pilot_games // 10)
    if not isinstance(pilot_games, int) or pilot_games < 10:
        raise ConfigError(f"--pilot must be an integer >= 10, got {pilot_games!r}")
    started = time.perf_counter()
    result = cardsim.play(game, pilot_games, seed=seed, rules=rules, policy=policy, threads=threads,
                          progress=progress, **options)
    seconds = (time.perf_counter() - started) / pilot_games
    meta = result.meta
    table, function, _ = metric_spec(game, "play")
    frame = result.tables[table]
    frame = frame.sort_values("game", kind="stable").reset_index(drop=True) if "game" in frame else frame
    values = function(frame)
    column, seat = metric_column(metric, list(values.columns))
    y = values[column].to_numpy(float)
    sd = float(np.std(y, ddof=1))
    if not sd > 0:
        raise ConfigError(f"--metric {metric!r} did not vary in the {pilot_games}-game pilot: "
                          "no sample size follows (try a larger --pilot)")
    ess = 1.0
    control = deal_control(dict(meta))
    if control is not None:
        seat %= control.players
        adjusted = cross_fitted(y, control.features(frame, seat), control.folds(frame),
                                mean_cov=control.cov_from(seat))
        ess = max(1.0, adjusted.ess_factor)
    rows = []
    for name, factor in (("plain", 1.0), ("adjusted", ess)):
        s = sd / math.sqrt(factor)
        n_ci = _needed(Z95 * s, width)
        n_power = _needed((Z95 + Z80) * s, effect)
        rows.append({"estimator": name, "metric": metric, "pilot_games": pilot_games, "value": float(y.mean()),
                     "sd": s, "ess_factor": factor, "half_width": width, "games_for_ci": n_ci, "effect": effect,
                     "games_for_power": n_power, "games_per_arm_unpaired": 2 * n_power,
                     "seconds_per_game": seconds, "hours_for_ci": n_ci * seconds / 3600,
                     "hours_for_power": n_power * seconds / 3600})
    return pd.DataFrame(rows, columns=PLAN_COLUMNS)
