"""Step 3 of the exact lay-down (``@njit``): the escaleras lengthened by naturals and jokers.

The escalera cores of :mod:`cardsim.simcore.rummy.laydown` are lengthened by the held
naturals that fit their ends and by every multiset of joker placements (:func:`_finish`),
with the search over contested naturals (:func:`_finish_search`, issue 34); each lengthened
choice is scored by :func:`cardsim.simcore.rummy.laydown_score._score`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.primitives.bits import popcount
from cardsim.simcore.rummy.contract import _SUIT13, _U1, _rank_count, _take
from cardsim.simcore.rummy.laydown_score import _score, _spent

_U0 = np.uint64(0)


@njit(cache=True, _nrt=False)
def _close_runs(rows, m, a1, a2, reserve, circular):
    """Lay every held natural that fits an escalera end (keeping ``reserve[r]`` naturals of rank ``r``)."""
    changed = True
    while changed:
        changed = False
        for i in range(m):
            while rows[i, 3] < 13:
                s = rows[i, 1]
                start = rows[i, 2]
                hi = start + rows[i, 3]
                if circular or hi <= 13:
                    r = hi % 13
                    bit = _U1 << np.uint64(s * 13 + r)
                    if (a1 & bit) and _rank_count(a1, a2, r) > reserve[r]:
                        a1, a2 = _take(a1, a2, bit)
                        rows[i, 3] += 1
                        changed = True
                        continue
                lo = start - 1
                if circular or lo >= 0:
                    r = lo % 13
                    bit = _U1 << np.uint64(s * 13 + r)
                    if (a1 & bit) and _rank_count(a1, a2, r) > reserve[r]:
                        a1, a2 = _take(a1, a2, bit)
                        rows[i, 2] = r if circular else lo
                        rows[i, 3] += 1
                        rows[i, 4] = rows[i, 4] << 1
                        changed = True
                        continue
                break
    return a1, a2


@njit(cache=True, _nrt=False)
def _place_joker(rows, i, high, circular, no_adjacent):
    """Lay a joker on escalera ``i``'s high (or low) end when the rules allow; returns success."""
    L = rows[i, 3]
    if L >= 13:
        return False
    if high:
        if not (circular or rows[i, 2] + L <= 13) or (no_adjacent and (rows[i, 4] >> (L - 1)) & 1):
            return False
        rows[i, 4] |= 1 << L
        rows[i, 3] = L + 1
        return True
    if not (circular or rows[i, 2] >= 1) or (no_adjacent and rows[i, 4] & 1):
        return False
    rows[i, 2] = (rows[i, 2] - 1) % 13 if circular else rows[i, 2] - 1
    rows[i, 4] = (rows[i, 4] << 1) | 1
    rows[i, 3] = L + 1
    return True


@njit(cache=True, _nrt=False)
def _fitting(work, i, high, b1, b2, reserve, circular):
    """The held natural that fits escalera ``i``'s high (low) end beyond the reserve: ``(bit, rank)``
    (bit 0: none)."""
    L = work[i, 3]
    if L >= 13:
        return _U0, np.int64(-1)
    if high:
        p = work[i, 2] + L
        if not (circular or p <= 13):
            return _U0, np.int64(-1)
    else:
        p = work[i, 2] - 1
        if not (circular or p >= 0):
            return _U0, np.int64(-1)
    r = p % 13
    bit = _U1 << np.uint64(work[i, 1] * 13 + r)
    if (b1 & bit) and _rank_count(b1, b2, r) > reserve[r]:
        return bit, r
    return _U0, r


@njit(cache=True, _nrt=False)
def _lay_natural(work, i, high, circular):
    """Lengthen escalera ``i`` by the natural at its high (low) end."""
    if not high:
        lo = work[i, 2] - 1
        work[i, 2] = lo % 13 if circular else lo
        work[i, 4] = work[i, 4] << 1
    work[i, 3] += 1


@njit(cache=True, _nrt=False)
def _contested(work, m, i, r, reserve, k, jl, b1):
    """May leaving the natural of rank ``r`` that fits escalera ``i`` in hand beat laying it?

    Only when something else may want it: another escalera of its suit, another escalera that
    may want a natural of a trío's rank (the tríos' reserve caps them together), or, with no
    trío to take spare jokers (``k == 0``), a joker that laying the natural may strand in hand
    (possible only when the escalera may reach 13 cards). Elsewhere laying it is never worse
    (the closure of the old method)."""
    if m >= 2 and reserve[r] > 0:
        return True
    s = work[i, 1]
    for u in range(m):
        if u != i and work[u, 1] == s:
            return True
    if k == 0 and jl > 0:
        ns = popcount((b1 >> np.uint64(13 * s)) & _SUIT13)
        if work[i, 3] + jl + ns >= 13:
            return True
    return False


@njit(cache=True, _nrt=False)
def _push(stk, stk_a, top, work, m, b1, b2, jl, dmask, elast):
    for i in range(m):
        stk[top, 3 * i] = work[i, 2]
        stk[top, 3 * i + 1] = work[i, 3]
        stk[top, 3 * i + 2] = work[i, 4]
    stk[top, 9] = jl
    stk[top, 10] = dmask
    stk[top, 11] = elast
    stk_a[top, 0] = b1
    stk_a[top, 1] = b2
    return top + 1


