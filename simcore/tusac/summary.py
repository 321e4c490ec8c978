"""Tứ Sắc on the pandas side: the play summary and the experiment metrics."""
from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from cardsim.simcore.run.output import Dataset
from cardsim.simcore.framework.balance import BalanceOutcomes
from cardsim.simcore.framework.spec import policy_label
from cardsim.simcore.framework.summarize import SummaryAccumulator, deal_controls, seat_columns


def play_summary(dataset: Dataset) -> pd.DataFrame:
    """Tứ Sắc games: win rate and points by seat and policy, draws, how the winning card
    was taken, steals per seat by kind, tied win claims, game length, mulligans. Rows over
    all games are adjusted for the luck of the deal (triples and quadruples dealt;
    :mod:`cardsim.analysis.variance`) unless variance reduction is off."""
    from cardsim.analysis.variance import deal_control

    policies = dataset.meta["options"]["policies"]
    label_of = [policy_label(p) for p in policies]  # learned:FILE by its file name
    control = deal_control(dataset.meta)
    acc = SummaryAccumulator()
    # "draw" alone means a hand with no winner; a win on the winner's own drawn card is "self-drawn"
    take_names = {0: "self-drawn", 1: "eat", 2: "steal"}
    for part in dataset.iter_parts("games"):
        df = part.to_pandas()
        winner = df["winner"].to_numpy()
        seats = seat_columns(df, "points_")
        if control is not None and not all(f"dealt_triples_{s}" in df for s in seats):
            control = None  # an older table without the deal columns
        for s in seats:
            acc.rate("win_rate", f"seat {s} ({label_of[s]})", winner == s, controls=deal_controls(control, df, s))
        for s in seats:
            acc.mean("points", f"seat {s} ({label_of[s]})", df[f"points_{s}"], controls=deal_controls(control, df, s))
        for policy in dict.fromkeys(policies):
            group = [s for s in seats if policies[s] == policy]
            acc.rate("win_rate", f"policy {policy_label(policy)}", np.concatenate([winner == s for s in group]),
                     controls=deal_controls(control, df, group))
        game_level = deal_controls(control, df, 0)
        acc.rate("draw", "no winner", winner < 0, controls=game_level)
        won = winner >= 0
        for code, name in take_names.items():
            acc.rate("winning_take", name, df["win_take"].to_numpy()[won] == code)
        for kind in ("win", "quad", "triple"):
            column = f"steals_{kind}_"
            if any(c.startswith(column) for c in df.columns):
                for s in seats:
                    acc.mean(f"steals_{kind}", f"seat {s}", df[f"{column}{s}"], low=0,
                             controls=deal_controls(control, df, s))
        if "claim_ties" in df:
            acc.rate("win_claim_tie", "per game", df["claim_ties"].to_numpy() > 0, controls=game_level)
        if "winner_points" in df:
            acc.mean("winner_points", "per won game", df["winner_points"].to_numpy()[won])
        for column in ("turns", "stock_left"):
            if column in df:
                acc.mean(column, "per game", df[column], low=0, controls=game_level)
        if "mulligans" in df:  # redeals are a function of the deal the features are conditioned on: plain
            acc.mean("mulligans", "per game", df["mulligans"], low=0)
    return acc.table()


def deal_metrics(frame: pd.DataFrame) -> pd.DataFrame:
    """Per-deal weak hands (the mulligan condition) from the ``per_deal`` table."""
    out = pd.DataFrame(index=frame.index)
    weak = frame["weak_seats"].to_numpy().astype(np.int64)
    out["mulligan"] = (weak != 0).astype(float)
    for seat in seat_columns(frame, "hand_"):
        out[f"weak_hand_seat_{seat}"] = ((weak >> seat) & 1).astype(float)
    return out


def play_metrics(frame: pd.DataFrame) -> pd.DataFrame:
    """Per-game wins, points, steals, draws and length from the Tứ Sắc ``games`` table."""
    out = pd.DataFrame(index=frame.index)
    winner = frame["winner"].to_numpy()
    seats = seat_columns(frame, "points_")
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


def balance_outcomes(tables: Mapping[str, pd.DataFrame], rules) -> BalanceOutcomes:
    """Outcomes for the balance card from one chunk's ``games`` table (in game order).

    Length is in turns; a game with no winner (the stock ran out) is a draw. The role
    ``dealer`` is seat 0 (21 cards, opens the game). No mid-game progress is recorded,
    so there are no comeback figures.
    """
    games = tables["games"]
    winner = games["winner"].to_numpy()
    seats = np.arange(rules.players)
    win = (winner[:, None] == seats).astype(float)
    points = np.stack([games[f"points_{s}"].to_numpy(float) for s in seats], axis=1)
    dealer = np.zeros((len(games), rules.players), bool)
    dealer[:, 0] = True
    return BalanceOutcomes(game=games["game"].to_numpy(np.int64), win=win, points=points,
                           length=games["turns"].to_numpy(float), no_winner=(winner < 0).astype(float),
                           length_unit="turns", roles={"dealer": dealer})
