"""Contract questions for contract rummy (Loba and Continental), all ``@njit``: does a hand hold the contract, how far is it.

Hands are *planes* (see :mod:`simcore.rummy.cards`): ``a1`` / ``a2`` (uint64, bit
``suit*13 + rank`` = at least one / both copies held) and a joker count. Rule
differences are a tuple ``mp = (max_jokers, min_naturals, circular, no_adjacent)``:

- ``max_jokers``: jokers allowed in one meld at lay-down (Loba default 1; Continental
  unlimited, written 99);
- ``min_naturals``: natural cards a meld needs (Loba 2; Continental 1, house choice);
- ``circular``: escaleras wrap through the ace (Continental) or not (Loba: ace low
  A-2-3-4 or high J-Q-K-A, never K-A-2);
- ``no_adjacent``: two jokers may not be adjacent in an escalera (Continental).

Design. A contract is ``k`` tríos + ``m`` escaleras (``k + m <= 3``). Only minimal
melds matter for *whether* a hand holds a contract (a longer valid meld contains a
valid trío of 3 / escalera of 4, jokers limits and adjacency included), so the search
enumerates escaleras as 4-slot *windows* ``(suit, start)`` with a 4-bit joker pattern,
depth-first over at most 3 escaleras in canonical order (a window may repeat: two
decks). Per suit, a 13-bit mask ``x`` (``x | x << 13`` for the ace-high / circular
windows) and four shifted copies give, bit-sliced, every window start holding enough
naturals (>= 4 - usable jokers - budget) at once; only those windows are visited. Jokers
may also stand on slots whose natural is held (the natural may be needed by a trío,
5♠6♠7♠8♠ + jokers for trío + escalera, or by another escalera whose joker quota is
spent). After the escaleras the trío question is closed-form: per rank with ``R``
naturals the i-th trío costs ``max(0, 3i - R) - max(0, 3i - 3 - R)`` jokers (allowed
while ``R >= i * (3 - jokers allowed per trío)``), non-decreasing in i, so the cheapest
``k`` marginal costs over all ranks decide feasibility in O(13).

The same search with a budget of *missing* cards gives the distance to the contract
(iterative deepening), and with a value at the leaves (points melded, a small DP over
ranks for the tríos) the best lay-down.

The lay-down solver, lay-offs and discards built on this search are in
:mod:`cardsim.simcore.rummy.melds`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.primitives.bits import lowest_bit, popcount
from cardsim.simcore.rummy.cards import RANK_POINTS

_U1 = np.uint64(1)
_U13 = np.uint64(13)
_SUIT13 = np.uint64(0x1FFF)
_F4 = np.uint64(0xF)
RANK_COL = np.array([sum(1 << (s * 13 + r) for s in range(4)) for r in range(13)], np.uint64)
_POP4 = np.array([bin(i).count("1") for i in range(16)], np.int64)
#: window w = suit*13 + start: the 4 card bits of its slots
WIN_BITS = np.array([[1 << (w // 13 * 13 + (w % 13 + i) % 13) for i in range(4)] for w in range(52)], np.uint64)
INF = 1 << 20

# Meld row kinds
TRIO = 0
RUN = 1
#: lay-off answers
LAY_NO, LAY_HIGH, LAY_LOW, LAY_SWAP = 0, 1, 2, 3

# The default parameter tuples of the two games (max_jokers, min_naturals, circular, no_adjacent)
LOBA_MP = (1, 2, 0, 0)
CONTINENTAL_MP = (99, 1, 1, 1)


# --------------------------------------------------------------------------- helpers
@njit(cache=True, forceinline=True)
def _take(a1, a2, bits):
    """Remove one copy of each card of ``bits`` (all held)."""
    twos = a2 & bits
    return a1 & ~(bits & ~twos), a2 ^ twos


@njit(cache=True, forceinline=True)
def _rank_count(a1, a2, r):
    return popcount(a1 & RANK_COL[r]) + popcount(a2 & RANK_COL[r])


@njit(cache=True, forceinline=True)
def _pattern_ok(pat, max_jokers, min_naturals, no_adjacent):
    nj = _POP4[pat]
    if nj > max_jokers or 4 - nj < min_naturals:
        return False
    if no_adjacent and (pat & (pat >> 1)) != 0:
        return False
    return True


@njit(cache=True, forceinline=True)
def _window_bits(w, slots):
    """Card bits of the window slots in the 4-bit mask ``slots``."""
    bits = np.uint64(0)
    for i in range(4):
        if (slots >> i) & 1:
            bits |= WIN_BITS[w, i]
    return bits


@njit(cache=True, forceinline=True)
def _window_points(w, slots):
    pts = 0
    for i in range(4):
        if (slots >> i) & 1:
            pts += RANK_POINTS[(w % 13 + i) % 13]
    return pts


# --------------------------------------------------------------------------- tríos
@njit(cache=True, _nrt=False, forceinline=True)
def _cheapest(need, n1, n2, n3):
    """Take ``need`` items, cheapest first, from ``n1``, ``n2``, ``n3`` items costing 1, 2, 3:
    ``(cost, items still needed)``."""
    cost = 0
    for price, n in ((1, n1), (2, n2), (3, n3)):
        t = min(need, n)
        cost += price * t
        need -= t
    return cost, need


@njit(cache=True)
def trios_feasible(a1, a2, jokers, k, max_jokers, min_naturals):
    """Can ``k`` tríos of exactly 3 cards be made from the hand (no missing cards)?"""
    if k <= 0:
        return True
    jcap = min(max_jokers, 3 - min_naturals)
    nmin = 3 - jcap
    c0 = 0
    c1 = 0
    c2 = 0
    c3 = 0
    for r in range(13):
        R = _rank_count(a1, a2, r)
        q = R // 3
        c0 += q
        if c0 >= k:
            return True
        if nmin == 0:
            cost = 3 - R % 3
            extra = k
        elif R >= (q + 1) * nmin:
            cost = 3 - R % 3
            extra = R // nmin - q - 1  # further tríos at 3 jokers each
        else:
            continue
        if cost == 1:
            c1 += 1
        elif cost == 2:
            c2 += 1
        else:
            c3 += 1
        c3 += extra
    spent, need = _cheapest(k - c0, c1, c2, c3)
    return need == 0 and spent <= jokers


@njit(cache=True, _nrt=False)
def _trios_missing_greedy(a1, a2, jokers, k, jcap):
    """:func:`trios_missing` when a trío may hold 2 or 3 jokers (``jcap >= 2``), in closed form.

    With ``t`` tríos of a rank holding ``R`` naturals, ``g = max(0, 3t - R)`` slots are empty
    and ``u = max(0, (3 - jcap) t - R)`` of them cannot take a joker, so ``k`` tríos miss
    ``max(G - JJ, U)`` cards (sums over ranks, ``JJ`` the usable jokers). The marginal costs
    ``(dg, du)`` of a rank's i-th trío never decrease with ``i``, and ``du > 0`` only where
    ``dg = 3`` (the largest), so the ``k`` smallest in ``(dg, du)`` order minimise ``G`` and ``U``
    at once. (With one joker per trío a trío of 2 naturals and a joker breaks this: Loba keeps
    the DP.)"""
    JJ = min(jokers, k * jcap)
    nu = 3 - jcap
    n0 = 0
    n1 = 0
    n2 = 0
    n3 = 0  # dg = 3, du = 0
    for r in range(13):
        R = _rank_count(a1, a2, r)
        for i in range(1, k + 1):
            dg = max(0, 3 * i - R) - max(0, 3 * i - 3 - R)
            if dg == 0:
                n0 += 1
            elif dg == 1:
                n1 += 1
            elif dg == 2:
                n2 += 1
            elif max(0, nu * i - R) == max(0, nu * (i - 1) - R):
                n3 += 1
    G, need = _cheapest(k - min(k, n0), n1, n2, n3)
    G += 3 * need  # the rest: dg = 3, du = nu (1 when jcap == 2, 0 when 3)
    return max(G - JJ, need * nu)


@njit(cache=True, _nrt=True)
def trios_missing(a1, a2, jokers, k, max_jokers, min_naturals):
    """Fewest cards missing (bought naturals) to make ``k`` tríos of 3 with the hand."""
    if k <= 0:
        return 0
    jcap = min(max_jokers, 3 - min_naturals)
    if jcap >= 2:
        return _trios_missing_greedy(a1, a2, jokers, k, jcap)
    return _trios_missing_dp(a1, a2, jokers, k, jcap)


@njit(cache=True, _nrt=True)
def _trios_missing_dp(a1, a2, jokers, k, jcap):
    """:func:`trios_missing` by a DP over ranks (tríos made, jokers used) -> fewest missing."""
    JJ = min(jokers, k * jcap)
    best = np.full((4, 10), INF, np.int64)
    best[0, 0] = 0
    for r in range(13):
        R = _rank_count(a1, a2, r)
        for t0 in range(k - 1, -1, -1):
            for j0 in range(JJ + 1):
                b = best[t0, j0]
                if b >= INF:
                    continue
                for t in range(1, k - t0 + 1):
                    N = min(R, 3 * t)
                    room = min(t * jcap, 3 * t - N, JJ - j0)
                    for jj in range(room + 1):
                        v = b + 3 * t - N - jj
                        if v < best[t0 + t, j0 + jj]:
                            best[t0 + t, j0 + jj] = v
    out = INF
    for j in range(JJ + 1):
        out = min(out, best[k, j])
    return out


# --------------------------------------------------------------------------- search
@njit(cache=True, forceinline=True)
def _comes_after(miss, w, lo_miss, lo_w):
    """Does an escalera missing ``miss`` cards in window ``w`` come after ``(lo_miss, lo_w)`` in
    (missing cards, window) order? ``lo_miss = -1``: every escalera does."""
    return miss > lo_miss or (miss == lo_miss and w >= lo_w)


@njit(cache=True, forceinline=True)
def _first_of_its_hand(pat, have, max_jokers, min_naturals, no_adjacent):
    """Is ``pat`` the first valid joker pattern of its window that leaves this hand? Patterns
    with the same jokers on held slots and as many on missing ones take the same cards and
    miss as many: the same hand and budget are left, so the search below is the same."""
    on_held = pat & have
    on_missing = _POP4[pat & ~have]
    for q in range(pat):
        if (q & have) == on_held and _POP4[q & ~have] == on_missing and _pattern_ok(q, max_jokers, min_naturals,
                                                                                      no_adjacent):
            return False
    return True


@njit(cache=True)
def _next_window(a1, a2, jokers, w, pat, budget, optional, max_jokers, min_naturals, circular, no_adjacent,
                 lo_miss, lo_w):
    """The first escalera choice ``(window, joker pattern) >= (w, pat)`` within ``budget`` missing cards
    that comes after ``(lo_miss, lo_w)`` in (missing cards, window) order (:func:`_comes_after`).

    Returns ``(w, pat, a1, a2, jokers, budget)`` after taking its cards (``w = 52``:
    none left). Missing slots of the window take jokers or missing cards; with
    ``optional`` jokers may also stand on slots whose natural is held: the natural may
    be needed by a trío or by another escalera whose joker quota is spent
    (2♦3♦3♦4♦5♦5♦ + 1 joker per meld: 2-3-JK-5 and 3-4-5-JK), and a melded joker beats
    a melded natural for the best lay-down. A pattern that leaves the same hand and budget
    as an earlier one of the window (jokers on other missing slots) is skipped: the search
    below it would be the same (:func:`_first_of_its_hand`; with no missing card every
    pattern leaves a hand of its own, so the lay-down solvers see every pattern).
    """
    starts = np.uint64(0x1FFF) if circular else np.uint64(0x7FF)
    jcap = min(max_jokers, 4 - min_naturals)
    if no_adjacent:
        jcap = min(jcap, 2)
    thr = 4 - min(jokers, jcap) - budget  # naturals a window must hold
    while w < 52:
        s = w // 13
        x = (a1 >> np.uint64(13 * s)) & _SUIT13
        x = x | (x << _U13)
        c1 = x >> _U1
        c2 = x >> np.uint64(2)
        c3 = x >> np.uint64(3)
        # bit p: window starting at p holds >= thr of its 4 naturals (bit-sliced counts)
        if thr >= 4:
            cand = x & c1 & c2 & c3
        elif thr == 3:
            cand = (x & c1 & (c2 | c3)) | (c2 & c3 & (x | c1))
        elif thr == 2:
            cand = (x & (c1 | c2 | c3)) | (c1 & (c2 | c3)) | (c2 & c3)
        elif thr == 1:
            cand = x | c1 | c2 | c3
        else:
            cand = starts
        cand &= starts & ~((_U1 << np.uint64(w % 13)) - _U1)
        while cand:
            p = lowest_bit(cand)
            cand &= cand - _U1
            if s * 13 + p != w:
                w = s * 13 + p
                pat = 0
            have = np.int64((x >> np.uint64(p)) & _F4)
            need = 15 ^ have
            if budget == 0 and not optional:
                # the only candidate: jokers exactly on the missing slots
                if (pat <= need and _POP4[need] <= jokers and _comes_after(np.int64(0), w, lo_miss, lo_w)
                        and _pattern_ok(need, max_jokers, min_naturals, no_adjacent)):
                    b1, b2 = _take(a1, a2, _window_bits(w, have))
                    return w, need, b1, b2, jokers - _POP4[need], 0
                continue
            while pat < 16:
                if optional or (pat & have) == 0:
                    miss = _POP4[need & ~pat]
                    nj = _POP4[pat]
                    if (miss <= budget and nj <= jokers and _comes_after(miss, w, lo_miss, lo_w)
                            and _pattern_ok(pat, max_jokers, min_naturals, no_adjacent)
                            and (miss == 0 or _first_of_its_hand(pat, have, max_jokers, min_naturals, no_adjacent))):
                        b1, b2 = _take(a1, a2, _window_bits(w, have & ~pat))
                        return w, pat, b1, b2, jokers - nj, budget - miss
                pat += 1
        w = (s + 1) * 13
        pat = 0
    return 52, 0, a1, a2, jokers, budget


@njit(cache=True, forceinline=True)
def _trios_within(a1, a2, jokers, budget, k, max_jokers, min_naturals):
    if budget == 0:
        return trios_feasible(a1, a2, jokers, k, max_jokers, min_naturals)
    return trios_missing(a1, a2, jokers, k, max_jokers, min_naturals) <= budget


@njit(cache=True)
def _search(a1, a2, jokers, m, budget, k, max_jokers, min_naturals, circular, no_adjacent):
    """Is there a lay-down of ``m <= 3`` escaleras + ``k`` tríos with <= ``budget`` missing cards?

    Depth-first over escalera choices in canonical order (loops, not recursion: numba's
    cache cannot hold recursive functions).
    """
    if m == 0:
        return _trios_within(a1, a2, jokers, budget, k, max_jokers, min_naturals)
    zero = np.int64(0)  # variables, not literals: one compiled signature of _next_window
    no_order = np.int64(-1)
    w0 = np.int64(0)
    p0 = np.int64(0)
    while True:
        w0, p0, b1, b2, j1, r1 = _next_window(a1, a2, jokers, w0, p0, budget, jokers > 0, max_jokers, min_naturals,
                                              circular, no_adjacent, no_order, zero)
        if w0 >= 52:
            return False
        if m == 1:
            if _trios_within(b1, b2, j1, r1, k, max_jokers, min_naturals):
                return True
        else:
            w1 = w0
            p1 = np.int64(0)
            while True:
                w1, p1, c1, c2, j2, r2 = _next_window(b1, b2, j1, w1, p1, r1, j1 > 0, max_jokers, min_naturals,
                                                      circular, no_adjacent, no_order, zero)
                if w1 >= 52:
                    break
                if m == 2:
                    if _trios_within(c1, c2, j2, r2, k, max_jokers, min_naturals):
                        return True
                else:
                    w2 = w1
                    p2 = np.int64(0)
                    while True:
                        w2, p2, d1, d2, j3, r3 = _next_window(c1, c2, j2, w2, p2, r2, j2 > 0, max_jokers,
                                                              min_naturals, circular, no_adjacent, no_order, zero)
                        if w2 >= 52:
                            break
                        if _trios_within(d1, d2, j3, r3, k, max_jokers, min_naturals):
                            return True
                        p2 += 1
                p1 += 1
        p0 += 1


@njit(cache=True, forceinline=False)
def contract_ok(a1, a2, jokers, k, m, mp):
    """Does the hand hold ``k`` tríos + ``m`` escaleras (disjoint, rules ``mp``)?"""
    return _search(np.uint64(a1), np.uint64(a2), jokers, m, np.int64(0), k, mp[0], mp[1], mp[2], mp[3])


@njit(cache=True)
def contract_distance(a1, a2, jokers, k, m, mp, cap):
    """Fewest natural cards to add so the hand holds the contract (``cap + 1`` if more than ``cap``).

    Missing cards are treated as obtainable (a third copy of a card is not excluded).
    """
    a1 = np.uint64(a1)
    a2 = np.uint64(a2)
    for d in range(cap + 1):
        if _search(a1, a2, jokers, m, d, k, mp[0], mp[1], mp[2], mp[3]):
            return d
    return cap + 1


# --------------------------------------------------------------------------- faster search (game kernel)
@njit(cache=True, forceinline=False)
def _search_sorted(a1, a2, jokers, m, budget, k, max_jokers, min_naturals, circular, no_adjacent):
    """Same answer as :func:`_search`, for the game kernel's distance checks.

    The escaleras of a solution are visited in order of (missing cards, window) instead
    of window alone, so the i-th of ``e`` remaining escaleras may use at most
    ``remaining budget // e`` missing cards: with a budget of 2-4 and 2-3 escaleras this
    prunes most windows that hold a single natural.
    """
    if m == 0 or budget == 0:
        return _search(a1, a2, jokers, m, budget, k, max_jokers, min_naturals, circular, no_adjacent)
    # the tríos miss at least what they miss with the whole hand: the escaleras may miss the rest only
    low = trios_missing(a1, a2, jokers, k, max_jokers, min_naturals)
    if low > budget:
        return False
    hi0 = (budget - low) // m
    zero = np.int64(0)  # variables, not literals: one compiled signature of _next_window
    no_order = np.int64(-1)
    w0 = np.int64(0)
    p0 = np.int64(0)
    while True:
        w0, p0, b1, b2, j1, r1 = _next_window(a1, a2, jokers, w0, p0, hi0, jokers > 0, max_jokers, min_naturals,
                                              circular, no_adjacent, no_order, zero)
        if w0 >= 52:
            return False
        miss0 = hi0 - r1
        rest0 = budget - miss0
        if m == 1:
            if _trios_within(b1, b2, j1, rest0, k, max_jokers, min_naturals):
                return True
        else:
            hi1 = (rest0 - low) // (m - 1)
            w1 = np.int64(0)
            p1 = np.int64(0)
            while True:
                # only escaleras after this one in (missing cards, window) order
                w1, p1, c1, c2, j2, r2 = _next_window(b1, b2, j1, w1, p1, hi1, j1 > 0, max_jokers, min_naturals,
                                                      circular, no_adjacent, miss0, w0)
                if w1 >= 52:
                    break
                miss1 = hi1 - r2
                rest1 = rest0 - miss1
                if m == 2:
                    if _trios_within(c1, c2, j2, rest1, k, max_jokers, min_naturals):
                        return True
                else:
                    w2 = np.int64(0)
                    p2 = np.int64(0)
                    while True:
                        w2, p2, d1, d2, j3, r3 = _next_window(c1, c2, j2, w2, p2, rest1, j2 > 0, max_jokers,
                                                              min_naturals, circular, no_adjacent, miss1, w1)
                        if w2 >= 52:
                            break
                        if _trios_within(d1, d2, j3, r3, k, max_jokers, min_naturals):
                            return True
                        p2 += 1
                p1 += 1
        p0 += 1