@njit(cache=True, _nrt=False)
def _needs_search(runs, m, a1, a2, j, k, reserve):
    """Can a contested natural (:func:`_contested`) occur after the escalera cores ``runs``?"""
    if m >= 2:
        for r in range(13):
            if reserve[r] > 0 and _rank_count(a1, a2, r) > reserve[r]:
                return True
        for u in range(m):
            for v in range(u + 1, m):
                if runs[u, 1] == runs[v, 1]:
                    return True
    if k == 0 and j > 0:
        for i in range(m):
            if runs[i, 3] + j + popcount((a1 >> np.uint64(13 * runs[i, 1])) & _SUIT13) >= 13:
                return True
    return False


@njit(cache=True, _nrt=False)
def _finish_search(runs, m, a1, a2, j, k, t_rank, t_jok, reserve, mp, best, best_rows, best_hand, work, stk,
                   stk_a, tab, sim):
    """The exact lengthening when naturals are contested: a depth-first search that lays each
    fitting natural or, when it is contested, also leaves it (that end then takes no natural
    there until a joker moves it), and places the jokers as multisets of ends (non-decreasing end
    index) with that closure after each; every closed state is scored (:func:`_score`).

    Any final set of escaleras is reached: follow it end by end in index order (a natural it lays
    is taken, one it does not lay is contested or unavailable, or an equally good final set lays
    it). ``stk`` / ``stk_a``: scratch stack of at least ``naturals + 6 (2 j + 8)`` rows (the
    pending branches: one per natural laid, ``2 m <= 6`` per joker or left natural on the path)."""
    circular, no_adjacent = mp[2], mp[3]
    for i in range(m):
        for c in range(6):
            work[i, c] = runs[i, c]
    top = _push(stk, stk_a, 0, work, m, a1, a2, j, 0, 0)
    while top > 0 and best[0] > 0 and not _spent(best):
        top -= 1
        for i in range(m):
            work[i, 2] = stk[top, 3 * i]
            work[i, 3] = stk[top, 3 * i + 1]
            work[i, 4] = stk[top, 3 * i + 2]
        b1 = stk_a[top, 0]
        b2 = stk_a[top, 1]
        jl = stk[top, 9]
        dmask = stk[top, 10]
        elast = stk[top, 11]
        # closure: lay the fitting naturals, branching on the contested ones (a lay-down only
        # shrinks the hand, so an end found closed stays closed)
        e = 0
        while e < 2 * m:
            if (dmask >> e) & 1:
                e += 1
                continue
            i = e // 2
            high = e % 2 == 0
            bit, r = _fitting(work, i, high, b1, b2, reserve, circular)
            if bit == _U0:
                e += 1
                continue
            if _contested(work, m, i, r, reserve, k, jl, b1):
                top = _push(stk, stk_a, top, work, m, b1, b2, jl, dmask | (1 << e), elast)
            b1, b2 = _take(b1, b2, bit)
            _lay_natural(work, i, high, circular)
        _score(work, m, b1, b2, jl, k, t_rank, reserve, t_jok, best, best_rows, best_hand, tab, sim)
        if jl > 0:
            for e in range(2 * m - 1, elast - 1, -1):  # pushed in reverse: the lowest end is explored first
                i = e // 2
                s2, s3, s4 = work[i, 2], work[i, 3], work[i, 4]
                if _place_joker(work, i, e % 2 == 0, circular, no_adjacent):
                    top = _push(stk, stk_a, top, work, m, b1, b2, jl - 1, dmask & ~(1 << e), e)
                    work[i, 2], work[i, 3], work[i, 4] = s2, s3, s4


@njit(cache=True, _nrt=False)
def _finish(runs, m, a1, a2, j, k, t_rank, t_jok, reserve, mp, best, best_rows, best_hand, work, seq, stk,
            stk_a, tab, sim):
    """Lengthen the escaleras (naturals, then every multiset of joker placements), let the tríos
    take their rank and the spare jokers; keep the best result in ``best = [cards, points]``.
    ``seq``: scratch of at least ``j`` entries. Stops when the work budget is spent (:func:`_spent`)."""
    circular, no_adjacent = mp[2], mp[3]
    n_opt = 2 * m
    for used in range(j + 1):
        if used > 0 and n_opt == 0:
            break
        for t in range(used):
            seq[t] = 0
        while True:
            if _spent(best):  # the work budget (switch laydown_budget): keep the best so far
                return
            for i in range(m):
                for c in range(6):
                    work[i, c] = runs[i, c]
            b1, b2 = _close_runs(work, m, a1, a2, reserve, circular)
            ok = True
            for t in range(used):
                o = seq[t]
                if not _place_joker(work, o // 2, o % 2 == 0, circular, no_adjacent):
                    ok = False
                    break
                b1, b2 = _close_runs(work, m, b1, b2, reserve, circular)
            if ok:
                _score(work, m, b1, b2, j - used, k, t_rank, reserve, t_jok, best, best_rows, best_hand, tab, sim)
            # next non-decreasing placement sequence
            t = used - 1
            while t >= 0 and seq[t] == n_opt - 1:
                t -= 1
            if t < 0:
                break
            seq[t] += 1
            for u in range(t + 1, used):
                seq[u] = seq[t]
    # the closure above lays every fitting natural at once: exact unless naturals are contested
    # (two escaleras of one suit, a trío's rank, a stranded joker); then search (issue 34)
    if best[0] > 0 and not _spent(best) and _needs_search(runs, m, a1, a2, j, k, reserve):
        _finish_search(runs, m, a1, a2, j, k, t_rank, t_jok, reserve, mp, best, best_rows, best_hand, work, stk,
                       stk_a, tab, sim)
