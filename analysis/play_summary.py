"""Summaries of ``play`` runs, streamed part by part (memory does not grow with N).

The table has one row per (metric, group): ``metric, group, n, value, ci_low, ci_high``.
Rates (``win_rate``, ``instant_win``) get 95% Wilson intervals, means (``points``,
``tricks``, ``plays``) normal-approximation intervals. Groups pooled over seats (by
policy, by 2s dealt, 3♠ holder vs the rest) count seat-games, which are not independent
within a game (one winner per game), so their intervals are slightly optimistic.
"""
from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np
import pandas as pd

from cardsim.analysis.intervals import Z95, wilson
from cardsim.simcore.output import Dataset

SUMMARY_COLUMNS = ["metric", "group", "n", "value", "ci_low", "ci_high"]


class _Accumulator:
    """Streaming sums per (metric, group)."""

    def __init__(self) -> None:
        self.cells: "OrderedDict[tuple[str, str], list]" = OrderedDict()

    def _cell(self, metric: str, group: str, kind: str) -> list:
        return self.cells.setdefault((metric, group), [kind, 0, 0.0, 0.0])

    def rate(self, metric: str, group: str, hits) -> None:
        hits = np.asarray(hits, bool)
        cell = self._cell(metric, group, "rate")
        cell[1] += hits.size
        cell[2] += float(hits.sum())

    def mean(self, metric: str, group: str, values) -> None:
        values = np.asarray(values, float)
        cell = self._cell(metric, group, "mean")
        cell[1] += values.size
        cell[2] += float(values.sum())
        cell[3] += float(values @ values)

    def table(self) -> pd.DataFrame:
        rows = []
        for (metric, group), (kind, n, s, ss) in self.cells.items():
            if n == 0:
                continue
            if kind == "rate":
                low, high = wilson(s, n)
                rows.append((metric, group, n, s / n, float(low), float(high)))
            else:
                mean = s / n
                se = math.sqrt(max(ss - s * s / n, 0.0) / (n - 1) / n) if n > 1 else math.nan
                rows.append((metric, group, n, mean, mean - Z95 * se, mean + Z95 * se))
        return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


def tienlen_play_summary(dataset: Dataset) -> pd.DataFrame:
    """Win rate and points by seat and policy, 3♠ holder vs the rest, win rate by 2s
    dealt, instant wins and game length, each with a 95% interval."""
    players = dataset.meta["rules"]["players"]
    policies = dataset.meta["options"]["policies"]
    acc = _Accumulator()
    for part in dataset.iter_parts("games"):
        df = part.to_pandas()
        wins = {s: (df[f"place_{s}"] == 1).to_numpy() for s in range(players)}
        for s in range(players):
            acc.rate("win_rate", f"seat {s} ({policies[s]})", wins[s])
        for s in range(players):
            acc.mean("points", f"seat {s} ({policies[s]})", df[f"points_{s}"])
        for policy in dict.fromkeys(policies):
            seats = [s for s in range(players) if policies[s] == policy]
            acc.rate("win_rate", f"policy {policy}", np.concatenate([wins[s] for s in seats]))
            acc.mean("points", f"policy {policy}", np.concatenate([df[f"points_{s}"] for s in seats]))
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
        acc.rate("instant_win", "any seat", df["instant_winner"].to_numpy() >= 0)
        acc.mean("tricks", "per game", df["tricks"])
        acc.mean("plays", "per game", df["plays"])
        acc.mean("bombs_played", "per game", sum(df[f"bombs_played_{s}"].astype(float) for s in range(players)))
        acc.mean("twos_chopped", "per game", sum(df[f"twos_chopped_{s}"].astype(float) for s in range(players)))
    return acc.table()


#: (game, task) -> summary function of a finished play dataset
PLAY_SUMMARIES = {("tienlen", "play"): tienlen_play_summary}


def _seat_columns(frame: pd.DataFrame, prefix: str) -> list[int]:
    return sorted(int(c[len(prefix):]) for c in frame.columns if c.startswith(prefix) and c[len(prefix):].isdigit())


