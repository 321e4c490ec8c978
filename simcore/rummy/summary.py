"""Loba and Continental on the pandas side: the play summary and the experiment metrics."""
from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from cardsim.simcore.run.output import Dataset
from cardsim.simcore.framework.balance import BalanceOutcomes
from cardsim.simcore.framework.spec import policy_label
from cardsim.simcore.framework.summarize import SummaryAccumulator, deal_controls, seat_columns


def play_summary(dataset: Dataset) -> pd.DataFrame:
    """Loba / Continental matches: win rate and total penalty points by seat and policy,
    claims, rounds won and -10 closes per seat; per round: length, capped rounds, and
    rounds won by a player who laid down and went out on the same turn. With a costly
    seat (search, an outside seat) the match rows are adjusted by the heuristic twin
    (:func:`cardsim.analysis.variance.twin_control`) unless variance reduction is off."""
    from cardsim.analysis.variance import deal_control

    meta = dataset.meta
    control = deal_control(meta)
    policies = meta["options"]["policies"]
    label_of = [policy_label(p) for p in policies]  # learned:FILE by its file name
    claim_seats = set(meta["options"].get("claim_seats", []))
    claims_on = bool(meta["rules"].get("claims"))

    def label(seat: int) -> str:
        right = ", may claim" if claims_on and seat in claim_seats else ""
        return f"seat {seat} ({label_of[seat]}{right})"

    acc = SummaryAccumulator()
    for part in dataset.iter_parts("matches"):
        df = part.to_pandas()
        seats = seat_columns(df, "total_")
        winner = df["winner"].to_numpy()
        for s in seats:
            acc.rate("match_win_rate", label(s), winner == s, controls=deal_controls(control, df, s))
        for s in seats:
            acc.mean("match_points", label(s), df[f"total_{s}"], controls=deal_controls(control, df, s))
        for policy in dict.fromkeys(policies):
            group = [s for s in seats if policies[s] == policy]
            acc.rate("match_win_rate", f"policy {policy_label(policy)}", np.concatenate([winner == s for s in group]),
                     controls=deal_controls(control, df, group))
        if claims_on:  # with claims off every count is 0: no rows of zeros
            for s in seats:
                acc.mean("claims_per_match", f"seat {s}", df[f"claims_{s}"], low=0)
        for s in seats:
            acc.mean("rounds_won", f"seat {s}", df[f"rounds_won_{s}"], low=0)
        if "minus10_0" in df:
            for s in seats:
                acc.mean("minus10_closes", f"seat {s}", df[f"minus10_{s}"], low=0)
    for part in dataset.iter_parts("hands", columns=["contract", "turns", "capped", "closed_in_one_turn"]):
        df = part.to_pandas()
        df["contract"] = df["contract"].astype(str)
        for contract, rows in df.groupby("contract", sort=False, observed=True):
            acc.mean("round_turns", f"contract {contract}", rows["turns"], low=0)
        acc.rate("capped_round", "all rounds", df["capped"].to_numpy())
        acc.rate("laid_down_and_out_same_turn", "all rounds", df["closed_in_one_turn"].to_numpy())
    return acc.table()


def play_metrics(frame: pd.DataFrame) -> pd.DataFrame:
    """Per-match wins, total penalty points, claims, rounds won and -10 closes (``matches`` table)."""
    out = pd.DataFrame(index=frame.index)
    winner = frame["winner"].to_numpy()
    seats = seat_columns(frame, "total_")
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


def balance_outcomes(tables: Mapping[str, pd.DataFrame], rules) -> BalanceOutcomes:
    """Outcomes for the balance card from one chunk's ``matches`` and ``hands`` tables.

    A game is a match: its winner has the lowest total (penalty points, fewer is
    better). Length is the match's turns over all rounds; ``no_winner`` is the fraction
    of its rounds nobody went out in (capped). The role ``first to play`` is seat 0
    (it plays first in round 1). Progress is the running total after each round: the
    comebacks are ``mid-game`` (the winner was not leading, ties counting as leading,
    after round R // 2 of R) and ``last third`` (after round R - R // 3).
    """
    matches = tables["matches"].sort_values("game", kind="stable")
    hands = tables["hands"].sort_values(["game", "round"], kind="stable")
    players = rules.players
    seats = np.arange(players)
    game = matches["game"].to_numpy(np.int64)
    winner = matches["winner"].to_numpy()
    win = (winner[:, None] == seats).astype(float)
    points = np.stack([matches[f"total_{s}"].to_numpy(float) for s in seats], axis=1)
    rounds = int(hands["round"].max()) if len(hands) else 0
    per_round = np.stack([hands[f"points_{s}"].to_numpy(float) for s in seats], axis=1).reshape(len(game), rounds,
                                                                                                 players)
    running = np.cumsum(per_round, axis=1)
    rows = np.arange(len(game))

    def trailing(after: int) -> np.ndarray:
        if after < 1 or after >= rounds:
            return np.full(len(game), np.nan)
        totals = running[:, after - 1, :]
        return (totals[rows, winner] > totals.min(axis=1)).astype(float)

    first = np.zeros((len(game), players), bool)
    first[:, 0] = True
    turns = hands["turns"].to_numpy(float).reshape(len(game), rounds)
    capped = hands["capped"].to_numpy(float).reshape(len(game), rounds)
    return BalanceOutcomes(game=game, win=win, points=points, length=turns.sum(axis=1),
                           no_winner=capped.mean(axis=1), length_unit="turns", points_lower_is_better=True,
                           no_winner_group="rounds",
                           roles={"first to play": first},
                           comebacks={"mid-game": trailing(rounds // 2), "last third": trailing(rounds - rounds // 3)})
