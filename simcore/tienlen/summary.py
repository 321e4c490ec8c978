"""Tiến Lên on the pandas side: the play summary and the experiment metrics."""
from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from cardsim.simcore.run.output import Dataset
from cardsim.simcore.framework.balance import BalanceOutcomes
from cardsim.simcore.framework.spec import policy_label
from cardsim.simcore.framework.summarize import SummaryAccumulator, deal_controls, seat_columns


def play_summary(dataset: Dataset) -> pd.DataFrame:
    """Win rate and points by seat and policy, 3♠ holder vs the rest, win rate by 2s
    dealt, instant wins, and game length over the games played out (instant wins are
    counted apart), each with a 95% interval. Rows over all games (seats, policies,
    instant wins, bombs and chops per game) are adjusted for the luck of the deal (2s and
    the 3♠ dealt; :mod:`cardsim.analysis.variance`) unless variance reduction is off."""
    from cardsim.analysis.variance import deal_control

    players = dataset.meta["rules"]["players"]
    policies = dataset.meta["options"]["policies"]
    label_of = [policy_label(p) for p in policies]  # learned:FILE by its file name
    control = deal_control(dataset.meta)
    acc = SummaryAccumulator()
    for part in dataset.iter_parts("games"):
        df = part.to_pandas()
        wins = {s: (df[f"place_{s}"] == 1).to_numpy() for s in range(players)}
        for s in range(players):
            acc.rate("win_rate", f"seat {s} ({label_of[s]})", wins[s], controls=deal_controls(control, df, s))
        for s in range(players):
            acc.mean("points", f"seat {s} ({label_of[s]})", df[f"points_{s}"], controls=deal_controls(control, df, s))
        for policy in dict.fromkeys(policies):
            seats = [s for s in range(players) if policies[s] == policy]
            pooled = deal_controls(control, df, seats)
            acc.rate("win_rate", f"policy {policy_label(policy)}", np.concatenate([wins[s] for s in seats]), controls=pooled)
            acc.mean("points", f"policy {policy_label(policy)}", np.concatenate([df[f"points_{s}"] for s in seats]),
                     controls=pooled)
        holder = df["three_spades_seat"].to_numpy()
        dealt = holder >= 0
        holder_wins = np.zeros(len(df), bool)
        others = []
        for s in range(players):
            holder_wins |= (holder == s) & wins[s]
            others.append(wins[s][dealt & (holder != s)])
        acc.rate("win_rate", "3♠ holder", holder_wins[dealt])
        acc.rate("win_rate", "not 3♠ holder", np.concatenate(others))
        for k in range(5):
            hits = [wins[s][df[f"twos_dealt_{s}"].to_numpy() == k] for s in range(players)]
            acc.rate("win_rate", f"{k} twos dealt", np.concatenate(hits))
        instant = df["instant_winner"].to_numpy() >= 0
        game_level = deal_controls(control, df, 0)
        acc.rate("instant_win", "any seat", instant, controls=game_level)
        # an instant win has no tricks: the length of a game is over the games played out
        acc.mean("tricks", "per played game", df["tricks"][~instant], low=0)
        acc.mean("plays", "per played game", df["plays"][~instant], low=0)
        acc.mean("bombs_played", "per game", sum(df[f"bombs_played_{s}"].astype(float) for s in range(players)), low=0,
                 controls=game_level)
        acc.mean("twos_chopped", "per game", sum(df[f"twos_chopped_{s}"].astype(float) for s in range(players)), low=0,
                 controls=game_level)
    return acc.table()


#: (game, task) -> summary function of a finished play dataset


def deal_metrics(frame: pd.DataFrame) -> pd.DataFrame:
    """Per-deal indicators from the ``per_deal`` table: instant wins overall and by seat."""
    out = pd.DataFrame(index=frame.index)
    winner = frame["instant_winner"].astype(int)
    out["instant_win"] = (winner >= 0).astype(float)
    for seat in seat_columns(frame, "hand_"):
        out[f"instant_win_seat_{seat}"] = (winner == seat).astype(float)
    return out


def seat_play_metrics(frame: pd.DataFrame) -> pd.DataFrame:
    """Per-game wins and points by seat, tricks and plays, from a climbing game's ``games``
    table (Tiến Lên's and Big Two's)."""
    out = pd.DataFrame(index=frame.index)
    for seat in seat_columns(frame, "place_"):
        out[f"win_seat_{seat}"] = (frame[f"place_{seat}"] == 1).astype(float)
    for seat in seat_columns(frame, "points_"):
        out[f"points_seat_{seat}"] = frame[f"points_{seat}"].astype(float)
    for column in ("tricks", "plays"):
        if column in frame:
            out[column] = frame[column].astype(float)
    return out


def play_metrics(frame: pd.DataFrame) -> pd.DataFrame:
    """Per-game wins, points and lengths from the ``games`` table."""
    out = seat_play_metrics(frame)
    if "instant_winner" in frame:
        out["instant_win"] = (frame["instant_winner"] >= 0).astype(float)
    if "three_spades_seat" in frame:  # did the 3♠ holder (the first leader) win?
        holder = frame["three_spades_seat"].to_numpy()
        won = sum((holder == s) & (frame[f"place_{s}"].to_numpy() == 1) for s in seat_columns(frame, "place_"))
        out["three_spades_holder_wins"] = won.astype(float)
    return out


def balance_outcomes(tables: Mapping[str, pd.DataFrame], rules) -> BalanceOutcomes:
    """Outcomes for the balance card from one chunk's ``games`` table (in game order).

    Length is in tricks (an instant win has none); every game has a winner. The role
    ``leads first`` is the seat that leads the first trick: the 3♠ holder in a match's
    first game, the previous winner after it. No mid-game progress is recorded, so
    there are no comeback figures.
    """
    games = tables["games"]
    seats = range(rules.players)
    win = np.stack([(games[f"place_{s}"] == 1).to_numpy(float) for s in seats], axis=1)
    points = np.stack([games[f"points_{s}"].to_numpy(float) for s in seats], axis=1)
    leader = games["leader"].to_numpy()
    return BalanceOutcomes(game=games["game"].to_numpy(np.int64), win=win, points=points,
                           length=games["tricks"].to_numpy(float), no_winner=np.zeros(len(games)),
                           length_unit="tricks", roles={"leads first": leader[:, None] == np.arange(rules.players)})