def tusac_play_summary(dataset: Dataset) -> pd.DataFrame:
    """Tứ Sắc games: win rate and points by seat and policy, draws, how the winning card
    was taken, steals per seat by kind, tied win claims, game length, mulligans."""
    policies = dataset.meta["options"]["policies"]
    acc = _Accumulator()
    take_names = {0: "draw", 1: "eat", 2: "steal"}
    for part in dataset.iter_parts("games"):
        df = part.to_pandas()
        winner = df["winner"].to_numpy()
        seats = _seat_columns(df, "points_")
        for s in seats:
            acc.rate("win_rate", f"seat {s} ({policies[s]})", winner == s)
        for s in seats:
            acc.mean("points", f"seat {s} ({policies[s]})", df[f"points_{s}"])
        for policy in dict.fromkeys(policies):
            group = [s for s in seats if policies[s] == policy]
            acc.rate("win_rate", f"policy {policy}", np.concatenate([winner == s for s in group]))
        acc.rate("draw", "no winner", winner < 0)
        won = winner >= 0
        for code, name in take_names.items():
            acc.rate("winning_take", name, df["win_take"].to_numpy()[won] == code)
        for kind in ("win", "quad", "triple"):
            column = f"steals_{kind}_"
            if any(c.startswith(column) for c in df.columns):
                for s in seats:
                    acc.mean(f"steals_{kind}", f"seat {s}", df[f"{column}{s}"])
        if "claim_ties" in df:
            acc.rate("win_claim_tie", "per game", df["claim_ties"].to_numpy() > 0)
        if "winner_points" in df:
            acc.mean("winner_points", "per won game", df["winner_points"].to_numpy()[won])
        for column in ("turns", "mulligans", "stock_left"):
            if column in df:
                acc.mean(column, "per game", df[column])
    return acc.table()


PLAY_SUMMARIES[("tusac", "play")] = tusac_play_summary


def rummy_play_summary(dataset: Dataset) -> pd.DataFrame:
    """Loba / Continental matches: win rate and total penalty points by seat and policy,
    claims, rounds won and -10 closes per seat; per round: length, capped rounds, and
    rounds won by a player who laid down and went out on the same turn."""
    meta = dataset.meta
    policies = meta["options"]["policies"]
    claim_seats = set(meta["options"].get("claim_seats", []))
    claims_on = bool(meta["rules"].get("claims"))

    def label(seat: int) -> str:
        right = ", may claim" if claims_on and seat in claim_seats else ""
        return f"seat {seat} ({policies[seat]}{right})"

    acc = _Accumulator()
    for part in dataset.iter_parts("matches"):
        df = part.to_pandas()
        seats = _seat_columns(df, "total_")
        winner = df["winner"].to_numpy()
        for s in seats:
            acc.rate("match_win_rate", label(s), winner == s)
        for s in seats:
            acc.mean("match_points", label(s), df[f"total_{s}"])
        for policy in dict.fromkeys(policies):
            group = [s for s in seats if policies[s] == policy]
            acc.rate("match_win_rate", f"policy {policy}", np.concatenate([winner == s for s in group]))
        for s in seats:
            acc.mean("claims_per_match", f"seat {s}", df[f"claims_{s}"])
        for s in seats:
            acc.mean("rounds_won", f"seat {s}", df[f"rounds_won_{s}"])
        if "minus10_0" in df:
            for s in seats:
                acc.mean("minus10_closes", f"seat {s}", df[f"minus10_{s}"])
    for part in dataset.iter_parts("hands", columns=["contract", "turns", "capped", "closed_in_one_turn"]):
        df = part.to_pandas()
        df["contract"] = df["contract"].astype(str)
        for contract, rows in df.groupby("contract", sort=False, observed=True):
            acc.mean("round_turns", f"contract {contract}", rows["turns"])
        acc.rate("capped_round", "all rounds", df["capped"].to_numpy())
        acc.rate("laid_down_and_out_same_turn", "all rounds", df["closed_in_one_turn"].to_numpy())
    return acc.table()


PLAY_SUMMARIES[("loba", "play")] = rummy_play_summary
PLAY_SUMMARIES[("continental", "play")] = rummy_play_summary
