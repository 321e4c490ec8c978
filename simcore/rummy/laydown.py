"""The exact lay-down with same-turn lay-offs on its own new melds (fewest cards left, then fewest points), ``@njit``.

Continental lays down its combinations at any valid length (cards laid off on the same
turn count as part of the lay-down), and Loba's final round with bought cards goes out
only when the contract's melds, lengthened by same-turn lay-offs, take the whole hand
but at most one card. Both ask: which lay-down of ``k`` tríos + ``m`` escaleras, each
lengthened by lay-offs, leaves the fewest cards in hand (then the fewest points)?

Exact method (:func:`exact_laydown`):

1. every choice of the ``m`` escalera *cores* (4-card windows and joker patterns within
   the lay-down limits, jokers also on slots whose natural is held: the enumeration of
   :func:`cardsim.simcore.rummy.contract._next_window`);
2. every choice of the ``k`` trío ranks (non-decreasing) and of the jokers in each trío's
   3-card core; a trío of rank ``r`` *reserves* the naturals of its core (a count: any
   suit serves a trío);
3. the escaleras are lengthened: every held natural that fits an end is laid (beyond the
   reserved counts), and the remaining jokers are placed on escalera ends in every
   combination (the closure after each), a joker laid off anywhere it fits (``max_jokers``
   limits the lay-down only); each placement multiset is tried once. This closure is exact
   only while no natural is *contested*; when one may be (two escaleras of one suit, escaleras
   next to a trío's rank, with no trío a joker that may be stranded), :func:`_finish_search`
   also tries leaving each contested natural to the others (issue 34: AS 2S 3S 7S 8S 8S TS JS
   QS QS 2H 2D 2C + 4 jokers, 2E1T, goes out only if the T-J-Q escalera leaves 7S 8S);
4. the tríos take every remaining natural of their rank, the spare jokers go on the first
   trío (a trío takes any number of laid-off jokers).

Continental (:func:`exact_laydown_table`, issue 34): the same-turn lay-offs may also go on the melds
already on the table (and swap their jokers). Every choice scored in step 4 whose lay-down leaves
more than one card is then played out with the heuristic's lay-offs (:func:`_table_closes`, the
engine's ``greedy_layoffs`` on a copy of the table plus the new melds, after a bitmask bound); a
choice after which at most one card is left closes the hand (-10) and beats every choice that does
not, else the order above is kept (with an empty table it is unchanged).

The best over all choices is exact for the lay-off rules of
:func:`cardsim.simcore.rummy.melds.lay_off` (tested against a brute force over all meld
partitions in ``tests/rummy/test_rummy_laydown.py``).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.primitives.bits import popcount
from cardsim.simcore.rummy.cards import RANK_POINTS
from cardsim.simcore.rummy.contract import (_SUIT13, _U1, LAY_HIGH, LAY_LOW, LAY_NO, LAY_SWAP, RANK_COL, RUN, TRIO,
                                            _next_window, _rank_count, _take)
from cardsim.simcore.rummy.melds import lay_off

_U0 = np.uint64(0)


@njit(cache=True, _nrt=False)
def _left(a1, a2, j):
    """``(cards, points)`` of a hand."""
    n = j + popcount(a1) + popcount(a2)
    pts = 50 * j
    for r in range(13):  # per rank: its four suits at once
        pts += RANK_POINTS[r] * (popcount(a1 & RANK_COL[r]) + popcount(a2 & RANK_COL[r]))
    return n, pts


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
def _t_apply(rows, i, code, where, circular):
    """Lay ``code`` on row ``i`` (rows only: :func:`cardsim.simcore.rummy.engine.apply_layoff`)."""
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


@njit(cache=True, _nrt=False)
def _t_layable(rows, nr, code, mp):
    for i in range(nr):
        w = lay_off(rows[i], code, mp, np.bool_(False))
        if w != LAY_NO:
            return i, w
    return -1, 0


@njit(cache=True, _nrt=False)
def _t_swap(rows, nr, code, mp):
    """:func:`cardsim.simcore.rummy.engine.swap_target` on rows."""
    for i in range(nr):
        if rows[i, 0] != RUN:
            continue
        if lay_off(rows[i], code, mp, np.bool_(True)) != LAY_SWAP:
            continue
        r = code % 13
        jk = rows[i, 4]
        for t in range(rows[i, 3]):
            if (jk >> t) & 1 and (rows[i, 2] + t) % 13 == r:
                rows[i, 4] = jk & ~(1 << t)
                break
        for u in range(nr):
            if rows[u, 0] != RUN:
                continue
            w = lay_off(rows[u], np.int64(52), mp, np.bool_(False))
            if w != LAY_NO:
                rows[i, 4] = jk
                return i, u, w
        rows[i, 4] = jk
    return -1, -1, 0


@njit(cache=True, _nrt=False)
def _table_closes(work, m, c1, c2, jl, k, t_rank, tab, sim):
    """Do the heuristic's same-turn lay-offs (:func:`cardsim.simcore.rummy.engine.greedy_layoffs`:
    naturals in code order, joker swaps, jokers, repeated) of the hand ``c1, c2`` + ``jl`` jokers,
    on the table melds ``tab[1:]`` then this lay-down's melds (escaleras ``work``, tríos
    ``t_rank``), leave at most one card? ``tab[0]``: ``[melds, joker_swap, circular, no_adjacent,
    max_jokers, min_naturals, trío rank bits, escalera suit bits]`` of the table."""
    nt = tab[0, 0]
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
    nr = 0
    for i in range(nt):
        for c in range(6):
            sim[nr, c] = tab[i + 1, c]
        nr += 1
    for i in range(m):
        for c in range(6):
            sim[nr, c] = work[i, c]
        nr += 1
    for t in range(k):
        sim[nr, 0] = TRIO
        sim[nr, 1] = t_rank[t]
        for c in range(2, 6):
            sim[nr, c] = 0
        nr += 1
    left = popcount(c1) + popcount(c2) + jl
    changed = True
    while changed and left > 1:
        changed = False
        for c in range(52):  # naturals
            bit = _U1 << np.uint64(c)
            while c1 & bit:
                i, w = _t_layable(sim, nr, np.int64(c), mp)
                if i < 0:
                    break
                _t_apply(sim, i, c, w, circular)
                c1, c2 = _take(c1, c2, bit)
                left -= 1
                changed = True
        if tab[0, 1]:
            for c in range(52):  # joker swaps
                bit = _U1 << np.uint64(c)
                if not (c1 & bit):
                    continue
                i, u, w = _t_swap(sim, nr, np.int64(c), mp)
                if i < 0:
                    continue
                _t_apply(sim, i, c, LAY_SWAP, circular)
                c1, c2 = _take(c1, c2, bit)
                left -= 1
                w = lay_off(sim[u], np.int64(52), mp, np.bool_(False))
                _t_apply(sim, u, 52, w, circular)
                changed = True
        while jl > 0:
            i, w = _t_layable(sim, nr, np.int64(52), mp)
            if i < 0:
                break
            _t_apply(sim, i, 52, w, circular)
            jl -= 1
            left -= 1
            changed = True
    return left <= 1



@njit(cache=True, _nrt=False)
def _score(work, m, b1, b2, bj, k, t_rank, reserve, t_jok, best, best_rows, best_hand, tab, sim):
    """The tríos take every remaining natural of their rank, the spare jokers go on the first one;
    keep the result in ``best = [cards, points]`` when it beats it (escaleras ``work``, hand
    ``b1, b2`` and ``bj`` jokers after the escaleras' lay-offs)."""
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
    cl = 1 if n > 1 else 0
    if cl == 1 and tab[0, 0] > 0 and (best[2] == 1 or n < best[0] or (n == best[0] and pts < best[1])):
        if _table_closes(work, m, c1, c2, bj - extra, k, t_rank, tab, sim):
            cl = 0
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
    while top > 0 and best[0] > 0:
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
    ``seq``: scratch of at least ``j`` entries."""
    circular, no_adjacent = mp[2], mp[3]
    n_opt = 2 * m
    for used in range(j + 1):
        if used > 0 and n_opt == 0:
            break
        for t in range(used):
            seq[t] = 0
        while True:
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
    if best[0] > 0 and _needs_search(runs, m, a1, a2, j, k, reserve):
        _finish_search(runs, m, a1, a2, j, k, t_rank, t_jok, reserve, mp, best, best_rows, best_hand, work, stk,
                       stk_a, tab, sim)


@njit(cache=True, _nrt=False)
def _trio_choices(runs, m, a1, a2, j, k, mp, best, best_rows, best_hand, work, scratch, stk, stk_a, tab, sim):
    """Every choice of trío ranks and core jokers after the escalera cores ``runs``.
    ``scratch``: int64 rows of :func:`exact_laydown` (allocated once per lay-down)."""
    jcap = min(mp[0], 3 - mp[1])
    t_rank, t_jok, code, reserve, seq = scratch[0], scratch[1], scratch[2], scratch[3], scratch[4]
    reserve[:] = 0
    if k == 0:
        _finish(runs, m, a1, a2, j, k, t_rank, t_jok, reserve, mp, best, best_rows, best_hand, work, seq, stk,
                stk_a, tab, sim)
        return
    # Odometer over (rank, jokers) codes per trío, non-decreasing, restricted to the codes whose
    # trío core the hand can hold alone (any other choice fails the reserve check below):
    # the same feasible choices in the same order, without visiting all 13 (jcap + 1) codes.
    valid, idx = scratch[5], scratch[6]
    nv = 0
    for c in range(13 * (jcap + 1)):
        if 3 - c % (jcap + 1) <= _rank_count(a1, a2, c // (jcap + 1)):
            valid[nv] = c
            nv += 1
    if nv == 0:
        return
    idx[:k] = 0
    while True:
        for t in range(k):
            code[t] = valid[idx[t]]
        for r in range(13):
            reserve[r] = 0
        jused = 0
        for t in range(k):
            t_rank[t] = code[t] // (jcap + 1)
            t_jok[t] = code[t] % (jcap + 1)
            reserve[t_rank[t]] += 3 - t_jok[t]
            jused += t_jok[t]
        if jused <= j:
            ok = True
            for r in range(13):
                if reserve[r] > _rank_count(a1, a2, r):
                    ok = False
                    break
            if ok:
                _finish(runs, m, a1, a2, j - jused, k, t_rank, t_jok, reserve, mp, best, best_rows, best_hand,
                        work, seq, stk, stk_a, tab, sim)
        t = k - 1
        while t >= 0 and idx[t] == nv - 1:
            t -= 1
        if t < 0:
            return
        idx[t] += 1
        for u in range(t + 1, k):
            idx[u] = idx[t]


@njit(cache=True, forceinline=True)
def _set_core(runs, i, w, pat):
    runs[i, 0] = RUN
    runs[i, 1] = w // 13
    runs[i, 2] = w % 13
    runs[i, 3] = 4
    runs[i, 4] = pat
    runs[i, 5] = 0


@njit(cache=True, _nrt=True)
def exact_laydown(a1, a2, jokers, k, m, mp):
    """:func:`exact_laydown_table` with no meld on the table (Loba; tests)."""
    return _exact_laydown(a1, a2, jokers, k, m, mp, np.zeros((1, 8), np.int64))


@njit(cache=True, _nrt=True)
def exact_laydown_table(a1, a2, jokers, k, m, mp, mrow, nt, joker_swap):
    """:func:`_exact_laydown` for Continental, where same-turn lay-offs may go on any table meld:
    a lay-down after which the heuristic's lay-offs on the ``nt`` melds ``mrow[:nt]`` already on
    the table (and on the new ones) leave at most one card, so that the player closes (-10),
    beats any that does not; otherwise the order is unchanged (fewest cards left by the
    lay-down with its own lay-offs, then points)."""
    tab = np.zeros((nt + 1, 8), np.int64)
    tab[0, 0] = nt
    tab[0, 1] = 1 if joker_swap else 0
    tab[0, 2] = mp[2]
    tab[0, 3] = mp[3]
    tab[0, 4] = mp[0]
    tab[0, 5] = mp[1]
    for i in range(nt):
        for c in range(6):
            tab[i + 1, c] = mrow[i, c]
        if mrow[i, 0] == TRIO:
            tab[0, 6] |= 1 << mrow[i, 1]
        else:
            tab[0, 7] |= 1 << mrow[i, 1]
    return _exact_laydown(a1, a2, jokers, k, m, mp, tab)


@njit(cache=True, _nrt=True)
def _exact_laydown(a1, a2, jokers, k, m, mp, tab):
    """The lay-down of ``k`` tríos + ``m`` escaleras, lengthened by same-turn lay-offs on its own
    melds, leaving the fewest cards in hand, then the fewest points.

    Returns ``(ok, left_points, melds int64[k+m, 6], l1, l2, ljokers)`` like
    :func:`cardsim.simcore.rummy.melds.best_laydown` (escaleras first; a trío row's size,
    jokers and naturals include its lay-offs).
    """
    a1 = np.uint64(a1)
    a2 = np.uint64(a2)
    mj, mn, ci, na = mp[0], mp[1], mp[2], mp[3]
    runs = np.zeros((3, 6), np.int64)
    work = np.zeros((3, 6), np.int64)
    best = np.array([1 << 30, 1 << 30, 1], np.int64)  # cards, points, 1 = does not close
    sim = np.zeros((tab[0, 0] + 6, 6), np.int64)  # the table of :func:`_table_closes`
    best_rows = np.zeros((k + m, 6), np.int64)
    best_hand = np.zeros(3, np.uint64)
    # the tríos' ranks, core jokers, codes, reserved naturals per rank; joker placements; the
    # feasible trío codes and the odometer over them
    scratch = np.zeros((7, max(52, jokers + 1)), np.int64)
    # the stack of :func:`_finish_search`
    depth = popcount(a1) + popcount(a2) + 6 * (2 * jokers + 8)
    stk = np.zeros((depth, 12), np.int64)
    stk_a = np.zeros((depth, 2), np.uint64)
    zero = np.int64(0)  # variables, not literals: one compiled signature per callee
    optional = np.bool_(True)
    if m == 0:
        _trio_choices(runs, zero, a1, a2, jokers, k, mp, best, best_rows, best_hand, work, scratch, stk, stk_a, tab,
                      sim)
    else:
        w0 = np.int64(0)
        p0 = np.int64(0)
        while best[0] > 0:
            w0, p0, b1, b2, j1, _ = _next_window(a1, a2, jokers, w0, p0, zero, optional, mj, mn, ci, na)
            if w0 >= 52:
                break
            _set_core(runs, 0, w0, p0)
            if m == 1:
                _trio_choices(runs, np.int64(1), b1, b2, j1, k, mp, best, best_rows, best_hand, work, scratch, stk,
                              stk_a, tab, sim)
            else:
                w1 = w0
                p1 = np.int64(0)
                while best[0] > 0:
                    w1, p1, c1, c2, j2, _ = _next_window(b1, b2, j1, w1, p1, zero, optional, mj, mn, ci, na)
                    if w1 >= 52:
                        break
                    _set_core(runs, 1, w1, p1)
                    if m == 2:
                        _trio_choices(runs, np.int64(2), c1, c2, j2, k, mp, best, best_rows, best_hand, work, scratch,
                                      stk, stk_a, tab, sim)
                    else:
                        w2 = w1
                        p2 = np.int64(0)
                        while best[0] > 0:
                            w2, p2, d1, d2, j3, _ = _next_window(c1, c2, j2, w2, p2, zero, optional, mj, mn, ci, na)
                            if w2 >= 52:
                                break
                            _set_core(runs, 2, w2, p2)
                            _trio_choices(runs, np.int64(3), d1, d2, j3, k, mp, best, best_rows, best_hand, work,
                                          scratch, stk, stk_a, tab, sim)
                            p2 += 1
                    p1 += 1
            p0 += 1
    if best[0] >= 1 << 30:
        total = _left(a1, a2, jokers)[1]
        return False, total, best_rows, a1, a2, jokers
    return True, best[1], best_rows, best_hand[0], best_hand[1], np.int64(best_hand[2])
