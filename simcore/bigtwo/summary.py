"""Big Two on the pandas side: the play summary and the experiment metrics."""
from __future__ import annotations

import numpy as np
import pandas as pd

from cardsim.simcore.framework.spec import policy_label
from cardsim.simcore.framework.summarize import SummaryAccumulator, deal_controls, seat_columns
from cardsim.simcore.run.output import Dataset
from cardsim.simcore.tienlen.summary import balance_outcomes  # noqa: F401 - the spec names it here


def play_summary(dataset: Dataset) -> pd.DataFrame:
    """Win rate and points by seat and policy, the 3♦ holder (first leader) against the
    rest, win rate by 2s dealt, game length, five-card hands played and the losers'
    cards left, each with a 95% interval. Seat and policy rows are adjusted for the luck
    of the deal (2s and the 3♦ dealt, and the heuristic twin when a seat is costly;
    :mod:`cardsim.analysis.variance`) unless variance reduction is off."""
    from cardsim.analysis.variance import deal_control

    control = deal_control(dataset.meta)
    players = dataset.meta["rules"]["players"]
    policies = dataset.meta["options"]["policies"]
    label_of = [policy_label(p) for p in policies]  # learned:FILE by its file name
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
            acc.rate("win_rate", f"policy {policy_label(policy)}", np.concatenate([wins[s] for s in seats]),
                     controls=pooled)
            acc.mean("points", f"policy {policy_label(policy)}", np.concatenate([df[f"points_{s}"] for s in seats]),
                     controls=pooled)
        holder = df["three_diamonds_seat"].to_numpy()
        dealt = holder >= 0
        holder_wins = np.zeros(len(df), bool)
        others = []
        for s in range(players):
            holder_wins |= (holder == s) & wins[s]
            others.append(wins[s][dealt & (holder != s)])
        acc.rate("win_rate", "3♦ holder", holder_wins[dealt])
        acc.rate("win_rate", "not 3♦ holder", np.concatenate(others))
        for k in range(5):
            hits = [wins[s][df[f"twos_dealt_{s}"].to_numpy() == k] for s in range(players)]
            acc.rate("win_rate", f"{k} twos dealt", np.concatenate(hits))
        acc.mean("tricks", "per game", df["tricks"], low=0)
        acc.mean("plays", "per game", df["plays"], low=0)
        acc.mean("five_card_plays", "per game",
                 sum(df[f"five_card_plays_{s}"].astype(float) for s in range(players)), low=0)
        left = np.concatenate([df[f"cards_left_{s}"].to_numpy(float)[~wins[s]] for s in range(players)])
        acc.mean("cards_left", "per loser", left, low=0)
    return acc.table()


def deal_metrics(frame: pd.DataFrame) -> pd.DataFrame:
    """Per-deal quantities from the ``per_deal`` table: each seat's 2s and whether it holds the 3♦."""
    out = pd.DataFrame(index=frame.index)
    for seat in seat_columns(frame, "hand_"):
        hands = frame[f"hand_{seat}"].to_numpy(np.int64).astype(np.uint64)
        out[f"twos_seat_{seat}"] = np.array([bin(int(h) >> 48).count("1") for h in hands], float)
        out[f"three_diamonds_seat_{seat}"] = (hands & np.uint64(1)).astype(float)
    return out


def play_metrics(frame: pd.DataFrame) -> pd.DataFrame:
    """Per-game wins, points and lengths from the ``games`` table."""
    from cardsim.simcore.tienlen.summary import seat_play_metrics

    out = seat_play_metrics(frame)
    if "three_diamonds_seat" in frame:  # did the 3♦ holder (the first leader) win?
        holder = frame["three_diamonds_seat"].to_numpy()
        won = sum((holder == s) & (frame[f"place_{s}"].to_numpy() == 1) for s in seat_columns(frame, "place_"))
        out["three_diamonds_holder_wins"] = won.astype(float)
    return out
