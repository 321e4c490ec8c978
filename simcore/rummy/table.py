"""The table melds in the round kernels (``@njit``): lay-down melds, lay-offs, joker swaps, greedy lay-offs.

What a lay-down puts on the table, one lay-off, the first meld that takes a card, a joker
swap, and the heuristic's greedy lay-offs.

A table meld is a row of :mod:`cardsim.simcore.rummy.melds` (``mrow``) with its cards
(``mcards``, ``mlen``) and owner (``mown``). :func:`lay_row`, :func:`layable` and
:func:`swap_target` work on the rows alone, so that the exact lay-down's check whether the
heuristic's lay-offs close the hand (:func:`cardsim.simcore.rummy.laydown_score._table_closes`)
plays them on a scratch copy of the rows with the engine's own lay-off code.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.rummy.cards import JOKER, remove_card
from cardsim.simcore.rummy.hand import count_of
from cardsim.simcore.rummy.log import L_LAYOFF, L_SWAP, _log
from cardsim.simcore.rummy.melds import LAY_HIGH, LAY_LOW, LAY_NO, LAY_SWAP, RUN, TRIO, lay_off
from cardsim.simcore.rummy.state import P_SWAP, V_NM, V_P


@njit(cache=True, _nrt=False)
def run_cards(row, out):
    """Cards of an escalera row in position order into ``out``; returns the count."""
    L = row[3]
    for i in range(L):
        if (row[4] >> i) & 1:
            out[i] = JOKER
        else:
            out[i] = row[1] * 13 + (row[2] + i) % 13
    return L


@njit(cache=True, _nrt=True)
def build_melds(b1, b2, l1, l2, rows, owner, mrow, mcards, mlen, mown, nm):
    """Append the lay-down ``rows`` to the table with their actual cards (the cards removed
    from the hand ``b`` to leave ``l``)."""
    r1 = np.zeros(52, np.int64)
    for c in range(52):
        r1[c] = count_of(b1, b2, 0, c) - count_of(l1, l2, 0, c)
    for i in range(rows.shape[0]):
        for col in range(6):
            mrow[nm, col] = rows[i, col]
        mown[nm] = owner
        if rows[i, 0] == RUN:
            n = run_cards(rows[i], mcards[nm])
            for t in range(n):
                if mcards[nm, t] < 52:
                    r1[mcards[nm, t]] -= 1
            mlen[nm] = n
        else:
            r = rows[i, 1]
            n = 0
            need = rows[i, 4]
            for s in range(4):
                c = s * 13 + r
                while need > 0 and r1[c] > 0:
                    r1[c] -= 1
                    need -= 1
                    mcards[nm, n] = c
                    n += 1
            for t in range(rows[i, 3]):
                mcards[nm, n] = JOKER
                n += 1
            mlen[nm] = n
        nm += 1
    return nm


@njit(cache=True, _nrt=False)
def lay_row(rows, i, code, where, circular):
    """Lay ``code`` on row ``i`` (``where`` from :func:`lay_off`), the row only: :func:`apply_layoff`
    also keeps the meld's cards; the exact lay-down's table check plays on rows alone."""
    isj = 1 if code >= 52 else 0
    if rows[i, 0] == TRIO:
        rows[i, 2] += 1
        if isj:
            rows[i, 3] += 1
        else:
            rows[i, 4] += 1
        return
    L = rows[i, 3]
    if where == LAY_HIGH:
        if isj:
            rows[i, 4] |= 1 << L
        rows[i, 3] = L + 1
    elif where == LAY_LOW:
        s = rows[i, 2] - 1
        if circular:
            s = s % 13
        rows[i, 2] = s
        rows[i, 4] = (rows[i, 4] << 1) | isj
        rows[i, 3] = L + 1
    else:  # swap
        r = code % 13
        for t in range(L):
            if (rows[i, 4] >> t) & 1 and (rows[i, 2] + t) % 13 == r:
                rows[i, 4] &= ~(1 << t)
                break


@njit(cache=True, _nrt=False, forceinline=False)
def apply_layoff(mrow, mcards, mlen, i, code, where, circular):
    """Lay card ``code`` on meld ``i`` (``where`` from :func:`lay_off`). For ``LAY_SWAP`` the
    natural replaces a joker (the caller takes the joker)."""
    lay_row(mrow, i, code, where, circular)
    if mrow[i, 0] == TRIO:
        mcards[i, mlen[i]] = code
        mlen[i] += 1
    else:
        mlen[i] = run_cards(mrow[i], mcards[i])


@njit(cache=True, _nrt=False, forceinline=False)
def layable(mrow, nm, code, mp):
    """First meld accepting ``code`` (not by a swap): ``(meld, where)`` or ``(-1, 0)``."""
    for i in range(nm):
        w = lay_off(mrow[i], code, mp, np.bool_(False))
        if w != LAY_NO:
            return i, w
    return -1, 0


@njit(cache=True, _nrt=False)
def swap_target(mrow, nm, code, mp):
    """A joker swap for natural ``code``: ``(meld, meld for the released joker, where)`` or -1s."""
    for i in range(nm):
        if mrow[i, 0] != RUN:
            continue
        if lay_off(mrow[i], code, mp, np.bool_(True)) != LAY_SWAP:
            continue
        r = code % 13
        jokers = mrow[i, 4]
        # meld i as after the swap, in place (no scratch row to allocate), restored below
        for t in range(mrow[i, 3]):
            if (jokers >> t) & 1 and (mrow[i, 2] + t) % 13 == r:
                mrow[i, 4] = jokers & ~(1 << t)
                break
        for k in range(nm):
            if mrow[k, 0] != RUN:
                continue
            w = lay_off(mrow[k], np.int64(JOKER), mp, np.bool_(False))
            if w != LAY_NO:
                mrow[i, 4] = jokers
                return i, k, w
        mrow[i, 4] = jokers
    return -1, -1, 0


@njit(cache=True, _nrt=False, forceinline=False)
def greedy_layoffs(st, prm, mp, log, nl, log_on):
    """Every lay-off the heuristic makes, in its order: naturals (ascending codes, repeated), then joker
    swaps (Continental), then jokers, again while anything changed."""
    h1, h2, hj, seat, seen, mrow, mcards, mlen, mown, pile, deck, sv = st
    p = sv[V_P]
    nm = sv[V_NM]
    circular = mp[2]
    changed = True
    while changed:
        changed = False
        for c in range(52):  # naturals
            while count_of(h1[p], h2[p], hj[p], c) > 0:
                i, w = layable(mrow, nm, c, mp)
                if i < 0:
                    break
                apply_layoff(mrow, mcards, mlen, i, c, w, circular)
                h1[p], h2[p], hj[p] = remove_card(h1[p], h2[p], hj[p], c)
                nl = _log(log, nl, log_on, L_LAYOFF, p, i, c, w * mrow[i, 0], 0)
                changed = True
        if prm[P_SWAP]:
            for c in range(52):
                if count_of(h1[p], h2[p], hj[p], c) == 0:
                    continue
                i, kk, w = swap_target(mrow, nm, c, mp)
                if i < 0:
                    continue
                apply_layoff(mrow, mcards, mlen, i, c, np.int64(LAY_SWAP), circular)
                h1[p], h2[p], hj[p] = remove_card(h1[p], h2[p], hj[p], c)
                nl = _log(log, nl, log_on, L_SWAP, p, i, c, 0, 0)
                w = lay_off(mrow[kk], np.int64(JOKER), mp, np.bool_(False))
                apply_layoff(mrow, mcards, mlen, kk, np.int64(JOKER), w, circular)
                nl = _log(log, nl, log_on, L_LAYOFF, p, kk, JOKER, w * mrow[kk, 0], 0)
                changed = True
        while hj[p] > 0:
            i, w = layable(mrow, nm, np.int64(JOKER), mp)
            if i < 0:
                break
            apply_layoff(mrow, mcards, mlen, i, np.int64(JOKER), w, circular)
            hj[p] -= 1
            nl = _log(log, nl, log_on, L_LAYOFF, p, i, JOKER, w * mrow[i, 0], 0)
            changed = True
    return nl
