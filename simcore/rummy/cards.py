"""Cards of the two-deck rummy games.

Card codes: ``suit * 13 + rank`` for naturals (``0..51``), ``JOKER = 52``. Ranks are
``0 = A, 1 = 2, ..., 9 = 10, 10 = J, 11 = Q, 12 = K``; suits ``S H D C``.

A hand is held as three numbers, its *planes*: ``a1`` (uint64, bit ``code`` set when
at least one copy of the card is held), ``a2`` (bit set when both copies are held)
and ``jokers`` (an int). Two decks mean at most two copies of each natural.
"""
from __future__ import annotations

import numpy as np
from numba import njit

SUITS = "SHDC"
RANKS = "A23456789TJQK"
JOKER = 52
N_NATURAL = 52
#: Points left in hand (both games): 2..10 face value, J/Q/K 10, A 20, joker 50.
RANK_POINTS = np.array([20, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10], np.int64)
JOKER_POINTS = 50
_U1 = np.uint64(1)


def card_code(text: str) -> int:
    """``"9S"``, ``"10H"``/``"TH"``, ``"AD"``, ``"JK"`` (joker) -> card code."""
    t = text.strip().upper()
    if t in ("JK", "JOKER", "*"):
        return JOKER
    rank_txt, suit_txt = t[:-1], t[-1]
    if rank_txt == "10":
        rank_txt = "T"
    if len(rank_txt) != 1 or rank_txt not in RANKS or suit_txt not in SUITS:
        raise ValueError(f"bad card {text!r}")
    return SUITS.index(suit_txt) * 13 + RANKS.index(rank_txt)


def card_text(code: int) -> str:
    if code == JOKER:
        return "JK"
    return RANKS[code % 13] + SUITS[code // 13]


def hand_planes(cards) -> tuple[int, int, int]:
    """Planes ``(a1, a2, jokers)`` of a list of card codes or texts (Python ints)."""
    a1 = a2 = j = 0
    for c in cards:
        code = card_code(c) if isinstance(c, str) else int(c)
        if code == JOKER:
            j += 1
            continue
        if not 0 <= code < N_NATURAL:
            raise ValueError(f"bad card code {code}")
        bit = 1 << code
        if a2 & bit:
            raise ValueError(f"more than two copies of {card_text(code)}")
        if a1 & bit:
            a2 |= bit
        else:
            a1 |= bit
    return a1, a2, j


def planes_cards(a1: int, a2: int, jokers: int) -> list[int]:
    """Card codes of a hand given by its planes (sorted, jokers last)."""
    out = []
    for code in range(N_NATURAL):
        out += [code] * (((int(a1) >> code) & 1) + ((int(a2) >> code) & 1))
    return out + [JOKER] * int(jokers)


def hand_points(cards) -> int:
    """Points of a list of card codes left in hand."""
    return sum(JOKER_POINTS if c == JOKER else int(RANK_POINTS[c % 13]) for c in cards)


def make_deck(jokers: int) -> np.ndarray:
    """The two-deck pack: every natural twice, then ``jokers`` jokers (int8 codes)."""
    return np.array(list(range(N_NATURAL)) * 2 + [JOKER] * jokers, np.int8)


@njit(cache=True, forceinline=True)
def add_card(a1, a2, jokers, code):
    """Planes after adding one card. Returns ``(a1, a2, jokers)``."""
    if code >= 52:
        return a1, a2, jokers + 1
    bit = _U1 << np.uint64(code)
    if a1 & bit:
        return a1, a2 | bit, jokers
    return a1 | bit, a2, jokers


@njit(cache=True, forceinline=True)
def remove_card(a1, a2, jokers, code):
    """Planes after removing one held card. Returns ``(a1, a2, jokers)``."""
    if code >= 52:
        return a1, a2, jokers - 1
    bit = _U1 << np.uint64(code)
    if a2 & bit:
        return a1, a2 ^ bit, jokers
    return a1 & ~bit, a2, jokers


@njit(cache=True, forceinline=True)
def card_points(code):
    if code >= 52:
        return 50
    return RANK_POINTS[code % 13]
