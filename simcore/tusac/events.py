"""Tứ Sắc hands for users' own deal events (``cardsim deal tusac --event PATH.py:NAME``).

A user function gets one hand as an ``int8[28]`` array of counts per card type
``7 * colour + character`` (colours red, yellow, green, white; characters General,
Advisor, Elephant, Chariot, Horse, Cannon, Soldier), each 0..4.
"""
from __future__ import annotations

import numpy as np
from numba import types

from cardsim.simcore.framework.custom_events import HandsSpec


def _hands(seed, start, count, rules):
    from cardsim.simcore.tusac.deal import deal_rows

    hands, _ = deal_rows(seed, start, count, rules.players)
    return np.ascontiguousarray(hands[:, :rules.players, :])


def _card_counts(column) -> np.ndarray:
    values = np.asarray([np.asarray(x, dtype=np.int64) for x in column]) if len(column) else np.zeros((0, 28), int)
    if values.ndim != 2 or values.shape[1] != 28:
        raise ValueError("a Tứ Sắc hand column holds 28 counts per row")
    return values


def _column_hands(column) -> np.ndarray:
    return _card_counts(column).astype(np.int8)


HANDS = HandsSpec(types.Array(types.int8, 1, "C", readonly=False), "an int8[28] array of counts per type", _hands,
                  column_hands=_column_hands, card_counts=_card_counts,
                  outer=("red", "yellow", "green", "white"),
                  inner=("General", "Advisor", "Elephant", "Chariot", "Horse", "Cannon", "Soldier"),
                  rank_is_outer=False, card_name=lambda colour, character: f"{colour} {character}")
