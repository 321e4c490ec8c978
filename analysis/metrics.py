"""Per-game metric columns of each (game, task), for experiments and reports.

A metric function takes one part of a run's per-game table (a DataFrame) and returns
a DataFrame with one row per game, indexed like the input, of numeric columns: 0/1
indicators (their mean is a rate) or quantities (points, lengths). Experiments compare
the same metric between arms game by game.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd

from cardsim.simcore.config import ConfigError


def _seats(frame: pd.DataFrame, prefix: str) -> list[int]:
    return sorted(int(c[len(prefix):]) for c in frame.columns if c.startswith(prefix) and c[len(prefix):].isdigit())


def tienlen_deal(frame: pd.DataFrame) -> pd.DataFrame:
    """Per-deal indicators from the ``per_deal`` table: instant wins overall and by seat."""
    out = pd.DataFrame(index=frame.index)
    winner = frame["instant_winner"].astype(int)
    out["instant_win"] = (winner >= 0).astype(float)
    for seat in _seats(frame, "hand_"):
        out[f"instant_win_seat_{seat}"] = (winner == seat).astype(float)
    return out


def tienlen_play(frame: pd.DataFrame) -> pd.DataFrame:
    """Per-game wins, points and lengths from the ``games`` table."""
    out = pd.DataFrame(index=frame.index)
    for seat in _seats(frame, "place_"):
        out[f"win_seat_{seat}"] = (frame[f"place_{seat}"] == 1).astype(float)
    for seat in _seats(frame, "points_"):
        out[f"points_seat_{seat}"] = frame[f"points_{seat}"].astype(float)
    for column in ("tricks", "plays"):
        if column in frame:
            out[column] = frame[column].astype(float)
    if "instant_winner" in frame:
        out["instant_win"] = (frame["instant_winner"] >= 0).astype(float)
    if "three_spades_seat" in frame:  # did the 3♠ holder (the first leader) win?
        holder = frame["three_spades_seat"].to_numpy()
        won = sum((holder == s) & (frame[f"place_{s}"].to_numpy() == 1) for s in _seats(frame, "place_"))
        out["three_spades_holder_wins"] = won.astype(float)
    return out


def tusac_deal(frame: pd.DataFrame) -> pd.DataFrame:
    """Per-deal weak hands (the mulligan condition) from the ``per_deal`` table."""
    out = pd.DataFrame(index=frame.index)
    weak = frame["weak_seats"].to_numpy().astype(np.int64)
    out["mulligan"] = (weak != 0).astype(float)
    for seat in _seats(frame, "hand_"):
        out[f"weak_hand_seat_{seat}"] = ((weak >> seat) & 1).astype(float)
    return out


def tusac_play(frame: pd.DataFrame) -> pd.DataFrame:
    """Per-game wins, points, steals, draws and length from the Tứ Sắc ``games`` table."""
    out = pd.DataFrame(index=frame.index)
    winner = frame["winner"].to_numpy()
    seats = _seats(frame, "points_")
    for seat in seats:
        out[f"win_seat_{seat}"] = (winner == seat).astype(float)
    for seat in seats:
        out[f"points_seat_{seat}"] = frame[f"points_{seat}"].astype(float)
    for seat in seats:
        steals = [frame[c] for c in (f"steals_win_{seat}", f"steals_quad_{seat}", f"steals_triple_{seat}") if c in frame]
        if steals:
            out[f"steals_seat_{seat}"] = sum(x.astype(float) for x in steals)
    out["draw"] = (winner < 0).astype(float)
    if "claim_ties" in frame:
        out["win_claim_tie"] = (frame["claim_ties"] > 0).astype(float)
    if "turns" in frame:
        out["turns"] = frame["turns"].astype(float)
    return out


def rummy_play(frame: pd.DataFrame) -> pd.DataFrame:
    """Per-match wins, total penalty points, claims, rounds won and -10 closes (``matches`` table)."""
    out = pd.DataFrame(index=frame.index)
    winner = frame["winner"].to_numpy()
    seats = _seats(frame, "total_")
    for seat in seats:
        out[f"win_seat_{seat}"] = (winner == seat).astype(float)
    for seat in seats:
        out[f"points_seat_{seat}"] = frame[f"total_{seat}"].astype(float)
    for seat in seats:
        out[f"claims_seat_{seat}"] = frame[f"claims_{seat}"].astype(float)
    for seat in seats:
        out[f"rounds_won_seat_{seat}"] = frame[f"rounds_won_{seat}"].astype(float)
    for seat in seats:
        if f"minus10_{seat}" in frame:
            out[f"minus10_seat_{seat}"] = frame[f"minus10_{seat}"].astype(float)
    return out


#: (game, task) -> (per-game table name, metric function, options the task needs)
METRICS: dict[tuple[str, str], tuple[str, Callable[[pd.DataFrame], pd.DataFrame], dict]] = {
    ("tienlen", "deal"): ("per_deal", tienlen_deal, {"per_deal": True}),
    ("tienlen", "play"): ("games", tienlen_play, {}),
    ("tusac", "deal"): ("per_deal", tusac_deal, {"per_deal": True}),
    ("tusac", "play"): ("games", tusac_play, {}),
    ("loba", "play"): ("matches", rummy_play, {}),
    ("continental", "play"): ("matches", rummy_play, {}),
}


def metric_spec(game: str, task: str):
    """``(table, function, required options)`` for a (game, task), or ConfigError."""
    try:
        return METRICS[(game, task)]
    except KeyError:
        known = ", ".join(f"{g} {t}" for g, t in METRICS)
        raise ConfigError(f"experiments are not available for {game} {task} (available: {known})") from None
