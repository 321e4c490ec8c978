"""A seat's hand in the round kernels (``@njit``): card counts, points, contract distance, known cards.

A hand is three planes ``(a1, a2, j)`` (:mod:`cardsim.simcore.rummy.cards`); the round's
state and its compiled form are described in :mod:`cardsim.simcore.rummy.engine`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.rummy.cards import JOKER, add_card, card_points
from cardsim.simcore.rummy.contract import _search_sorted as _search


@njit(cache=True)
def hand_points(a1, a2, j):
    pts = 50 * j
    for c in range(52):
        bit = np.uint64(1) << np.uint64(c)
        if a1 & bit:
            pts += card_points(c)
        if a2 & bit:
            pts += card_points(c)
    return pts


@njit(cache=True, forceinline=True)
def count_of(a1, a2, j, code):
    """Copies of card ``code`` in the hand (jokers: ``code >= 52``)."""
    if code >= 52:
        return j
    bit = np.uint64(1) << np.uint64(code)
    return ((a1 & bit) != 0) + ((a2 & bit) != 0)


@njit(cache=True, forceinline=False)
def nth_card(a1, a2, j, idx):
    """The ``idx``-th card of the hand (codes ascending, copies adjacent, jokers last)."""
    for c in range(52):
        n = count_of(a1, a2, j, c)
        if idx < n:
            return c
        idx -= n
    return JOKER


@njit(cache=True, forceinline=False)
def n_cards(a1, a2, j):
    n = j
    for c in range(52):
        n += count_of(a1, a2, j, c)
    return n


@njit(cache=True)
def distance(a1, a2, jokers, k, m, mp, cap):
    """Contract distance (fewest missing cards, ``cap + 1`` beyond ``cap``) with the kernel's faster search."""
    a1 = np.uint64(a1)
    a2 = np.uint64(a2)
    for d in range(cap + 1):
        if _search(a1, a2, jokers, m, d, k, mp[0], mp[1], mp[2], mp[3]):
            return d
    return cap + 1


@njit(cache=True, forceinline=False)
def improves(a1, a2, j, card, d, k, m, mp):
    """Does adding ``card`` lower the (capped) contract distance ``d``?"""
    if d <= 0:
        return False
    b1, b2, bj = add_card(a1, a2, j, card)
    return _search(b1, b2, bj, m, d - 1, k, mp[0], mp[1], mp[2], mp[3])


@njit(cache=True, _nrt=False, forceinline=True)
def forget_played(st, p):
    """Known cards of seat ``p`` that it no longer holds are no longer known."""
    h1, h2, hj, seen = st[0], st[1], st[2], st[4]
    for c in range(53):
        if seen[p, c] > 0:
            seen[p, c] = min(seen[p, c], count_of(h1[p], h2[p], hj[p], c))


@njit(cache=True, _nrt=False, forceinline=True)
def forget_card(st, p, c):
    """:func:`forget_played` after seat ``p`` played the one card ``c``: only its code can
    change (after every play the known counts are at most the held counts)."""
    seen = st[4]
    cc = min(c, 52)
    n = count_of(st[0][p], st[1][p], st[2][p], cc)
    if seen[p, cc] > n:
        seen[p, cc] = n
