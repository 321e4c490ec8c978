"""Step 4 of the exact lay-down (``@njit``): the tríos fill up, the choice is scored and the best kept.

The tríos of :mod:`cardsim.simcore.rummy.laydown` take the naturals of their rank and the
spare jokers; the choice is scored (does the hand close, cards left, points) and kept when
it is the best so far (:func:`_score`).

Continental (issue 34): whether the heuristic's same-turn lay-offs on the table melds and the
new ones leave at most one card (:func:`_table_closes`), played on a scratch copy of the rows
with the engine's lay-off routines (:mod:`cardsim.simcore.rummy.table`); with the switch
``exact_close`` (issue 50), whether any sequence of them does
(:func:`cardsim.simcore.rummy.laydown_close.table_closes_exact`).

The work budget (switch ``laydown_budget``, ``B``; 0 = unlimited): ``best = [cards, points, closes,
choices scored, B, close positions]``. :func:`_score` counts the choices it scores and the positions
of the exact close search; past ``B`` positions in all the close check is the greedy one alone (as
with ``exact_close`` off), and past ``B`` choices the enumeration of
:mod:`cardsim.simcore.rummy.laydown` stops (:func:`_spent`), keeping the best choice found so far
or the greedy solver's lay-down when it is better (:func:`_consider_greedy`).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.primitives.bits import popcount
from cardsim.simcore.rummy.cards import RANK_POINTS
from cardsim.simcore.rummy.contract import _SUIT13, _U1, LAY_SWAP, RANK_COL, TRIO, _rank_count, _take
from cardsim.simcore.rummy.laydown_close import BUDGET, fill_table_rows, table_closes_exact
from cardsim.simcore.rummy.melds import lay_off
from cardsim.simcore.rummy.table import lay_row, layable, swap_target

_U0 = np.uint64(0)


@njit(cache=True, _nrt=False)
def _left(a1, a2, j):
    """``(cards, points)`` of a hand."""
    n = j + popcount(a1) + popcount(a2)
    pts = 50 * j
    for r in range(13):  # per rank: its four suits at once
        pts += RANK_POINTS[r] * (popcount(a1 & RANK_COL[r]) + popcount(a2 & RANK_COL[r]))
    return n, pts


@njit(cache=True, _nrt=False, forceinline=True)
def _spent(best):
    """Has the exact lay-down scored as many choices as its work budget allows (``best[3] >= best[4] > 0``)?"""
    return best[4] > 0 and best[3] >= best[4]


@njit(cache=True, _nrt=False)
def _table_closes(work, m, c1, c2, jl, k, t_rank, tab, sim):
    """Do the heuristic's same-turn lay-offs (:func:`cardsim.simcore.rummy.table.greedy_layoffs`:
    naturals in code order, joker swaps, jokers, repeated) of the hand ``c1, c2`` + ``jl`` jokers,
    on the table melds ``tab[1:]`` then this lay-down's melds (escaleras ``work``, tríos
    ``t_rank``), leave at most one card? ``tab[0]``: ``[melds, joker_swap, circular, no_adjacent,
    max_jokers, min_naturals, trío rank bits, escalera suit bits, exact_close]`` of the table."""
    # quick bound: a natural of a rank without a trío and a suit without an escalera stays
    rb = tab[0, 6]
    sb = tab[0, 7]
    for t in range(k):
        rb |= 1 << t_rank[t]
    for i in range(m):
        sb |= 1 << work[i, 1]
    mask = _U0
    for r in range(13):
        if (rb >> r) & 1:
            mask |= RANK_COL[r]
    for s in range(4):
        if (sb >> s) & 1:
            mask |= _SUIT13 << np.uint64(13 * s)
    if popcount(c1 & ~mask) + popcount(c2 & ~mask) > 1:
        return False
    mp = (tab[0, 4], tab[0, 5], tab[0, 2], tab[0, 3])
    circular = tab[0, 2]
    nr = fill_table_rows(work, m, k, t_rank, tab, sim)
    left = popcount(c1) + popcount(c2) + jl
    changed = True
    while changed and left > 1:
        changed = False
        for c in range(52):  # naturals
            bit = _U1 << np.uint64(c)
            while c1 & bit:
                i, w = layable(sim, nr, np.int64(c), mp)
                if i < 0:
                    break
                lay_row(sim, i, c, w, circular)
                c1, c2 = _take(c1, c2, bit)
                left -= 1
                changed = True
        if tab[0, 1]:
            for c in range(52):  # joker swaps
                bit = _U1 << np.uint64(c)
                if not (c1 & bit):
                    continue
                i, u, w = swap_target(sim, nr, np.int64(c), mp)
                if i < 0:
                    continue
                lay_row(sim, i, c, LAY_SWAP, circular)
                c1, c2 = _take(c1, c2, bit)
                left -= 1
                w = lay_off(sim[u], np.int64(52), mp, np.bool_(False))
                lay_row(sim, u, 52, w, circular)
                changed = True
        while jl > 0:
            i, w = layable(sim, nr, np.int64(52), mp)
            if i < 0:
                break
            lay_row(sim, i, 52, w, circular)
            jl -= 1
            left -= 1
            changed = True
    return left <= 1


@njit(cache=True, _nrt=False)
def _close_flag(work, m, c1, c2, jl, k, t_rank, n, pts, best, tab, sim):
    """0 when the player can close this turn after this lay-down (``n`` cards, ``pts`` points left:
    the hand ``c1, c2`` + ``jl`` jokers; escaleras ``work``, tríos ``t_rank``): at most one card left,
    or, when it may beat ``best``, the heuristic's lay-offs on the melds already on the table leave at
    most one (``tab``, Continental: issue 34), or with ``exact_close`` any sequence of them does, within
    the positions the work budget leaves (``best[4] - best[5]``; counted in ``best[5]``). Else 1."""
    if n <= 1:
        return 0
    if tab[0, 0] > 0 and (best[2] == 1 or n < best[0] or (n == best[0] and pts < best[1])):
        if _table_closes(work, m, c1, c2, jl, k, t_rank, tab, sim):
            return 0
        if tab[0, 8]:  # switch exact_close: some other sequence of lay-offs closes (issue 50)
            limit = np.int64(BUDGET) if best[4] == 0 else min(np.int64(BUDGET), best[4] - best[5])
            if limit > 0:
                found, visited = table_closes_exact(work, m, c1, c2, jl, k, t_rank, tab, sim, limit)
                best[5] += visited
                if found:
                    return 0
    return 1


@njit(cache=True, _nrt=False)
def _score(work, m, b1, b2, bj, k, t_rank, reserve, t_jok, best, best_rows, best_hand, tab, sim):
    """The tríos take every remaining natural of their rank, the spare jokers go on the first one;
    keep the result in ``best = [cards, points]`` when it beats it (escaleras ``work``, hand
    ``b1, b2`` and ``bj`` jokers after the escaleras' lay-offs). Counts the choice in ``best[3]`` and
    the positions of the exact close search in ``best[5]`` (at most ``best[4]`` in all, when not 0:
    then only the greedy check of :func:`_table_closes`)."""
    best[3] += 1
    # tríos: every remaining natural of their rank, then the spare jokers on the first one
    c1, c2 = b1, b2
    for t in range(k):
        r = t_rank[t]
        if t > 0 and t_rank[t - 1] == r:
            continue
        for s in range(4):
            bit = _U1 << np.uint64(s * 13 + r)
            while c1 & bit:
                c1, c2 = _take(c1, c2, bit)
    extra = bj if k > 0 else 0
    n, pts = _left(c1, c2, bj - extra)
    # ``cl``: 0 when the player can close this turn (at most one card left to discard), counting the
    # heuristic's lay-offs on the melds already on the table (``tab``, Continental: issue 34)
    cl = _close_flag(work, m, c1, c2, bj - extra, k, t_rank, n, pts, best, tab, sim)
    if cl < best[2] or (cl == best[2] and (n < best[0] or (n == best[0] and pts < best[1]))):
        best[0] = n
        best[1] = pts
        best[2] = cl
        for i in range(m):
            for c in range(6):
                best_rows[i, c] = work[i, c]
        row = m
        t = 0
        while t < k:
            r = t_rank[t]
            same = 1
            while t + same < k and t_rank[t + same] == r:
                same += 1
            surplus = _rank_count(b1, b2, r) - reserve[r]  # each trío keeps its core naturals
            for u in range(same):
                ni = 3 - t_jok[t + u] + (surplus if u == 0 else 0)
                ji = t_jok[t + u] + (extra if row == m else 0)
                best_rows[row, 0] = TRIO
                best_rows[row, 1] = r
                best_rows[row, 2] = ni + ji
                best_rows[row, 3] = ji
                best_rows[row, 4] = ni
                best_rows[row, 5] = 0
                row += 1
            t += same
        best_hand[0] = c1
        best_hand[1] = c2
        best_hand[2] = np.uint64(bj - extra)


@njit(cache=True, _nrt=False)
def _consider_greedy(ok, pts, rows, l1, l2, lj, m, k, best, best_rows, best_hand, work, t_rank, tab, sim):
    """The work budget's fallback: the greedy solver's lay-down (``ok, pts, rows, l1, l2, lj`` of
    :func:`cardsim.simcore.rummy.melds.best_laydown`) replaces ``best`` when it beats it in the same
    order (closes first, then cards, then points); its close is checked like any choice's."""
    if not ok:
        return
    for i in range(m):
        for c in range(6):
            work[i, c] = rows[i, c]
    for t in range(k):
        t_rank[t] = rows[m + t, 1]
    n = popcount(l1) + popcount(l2) + lj
    cl = _close_flag(work, m, l1, l2, lj, k, t_rank, n, pts, best, tab, sim)
    if cl < best[2] or (cl == best[2] and (n < best[0] or (n == best[0] and pts < best[1]))):
        best[0] = n
        best[1] = pts
        best[2] = cl
        for i in range(m + k):
            for c in range(6):
                best_rows[i, c] = rows[i, c]
        best_hand[0] = l1
        best_hand[1] = l2
        best_hand[2] = np.uint64(lj)
