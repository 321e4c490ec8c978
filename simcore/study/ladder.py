"""Strength ladder: each policy in every seat against a fixed field, on common deals.

For a candidate policy ``X`` and each seat ``s``, games ``0 .. n-1`` of the run seed are
played with ``X`` at seat ``s`` and the field policy at every other seat. Every
candidate therefore meets the same deals in every seat (common random numbers), and
a deal's difficulty cancels out of the comparison. Per game the candidate gets a
*score against the field*: the fraction of field seats it finished ahead of (ties
count one half); ranking is by the game's win, then its points (penalty points,
fewer is better, in the rummy games). Ratings from those scores are computed on the
pandas side (:mod:`cardsim.analysis.ladder`).

Each row also carries the deal's control features as the candidate's seat sees them
(``control_0 ..``, centred at their expectation, and ``control_fold``; see
:func:`cardsim.analysis.variance.table_control`): the ratings adjust each candidate's
win rate, points and score with them, cross-fitted, unless variance reduction is off.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd

from cardsim.simcore.framework.config import ConfigError
from cardsim.simcore.framework.registry import get_spec

GAME_COLUMNS = ["policy", "seat", "game", "win", "points", "score"]
#: Prefix of the control-feature columns of a ladder's games (and their fold: ``control_fold``).
CONTROL_PREFIX = "control_"


@dataclass(frozen=True)
class LadderConfig:
    """One ladder: the game, its rules, the candidate policies, the field, n deals, seed."""

    game: str
    rules: Any
    policies: tuple[str, ...]
    field: str
    n: int
    seed: int
    options: Mapping[str, Any] = field(default_factory=dict)
    chunk_size: int | None = None

    def manifest(self) -> dict[str, Any]:
        from cardsim.simcore import __version__

        return {"kind": "ladder", "cardsim_version": __version__, "game": self.game, "rules": self.rules.to_dict(),
                "house_choices": dict(self.rules.HOUSE_CHOICES), "policies": list(self.policies),
                "field": self.field, "n": self.n, "seed": self.seed, "options": dict(self.options)}


def seat_policies(config: LadderConfig, policy: str, seat: int) -> list[str]:
    players = config.rules.players
    return [policy if s == seat else config.field for s in range(players)]


def table_options(config: LadderConfig, seats: list[str]) -> dict[str, Any]:
    """The validated play options of one table (``seats``: the policy of each seat)."""
    task = get_spec(config.game).play
    options = dict(config.options)
    options["policy"] = list(seats)
    options = task.parse_options(config.rules, options)
    task.check_options(config.rules, options)
    return options


def _seat_options(config: LadderConfig, policy: str, seat: int) -> dict[str, Any]:
    return table_options(config, seat_policies(config, policy, seat))


def validate(config: LadderConfig) -> None:
    """Raise :class:`ConfigError` for unknown policies or options before anything runs."""
    if config.n <= 0:
        raise ConfigError(f"--games must be positive, got {config.n}")
    if not config.policies:
        raise ConfigError("--policies is empty")
    for policy in (*config.policies, config.field):
        _seat_options(config, policy, 0)


def score_against_field(win: np.ndarray, points: np.ndarray, seat: int, lower_is_better: bool) -> np.ndarray:
    """Per game, the fraction of other seats that ``seat`` finished ahead of (ties: 1/2).

    ``win``, ``points``: float arrays ``(games, players)``; rank by win, then points.
    """
    sign = -1.0 if lower_is_better else 1.0
    key_w = win
    key_p = sign * points
    others = [s for s in range(win.shape[1]) if s != seat]
    total = np.zeros(win.shape[0])
    for f in others:
        better = (key_w[:, seat] > key_w[:, f]) | ((key_w[:, seat] == key_w[:, f]) & (key_p[:, seat] > key_p[:, f]))
        tie = (key_w[:, seat] == key_w[:, f]) & (key_p[:, seat] == key_p[:, f])
        total += better + 0.5 * tie
    return total / len(others)


def play_ladder(config: LadderConfig, on_step: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """Play the ladder; one row per (policy, seat, game): ``GAME_COLUMNS``.

    ``points`` are the candidate seat's points (penalties in the rummy games).
    """
    from cardsim.analysis.variance import pooled_mean_cov, table_control
    from cardsim.simcore.run.runner import RunConfig

    validate(config)
    spec = get_spec(config.game)
    task = spec.play
    metric = spec.metric_spec("play")
    players = config.rules.players
    frames = []
    mean_covs: dict[str, list] = {}  # per candidate: the error of its pooled features' expectation
    steps = [(p, s) for p in config.policies for s in range(players)]
    for step, (policy, seat) in enumerate(steps):
        options = _seat_options(config, policy, seat)
        chunk = config.chunk_size or min(task.default_chunk_size(options), config.n)
        task.check_chunk_size(chunk, options)
        run = RunConfig(game=config.game, task="play", rules=config.rules, n=config.n, seed=config.seed,
                        chunk_size=chunk, options=options)
        control = table_control(config.game, config.rules.to_dict(), config.options, config.seed, config.n,
                                seat_policies(config, policy, seat))
        if control is not None and control.mean_cov is not None:  # lists: pandas writes attrs into Parquet as JSON
            mean_covs[policy] = pooled_mean_cov(control, range(players)).tolist()
        for chunk_id in range(run.n_chunks):
            table = task.run_chunk(run, chunk_id)[metric.table].to_pandas()
            table = table.sort_values("game").reset_index(drop=True)
            metrics = metric.function(table)
            win = np.stack([metrics[f"win_seat_{s}"].to_numpy(float) for s in range(players)], axis=1)
            points = np.stack([metrics[f"points_seat_{s}"].to_numpy(float) for s in range(players)], axis=1)
            frame = pd.DataFrame({
                "policy": policy, "seat": np.int8(seat), "game": table["game"].to_numpy(np.int64),
                "win": win[:, seat], "points": points[:, seat],
                "score": score_against_field(win, points, seat, metric.points_lower_is_better),
            })
            if control is not None:  # the deal as this seat sees it (own features first)
                x = control.features(table, seat)
                frame["control_fold"] = control.folds(table)
                for j in range(x.shape[1]):
                    frame[f"{CONTROL_PREFIX}{j}"] = x[:, j]
            frames.append(frame)
        if on_step is not None:
            on_step(step + 1, len(steps))
    out = pd.concat(frames, ignore_index=True)
    out["policy"] = pd.Categorical(out["policy"], categories=list(dict.fromkeys(config.policies)))
    controls = sorted((c for c in out.columns if c.startswith(CONTROL_PREFIX) and c != "control_fold"),
                      key=lambda c: int(c[len(CONTROL_PREFIX):]))
    out = out[GAME_COLUMNS + (["control_fold", *controls] if controls else [])]
    out.attrs["control_mean_cov"] = mean_covs  # read by :func:`cardsim.analysis.ladder.ratings`
    return out
