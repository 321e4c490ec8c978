"""Meld solver for contract rummy (Loba and Continental), all ``@njit``: best lay-down, lay-offs, discards.

Hands are *planes* (see :mod:`cardsim.simcore.rummy.cards`) and rule differences the
tuple ``mp = (max_jokers, min_naturals, circular, no_adjacent)``, both described in
:mod:`cardsim.simcore.rummy.contract` (the contract search this module builds on and
re-exports: ``contract_ok``, ``contract_distance``, ``_search``, ``_search_sorted``).

Meld rows (``int64[6]``) describe laid melds: trío ``[0, rank, size, jokers,
naturals, 0]``; escalera ``[1, suit, start, length, joker_slots, 0]`` where positions
``start .. start+length-1`` map to rank ``pos % 13`` (Loba: ``0 <= pos <= 13``, 13 =
ace high, at most 13 positions so the ace is never both low and high; Continental:
circular, ``start`` in 0..12, at most 13 cards) and bit ``i`` of
``joker_slots`` marks slot ``start + i`` as a joker.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.rummy.cards import RANK_POINTS
# contract search pieces used here, and names re-exported for callers of this module
from cardsim.simcore.rummy.contract import (CONTINENTAL_MP, INF, LAY_HIGH, LAY_LOW, LAY_NO, LAY_SWAP,  # noqa: F401
                                            LOBA_MP, RUN, TRIO, _POP4, _U1, _next_window, _rank_count, _search,
                                            _search_sorted, _take, _window_bits, _window_points,
                                            contract_distance, contract_ok)


# --------------------------------------------------------------------------- best lay-down
@njit(cache=True, _nrt=True)
def _trio_best(a1, a2, jokers, k, max_jokers, min_naturals, absorb, tr_t, tr_j):
    """Best ``k`` tríos from the hand: returns points melded (-1 if impossible).

    Exact mode (``absorb=0``): tríos of exactly 3 cards, points = naturals + 50 per
    joker. Absorb mode (Continental lay-down with lay-offs): a chosen rank's trío(s)
    take every natural of that rank, jokers only where needed to reach 3 cards;
    points = the naturals (the caller adds the jokers). ``tr_t[r]`` / ``tr_j[r]``
    receive the tríos and jokers used per rank.
    """
    for r in range(13):
        tr_t[r] = 0
        tr_j[r] = 0
    if k <= 0:
        return 0
    jcap = min(max_jokers, 3 - min_naturals)
    JJ = min(jokers, k * jcap, 9)
    val = np.full((4, 10), -1, np.int64)
    back = np.zeros((13, 4, 10), np.int64)  # encoded (t_r * 16 + jj) * 16 + previous jokers... see below
    val[0, 0] = 0
    for r in range(13):
        R = _rank_count(a1, a2, r)
        v = RANK_POINTS[r]
        for t0 in range(k, -1, -1):
            for j0 in range(JJ, -1, -1):
                back[r, t0, j0] = -1 if val[t0, j0] < 0 else 0  # "no trío of rank r" keeps the state
        for t0 in range(k - 1, -1, -1):
            for j0 in range(JJ + 1):
                b = val[t0, j0]
                if b < 0:
                    continue  # (descending t0: a source is read before rank r can write it)
                for t in range(1, k - t0 + 1):
                    if absorb:
                        if R < t * min_naturals:
                            break
                        jj = max(0, 3 * t - R)
                        if jj > t * min(max_jokers, 3 - min_naturals) or j0 + jj > JJ:
                            continue
                        gain = R * v
                        j1 = j0 + jj
                        if b + gain > val[t0 + t, j1]:
                            val[t0 + t, j1] = b + gain
                            back[r, t0 + t, j1] = (t * 16 + jj) * 16 + j0 + 1
                    else:
                        for jj in range(max(0, 3 * t - R), min(t * jcap, JJ - j0) + 1):
                            gain = (3 * t - jj) * v + 50 * jj
                            j1 = j0 + jj
                            if b + gain > val[t0 + t, j1]:
                                val[t0 + t, j1] = b + gain
                                back[r, t0 + t, j1] = (t * 16 + jj) * 16 + j0 + 1
    best = -1
    bj = 0
    for j in range(JJ + 1):
        if val[k, j] > best:
            best = val[k, j]
            bj = j
    if best < 0:
        return -1
    # walk back over ranks
    t = k
    j = bj
    for r in range(12, -1, -1):
        code = back[r, t, j]
        if code > 0:
            prev_j = code % 16 - 1
            tj = code // 16
            tr_t[r] = tj // 16
            tr_j[r] = tj % 16
            t -= tr_t[r]
            j = prev_j
    return best


@njit(cache=True)
def _extend_runs(a1, a2, jokers, runs, n_runs, circular, no_adjacent, use_jokers):
    """Greedy lay-off of held naturals (and jokers if ``use_jokers``) onto escalera rows.

    Modifies ``runs`` (rows ``[1, suit, start, length, joker_slots, 0]``); returns
    ``(a1, a2, jokers, points added)``.
    """
    max_len = 13  # no duplicate card: ace low or high, never both (Loba) / circular (Continental)
    pts = 0
    changed = True
    while changed:
        changed = False
        for i in range(n_runs):
            s = runs[i, 1]
            while runs[i, 3] < max_len:
                start = runs[i, 2]
                length = runs[i, 3]
                hi = start + length
                if circular or hi <= 13:
                    bit = _U1 << np.uint64(s * 13 + hi % 13)
                    if a1 & bit:
                        a1, a2 = _take(a1, a2, bit)
                        runs[i, 3] += 1
                        pts += RANK_POINTS[hi % 13]
                        changed = True
                        continue
                lo = start - 1
                if circular or lo >= 0:
                    lo_r = lo % 13
                    bit = _U1 << np.uint64(s * 13 + lo_r)
                    if a1 & bit:
                        a1, a2 = _take(a1, a2, bit)
                        runs[i, 2] = lo_r if circular else lo
                        runs[i, 3] += 1
                        runs[i, 4] = runs[i, 4] << 1
                        pts += RANK_POINTS[lo_r]
                        changed = True
                        continue
                break
        if not changed and use_jokers and jokers > 0:
            for i in range(n_runs):
                start = runs[i, 2]
                length = runs[i, 3]
                if length >= max_len:
                    continue
                if (circular or start + length <= 13) and not (no_adjacent and (runs[i, 4] >> (length - 1)) & 1):
                    runs[i, 3] += 1
                    runs[i, 4] |= 1 << length
                elif (circular or start >= 1) and not (no_adjacent and runs[i, 4] & 1):
                    runs[i, 2] = (start - 1) % 13 if circular else start - 1
                    runs[i, 3] += 1
                    runs[i, 4] = (runs[i, 4] << 1) | 1
                else:
                    continue
                jokers -= 1
                pts += 50
                changed = True
                break
    return a1, a2, jokers, pts


@njit(cache=True)
def _leaf_eval(a1, a2, jokers, k, runs, n_runs, mp, extend, order, tr_t, tr_j, tr_n, work):
    """Points melded after the escaleras ``runs``: tríos, then (``extend``) lay-offs.

    ``order = 0``: tríos first, then the escaleras are extended; ``order = 1``: the
    escaleras take their naturals first. Fills ``tr_t / tr_j / tr_n`` (tríos, jokers
    and naturals per rank) and ``work`` (the extended escalera rows). Returns
    ``(points, a1, a2, jokers, extra jokers on tríos)``; points ``-1``: no tríos.
    """
    for i in range(n_runs):
        for c in range(6):
            work[i, c] = runs[i, c]
    pts = 0
    if extend and order == 1:
        a1, a2, jokers, p = _extend_runs(a1, a2, jokers, work, n_runs, mp[2], mp[3], np.bool_(False))
        pts += p
    v = _trio_best(a1, a2, jokers, k, mp[0], mp[1], extend, tr_t, tr_j)
    if v < 0:
        return -1, a1, a2, jokers, 0
    pts += v
    used_j = 0
    cap = 0
    for r in range(13):
        tr_n[r] = 0
        if tr_t[r] == 0:
            continue
        n = _rank_count(a1, a2, r) if extend else 3 * tr_t[r] - tr_j[r]
        tr_n[r] = n
        for s in range(4):
            bit = _U1 << np.uint64(s * 13 + r)
            while n > 0 and (a1 & bit):
                a1, a2 = _take(a1, a2, bit)
                n -= 1
        used_j += tr_j[r]
        cap += tr_t[r] * mp[0] - tr_j[r]
    jokers -= used_j
    if not extend:
        return pts, a1, a2, jokers, 0
    extra = min(jokers, cap)
    jokers -= extra
    pts += 50 * (used_j + extra)
    a1, a2, jokers, p = _extend_runs(a1, a2, jokers, work, n_runs, mp[2], mp[3], np.bool_(k == 0))
    return pts + p, a1, a2, jokers, extra


@njit(cache=True)
def _leaf(a1, a2, jokers, k, runs, n_runs, mp, extend, tr_t, tr_j, tr_n, work):
    """Best :func:`_leaf_eval` over the evaluation orders: ``(points, order)``."""
    v0 = _leaf_eval(a1, a2, jokers, k, runs, n_runs, mp, extend, np.int64(0), tr_t, tr_j, tr_n, work)[0]
    if not extend or n_runs == 0 or v0 < 0:
        return v0, 0
    v1 = _leaf_eval(a1, a2, jokers, k, runs, n_runs, mp, extend, np.int64(1), tr_t, tr_j, tr_n, work)[0]
    if v1 > v0:
        return v1, 1
    return v0, 0


@njit(cache=True, forceinline=True)
def _set_run(runs, i, w, pat):
    runs[i, 0] = RUN
    runs[i, 1] = w // 13
    runs[i, 2] = w % 13
    runs[i, 3] = 4
    runs[i, 4] = pat
    runs[i, 5] = 0


@njit(cache=True, forceinline=True)
def _keep(v, pts, order, depth, runs, best, best_runs):
    if v >= 0 and v + pts > best[0]:
        best[0] = v + pts
        best[1] = order
        for i in range(depth):
            for c in range(6):
                best_runs[i, c] = runs[i, c]


@njit(cache=True, _nrt=True)
def _best_search(a1, a2, jokers, k, m, mp, extend, best_runs, best, tr_t, tr_j, tr_n):
    """Best points melded over all escalera choices into ``best = [points, order]`` (-1: none)."""
    runs = np.zeros((3, 6), np.int64)
    work = np.zeros((3, 6), np.int64)
    mj, mn, ci, na = mp[0], mp[1], mp[2], mp[3]
    zero = np.int64(0)  # variables, not literals: one compiled signature per callee
    no_order = np.int64(-1)  # every escalera choice, in any (missing cards, window) order
    optional = np.bool_(True)
    best[0] = -1
    best[1] = 0
    if m == 0:
        v, order = _leaf(a1, a2, jokers, k, runs, np.int64(0), mp, extend, tr_t, tr_j, tr_n, work)
        _keep(v, 0, order, 0, runs, best, best_runs)
        return
    w0 = np.int64(0)
    p0 = np.int64(0)
    while True:
        w0, p0, b1, b2, j1, _ = _next_window(a1, a2, jokers, w0, p0, zero, optional, mj, mn, ci, na, no_order, zero)
        if w0 >= 52:
            return
        _set_run(runs, 0, w0, p0)
        pts0 = _window_points(w0, 15 & ~p0) + 50 * _POP4[p0]
        if m == 1:
            v, order = _leaf(b1, b2, j1, k, runs, np.int64(1), mp, extend, tr_t, tr_j, tr_n, work)
            _keep(v, pts0, order, 1, runs, best, best_runs)
        else:
            w1 = w0
            p1 = np.int64(0)
            while True:
                w1, p1, c1, c2, j2, _ = _next_window(b1, b2, j1, w1, p1, zero, optional, mj, mn, ci, na, no_order, zero)
                if w1 >= 52:
                    break
                _set_run(runs, 1, w1, p1)
                pts1 = pts0 + _window_points(w1, 15 & ~p1) + 50 * _POP4[p1]
                if m == 2:
                    v, order = _leaf(c1, c2, j2, k, runs, np.int64(2), mp, extend, tr_t, tr_j, tr_n, work)
                    _keep(v, pts1, order, 2, runs, best, best_runs)
                else:
                    w2 = w1
                    p2 = np.int64(0)
                    while True:
                        w2, p2, d1, d2, j3, _ = _next_window(c1, c2, j2, w2, p2, zero, optional, mj, mn, ci, na,
                                                             no_order, zero)
                        if w2 >= 52:
                            break
                        _set_run(runs, 2, w2, p2)
                        pts2 = pts1 + _window_points(w2, 15 & ~p2) + 50 * _POP4[p2]
                        v, order = _leaf(d1, d2, j3, k, runs, np.int64(3), mp, extend, tr_t, tr_j, tr_n, work)
                        _keep(v, pts2, order, 3, runs, best, best_runs)
                        p2 += 1
                p1 += 1
        p0 += 1


@njit(cache=True, _nrt=True)
def best_laydown(a1, a2, jokers, k, m, mp, extend):
    """The lay-down of ``k`` tríos + ``m`` escaleras leaving the fewest points in hand.

    ``extend = 0``: melds of exactly 3 / 4 cards (Loba: "exactly the contract"); exact.
    ``extend = 1`` (the old Continental lay-down with same-turn lay-offs, kept for the
    switches ``exact_laydown=off`` / ``exact_go_out=off``): the minimal melds are
    enumerated exactly; then tríos take every natural of their rank and the spare jokers
    and escaleras are extended at both ends (jokers on escaleras only without tríos),
    trying escaleras-first and tríos-first. This greedy lay-off maximises the points
    laid, not the cards, and misses lay-downs (issue 13); the exact answer (fewest cards,
    then points) is :func:`cardsim.simcore.rummy.laydown.exact_laydown`.

    Returns ``(ok, left_points, melds int64[k+m, 6], l1, l2, ljokers)``: the meld rows
    (escaleras first) and the planes of the cards left in hand.
    """
    a1 = np.uint64(a1)
    a2 = np.uint64(a2)
    n = k + m
    melds = np.zeros((n, 6), np.int64)
    best_runs = np.zeros((3, 6), np.int64)
    work = np.zeros((3, 6), np.int64)
    best = np.zeros(2, np.int64)
    tr_t = np.zeros(13, np.int64)
    tr_j = np.zeros(13, np.int64)
    tr_n = np.zeros(13, np.int64)
    total = jokers * 50
    for c in range(52):
        bit = _U1 << np.uint64(c)
        total += RANK_POINTS[c % 13] * (((a1 & bit) != 0) + ((a2 & bit) != 0))
    _best_search(a1, a2, jokers, k, m, mp, extend, best_runs, best, tr_t, tr_j, tr_n)
    if best[0] < 0:
        return False, total, melds, a1, a2, jokers
    # replay the best choice
    for i in range(m):
        w = best_runs[i, 1] * 13 + best_runs[i, 2]
        pat = best_runs[i, 4]
        a1, a2 = _take(a1, a2, _window_bits(w, 15 & ~pat))
        jokers -= _POP4[pat]
    pts, a1, a2, jokers, extra = _leaf_eval(a1, a2, jokers, k, best_runs, m, mp, extend, best[1],
                                            tr_t, tr_j, tr_n, work)
    for i in range(m):
        for c in range(6):
            melds[i, c] = work[i, c]
    row = m
    for r in range(13):
        t = tr_t[r]
        nat = tr_n[r]
        for i in range(t):
            ni = nat // t + (1 if i < nat % t else 0)
            ji = max(0, 3 - ni)
            if row == m:  # spare jokers sit on the first trío
                ji += extra
            melds[row, 0] = TRIO
            melds[row, 1] = r
            melds[row, 2] = ni + ji
            melds[row, 3] = ji
            melds[row, 4] = ni
            row += 1
    left_pts = jokers * 50
    for c in range(52):
        bit = _U1 << np.uint64(c)
        left_pts += RANK_POINTS[c % 13] * (((a1 & bit) != 0) + ((a2 & bit) != 0))
    return True, left_pts, melds, a1, a2, jokers


# --------------------------------------------------------------------------- lay-off, discard
@njit(cache=True, _nrt=False, forceinline=False)
def lay_off(meld, code, mp, joker_swap):
    """Where card ``code`` can go on the table meld row ``meld``.

    Returns ``LAY_HIGH`` (trío, or the escalera's high end), ``LAY_LOW`` (escalera low
    end), ``LAY_SWAP`` (a natural that replaces a joker of the escalera, when
    ``joker_swap``) or ``LAY_NO``. Jokers may be laid off anywhere the escalera's
    adjacency rule allows (``max_jokers`` limits the lay-down only).
    """
    circular = mp[2]
    no_adjacent = mp[3]
    if meld[0] == TRIO:
        if code >= 52:
            return LAY_HIGH
        return LAY_HIGH if code % 13 == meld[1] else LAY_NO
    suit, start, length, jm = meld[1], meld[2], meld[3], meld[4]
    max_len = 13  # Loba: A-..-K or 2-..-A, never A-2-..-K-A (the ace is high or low, not both)
    if code >= 52:
        if length >= max_len:
            return LAY_NO
        if (circular or start + length <= 13) and not (no_adjacent and (jm >> (length - 1)) & 1):
            return LAY_HIGH
        if (circular or start >= 1) and not (no_adjacent and jm & 1):
            return LAY_LOW
        return LAY_NO
    if code // 13 != suit:
        return LAY_NO
    r = code % 13
    if length < max_len:
        hi = start + length
        if (circular or hi <= 13) and hi % 13 == r:
            return LAY_HIGH
        lo = start - 1
        if (circular or lo >= 0) and lo % 13 == r:
            return LAY_LOW
    if joker_swap:
        for i in range(length):
            if (jm >> i) & 1 and (start + i) % 13 == r:
                return LAY_SWAP
    return LAY_NO


@njit(cache=True)
def best_discard(a1, a2, jokers, k, m, mp, cap):
    """The discard that leaves the hand closest to its contract.

    Distance = :func:`contract_distance` (capped: ``cap + 1`` means "more than
    ``cap``"); ties go to the card with the most points (shed points), then the
    highest code; a joker only when strictly better. Returns ``(code, distance)``.

    Removing a card raises the distance by 0 or 1, so after one distance computation
    for the whole hand (``d``) each discard needs a single search at budget ``d``.
    """
    a1 = np.uint64(a1)
    a2 = np.uint64(a2)
    d_full = contract_distance(a1, a2, jokers, k, m, mp, cap)
    best_code = -1
    best_d = INF
    best_pts = -1
    for c in range(52):
        bit = _U1 << np.uint64(c)
        if (a1 & bit) == 0:
            continue
        if a2 & bit:
            b1, b2 = a1, a2 ^ bit
        else:
            b1, b2 = a1 ^ bit, a2
        if d_full > cap:
            d = cap + 1
        elif _search(b1, b2, jokers, m, d_full, k, mp[0], mp[1], mp[2], mp[3]):
            d = d_full
        else:
            d = min(d_full + 1, cap + 1)
        p = RANK_POINTS[c % 13]
        if d < best_d or (d == best_d and p >= best_pts):
            best_d = d
            best_pts = p
            best_code = c
    if jokers > 0 and d_full < best_d and _search(a1, a2, jokers - 1, m, d_full, k, mp[0], mp[1], mp[2], mp[3]):
        best_d = d_full
        best_code = 52
    return best_code, best_d


# --------------------------------------------------------------------------- reference (pure Python)
def ref_valid_trio(cards, mp, exact):
    """Pure-Python check of a trío (list of card codes) under rules ``mp``."""
    naturals = [c for c in cards if c < 52]
    jokers = len(cards) - len(naturals)
    if (len(cards) != 3) if exact else (len(cards) < 3):
        return False
    if len(naturals) < mp[1] or jokers > mp[0]:
        return False
    return len({c % 13 for c in naturals}) <= 1


def ref_valid_run(cards, mp, exact):
    """Pure-Python check of an escalera: some window of positions holds the naturals."""
    naturals = [c for c in cards if c < 52]
    jokers = len(cards) - len(naturals)
    length = len(cards)
    if (length != 4) if exact else not (4 <= length <= 13):
        return False
    if len(naturals) < mp[1] or jokers > mp[0]:
        return False
    if len({c // 13 for c in naturals}) > 1 or len(set(naturals)) != len(naturals):
        return False
    ranks = {c % 13 for c in naturals}
    starts = range(13) if mp[2] else range(0, 14 - length + 1)
    for p in starts:
        window = [(p + i) % 13 for i in range(length)]
        if not ranks <= set(window):
            continue
        joker_slots = [i for i, r in enumerate(window) if r not in ranks]
        if mp[3] and any(b - a == 1 for a, b in zip(joker_slots, joker_slots[1:])):
            continue
        return True
    return False


def ref_melds(cards, mp, exact):
    """All valid melds of a hand: ``(kind, index tuple)`` (pure Python, exponential)."""
    from itertools import combinations

    out = []
    n = len(cards)
    for size in range(3, n + 1):
        for idx in combinations(range(n), size):
            sub = [cards[i] for i in idx]
            if ref_valid_trio(sub, mp, exact):
                out.append((TRIO, idx))
            if ref_valid_run(sub, mp, exact):
                out.append((RUN, idx))
    return out


def ref_best(cards, k, m, mp, exact):
    """Brute force over disjoint meld choices: ``(ok, max points melded)``."""
    from cardsim.simcore.rummy.cards import hand_points

    melds = ref_melds(cards, mp, exact)
    trios = [set(i) for kind, i in melds if kind == TRIO]
    runs = [set(i) for kind, i in melds if kind == RUN]
    best = -1

    def rec(used, pool, start, left, then_left):
        nonlocal best
        if left == 0:
            if then_left is None:
                pts = hand_points([cards[i] for i in used])
                best = max(best, pts)
                return
            rec(used, trios, 0, then_left, None)
            return
        for j in range(start, len(pool)):
            if used & pool[j]:
                continue
            rec(used | pool[j], pool, j, left - 1, then_left)

    rec(set(), runs, 0, m, k) if m else rec(set(), trios, 0, k, None)
    return best >= 0, best


def ref_contract_ok(cards, k, m, mp, exact=True):
    """Brute-force contract check (minimal melds suffice; ``exact=False`` allows longer)."""
    return ref_best(cards, k, m, mp, exact)[0]
