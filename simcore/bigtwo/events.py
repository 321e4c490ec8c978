"""Big Two hands for users' own deal events (``cardsim deal bigtwo --event PATH.py:NAME``).

A user function gets one hand as the kernels hold it: an ``int64`` 52-bit mask, card id
``4 * rank + suit`` (ranks 3..A, 2 = 0..12; suits ♦ ♣ ♥ ♠ = 0..3, Big Two's order: the
3♦ is bit 0, the 2♠ bit 51). The deal is Tiến Lên's (:mod:`cardsim.simcore.tienlen.events`).
"""
from __future__ import annotations

from numba import types

from cardsim.simcore.framework.custom_events import HandsSpec
from cardsim.simcore.tienlen.events import _card_counts, _column_hands, _fused, _hands

HANDS = HandsSpec(types.int64, "an int64 52-bit mask (bit 4*rank+suit, suits ♦ ♣ ♥ ♠)", _hands, _fused,
                  column_hands=_column_hands, card_counts=_card_counts,
                  outer=("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"),
                  inner=("♦", "♣", "♥", "♠"), rank_is_outer=True)
