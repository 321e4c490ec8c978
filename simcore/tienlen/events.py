"""Tiến Lên hands for users' own deal events (``cardsim deal tienlen --event PATH.py:NAME``).

A user function gets one hand as the kernels hold it: an ``int64`` 52-bit mask, card id
``4 * rank + suit`` (ranks 3..A, 2 = 0..12; suits ♠ ♣ ♦ ♥ = 0..3). The fused path deals
and tests in one parallel loop, so no hands are materialised.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange, types

from cardsim.simcore.framework.custom_events import HandsSpec


def _hands(seed, start, count, rules):
    from cardsim.simcore.tienlen.deal import deal_rows

    hands, _, _ = deal_rows(seed, start, count, rules.players, rules.cards_per_player,
                            rules.instant_win_mask(), rules.black_mask())
    return hands


def _fused(dispatcher):
    from cardsim.simcore.tienlen.deal import deal_into, deal_plan

    @njit(parallel=True)
    def hits(seed, start, count, players, plan, leaf):
        out = np.zeros((count, players), np.bool_)
        blocks = min(count, 512)
        for b in prange(blocks):
            slots = np.zeros(16, np.uint64)
            groups = np.zeros(8, np.uint64)
            for j in range(count * b // blocks, count * (b + 1) // blocks):
                deal_into(seed, start + j, plan, leaf, slots, groups)
                for s in range(players):
                    out[j, s] = bool(dispatcher(np.int64(groups[s])))
        return out

    def run(seed, start, count, rules):
        plan, leaf = deal_plan(rules.players, rules.cards_per_player)
        return hits(np.uint64(seed), np.int64(start), np.int64(count), np.int64(rules.players), plan, leaf)

    return run


def _column_hands(column) -> np.ndarray:
    return np.asarray(column, dtype=np.int64)


def _card_counts(column) -> np.ndarray:
    """``(n, 52)`` 0/1 array of 52-bit masks (bit ``c`` = card id ``c``)."""
    values = np.asarray(column, dtype=np.int64).astype(np.uint64)
    as_bytes = values.astype("<u8").view(np.uint8).reshape(-1, 8)
    return np.unpackbits(as_bytes, axis=1, bitorder="little")[:, :52]


HANDS = HandsSpec(types.int64, "an int64 52-bit mask (bit 4*rank+suit)", _hands, _fused,
                  column_hands=_column_hands, card_counts=_card_counts,
                  outer=("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"),
                  inner=("♠", "♣", "♦", "♥"), rank_is_outer=True)
