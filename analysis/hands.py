"""Decode stored hands (``--per-deal`` columns) into cards and counts, vectorised.

``cardsim deal tienlen --per-deal`` stores each seat's hand as a 52-bit mask
(``hand_0`` ... ``hand_3``, card id ``4 * rank + suit``); ``cardsim deal tusac
--per-deal`` stores 28 counts per hand (index ``7 * colour + character``). These
helpers turn such a column into readable text or into count tables::

    deals = pd.read_parquet("runs/tl/per_deal")
    analysis.rank_counts(deals["hand_0"], "tienlen")    # columns 3 4 ... A 2
    analysis.suit_counts(deals["hand_0"], "tienlen")    # columns ♠ ♣ ♦ ♥
    analysis.hand_cards(deals["hand_0"], "tienlen")     # "3♠ 5♦ 5♥ ... 2♥"

A game tells how its hands decode through its ``HandsSpec``
(:class:`cardsim.simcore.framework.custom_events.HandsSpec`): nothing here names a game.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from cardsim.simcore.framework.config import ConfigError


def _spec(game: str):
    from cardsim.simcore.framework.custom_events import game_hands

    try:
        spec = game_hands(game)
    except ConfigError:
        spec = None
    if spec is None or spec.card_counts is None:
        raise ConfigError(f"stored hands of {game} are not decoded yet")
    return spec


def card_counts(column, game: str) -> pd.DataFrame:
    """One column per card (Tiến Lên: 52 columns of 0/1; Tứ Sắc: 28 types, 0..4)."""
    spec = _spec(game)
    names = [spec.card_name(o, i) for o in spec.outer for i in spec.inner]
    try:
        values = spec.card_counts(column)
    except ValueError as e:
        raise ConfigError(str(e)) from None
    return pd.DataFrame(values, columns=names, index=getattr(column, "index", None))


def _grouped(column, game: str, ranks: bool) -> pd.DataFrame:
    spec = _spec(game)
    cards = card_counts(column, game).to_numpy().reshape(-1, len(spec.outer), len(spec.inner))
    by_outer = ranks == spec.rank_is_outer
    values = cards.sum(axis=2) if by_outer else cards.sum(axis=1)
    return pd.DataFrame(values, columns=list(spec.outer if by_outer else spec.inner),
                        index=getattr(column, "index", None))


def rank_counts(column, game: str) -> pd.DataFrame:
    """Cards per rank (Tiến Lên: 3..2) or per character (Tứ Sắc: General..Soldier)."""
    return _grouped(column, game, ranks=True)


def suit_counts(column, game: str) -> pd.DataFrame:
    """Cards per suit (Tiến Lên: ♠ ♣ ♦ ♥) or per colour (Tứ Sắc: red, yellow, green, white)."""
    return _grouped(column, game, ranks=False)


def hand_cards(column, game: str) -> pd.Series:
    """Each hand as text, lowest card first (``"3♠ 3♥ 7♣ ..."``; Tứ Sắc ``"2×red General ..."``)."""
    counts = card_counts(column, game)
    names = list(counts.columns)
    texts = []
    for row in counts.to_numpy():
        texts.append(" ".join(f"{row[i]}×{names[i]}" if row[i] > 1 else names[i] for i in np.flatnonzero(row)))
    return pd.Series(texts, index=counts.index, dtype="string")
