"""Decode stored hands (``--per-deal`` columns) into cards and counts, vectorised.

``cardsim deal tienlen --per-deal`` stores each seat's hand as a 52-bit mask
(``hand_0`` ... ``hand_3``, card id ``4 * rank + suit``); ``cardsim deal tusac
--per-deal`` stores 28 counts per hand (index ``7 * colour + character``). These
helpers turn such a column into readable text or into count tables::

    deals = pd.read_parquet("runs/tl/per_deal")
    analysis.rank_counts(deals["hand_0"], "tienlen")    # columns 3 4 ... A 2
    analysis.suit_counts(deals["hand_0"], "tienlen")    # columns ♠ ♣ ♦ ♥
    analysis.hand_cards(deals["hand_0"], "tienlen")     # "3♠ 5♦ 5♥ ... 2♥"
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from cardsim.simcore.framework.config import ConfigError

TIENLEN_RANKS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
TIENLEN_SUITS = ("♠", "♣", "♦", "♥")
TUSAC_COLOURS = ("red", "yellow", "green", "white")
TUSAC_CHARACTERS = ("General", "Advisor", "Elephant", "Chariot", "Horse", "Cannon", "Soldier")


def _bits(masks) -> np.ndarray:
    """``(n, 52)`` 0/1 array of 52-bit masks (bit ``c`` = card id ``c``)."""
    values = np.asarray(masks, dtype=np.int64).astype(np.uint64)
    as_bytes = values.astype("<u8").view(np.uint8).reshape(-1, 8)
    return np.unpackbits(as_bytes, axis=1, bitorder="little")[:, :52]


def _tusac_counts(column) -> np.ndarray:
    values = np.asarray([np.asarray(x, dtype=np.int64) for x in column]) if len(column) else np.zeros((0, 28), int)
    if values.ndim != 2 or values.shape[1] != 28:
        raise ConfigError("a Tứ Sắc hand column holds 28 counts per row")
    return values


def card_counts(column, game: str) -> pd.DataFrame:
    """One column per card (Tiến Lên: 52 columns of 0/1; Tứ Sắc: 28 types, 0..4)."""
    if game == "tienlen":
        names = [r + s for r in TIENLEN_RANKS for s in TIENLEN_SUITS]
        return pd.DataFrame(_bits(column), columns=names, index=getattr(column, "index", None))
    if game == "tusac":
        names = [f"{c} {ch}" for c in TUSAC_COLOURS for ch in TUSAC_CHARACTERS]
        return pd.DataFrame(_tusac_counts(column), columns=names, index=getattr(column, "index", None))
    raise ConfigError(f"stored hands of {game} are not decoded yet (tienlen, tusac)")


def rank_counts(column, game: str) -> pd.DataFrame:
    """Cards per rank (Tiến Lên: 3..2) or per character (Tứ Sắc: General..Soldier)."""
    cards = card_counts(column, game).to_numpy()
    if game == "tienlen":
        values, names = cards.reshape(-1, 13, 4).sum(axis=2), TIENLEN_RANKS
    else:
        values, names = cards.reshape(-1, 4, 7).sum(axis=1), TUSAC_CHARACTERS
    return pd.DataFrame(values, columns=list(names), index=getattr(column, "index", None))


def suit_counts(column, game: str) -> pd.DataFrame:
    """Cards per suit (Tiến Lên: ♠ ♣ ♦ ♥) or per colour (Tứ Sắc: red, yellow, green, white)."""
    cards = card_counts(column, game).to_numpy()
    if game == "tienlen":
        values, names = cards.reshape(-1, 13, 4).sum(axis=1), TIENLEN_SUITS
    else:
        values, names = cards.reshape(-1, 4, 7).sum(axis=2), TUSAC_COLOURS
    return pd.DataFrame(values, columns=list(names), index=getattr(column, "index", None))


def hand_cards(column, game: str) -> pd.Series:
    """Each hand as text, lowest card first (``"3♠ 3♥ 7♣ ..."``; Tứ Sắc ``"2×red General ..."``)."""
    counts = card_counts(column, game)
    names = list(counts.columns)
    values = counts.to_numpy()
    texts = []
    for row in values:
        parts = [(f"{k}×{names[i]}" if k > 1 else names[i]) if game == "tusac" else names[i]
                 for i in np.flatnonzero(row) for k in (row[i],)]
        texts.append(" ".join(parts))
    return pd.Series(texts, index=counts.index, dtype="string")
