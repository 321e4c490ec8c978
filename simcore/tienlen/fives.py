"""Five-card hands of the Big Two profile of the climbing engine (numba kernels).

Big Two (``docs/rules/bigtwo.md``) plays on the Tiến Lên engine with its cards in the
order ``DCHS`` (card id ``4 * rank + suit``: 3♦ = 0 ... 2♠ = 51), so "higher card" is
still "higher bit". Singles, pairs, triples (and, as a switch, a four of a kind alone)
are Tiến Lên's classes 0..3. The five-card hands are classes of their own, numbered
``FIVE_BASE + 8 * variant + type`` with

* ``type``: ``T_STRAIGHT < T_FLUSH < T_FULL_HOUSE < T_FOUR < T_STRAIGHT_FLUSH`` (the
  order of strength: a higher type beats any hand of a lower type);
* ``variant = straights * 2 + flush_order``: the rule switches the hands depend on
  (which rank windows are straights, how flushes compare), carried in the class id so
  that :func:`.moves.count_moves_any` and :func:`.moves.unrank_move_any` need no
  parameter (Tiến Lên's own move functions are left as they were; the kernels reach this
  module only under the Big Two profile, whose ``five`` argument is not ``None``).

Within a type, hands compare by a **key** (:func:`five_key`, read by the engine from the
table's mask): a hand beats the table's hand of the same class when its key is higher,
so the legal-move scheme stays a list of ``(class, min_top)`` pairs with ``min_top =
key + 1`` (a stronger type, or a lead: ``min_top = -1``, any key).

=================  =============================================================
type               key
=================  =============================================================
straight           ``4 * w + suit of the top card``; ``w`` = the rank window's
                   place in the variant's list (:data:`STRAIGHTS`)
flush (``ranks``)  the five ranks, highest first, as base-13 digits, then the suit
flush (``suit``)   the suit, then the five ranks as base-13 digits
full house         the highest card of the triple
four + kicker      the highest card of the four
straight flush     as a straight (``4 * w + suit``)
=================  =============================================================

A straight's five cards are not all of one suit (that is a straight flush), and a
flush's ranks are no straight window of the variant.

Plays of one class are walked in a fixed order (:func:`five_walk`): straights and
straight flushes by key; flushes by suit, then their rank sets in ascending order;
full houses by triple rank, triple, pair rank, pair; fours by rank, then kicker. The
random policy's move order and the reference (``tests/references/bigtwo.py``) follow it.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.primitives.bits import popcount
from cardsim.simcore.tienlen.rules import FLUSH_ORDERS, STRAIGHT_VARIANTS

#: First five-card class id (Tiến Lên's classes are 0..23).
FIVE_BASE = 32
T_STRAIGHT, T_FLUSH, T_FULL_HOUSE, T_FOUR, T_STRAIGHT_FLUSH = range(5)
N_FIVE_TYPES = 5
FIVE_TYPE_NAMES = ("straight", "flush", "full house", "four of a kind + kicker", "straight flush")
#: The largest class id.
MAX_CLASS = FIVE_BASE + 8 * (len(STRAIGHT_VARIANTS) * len(FLUSH_ORDERS) - 1) + N_FIVE_TYPES - 1


def _windows(variant: str):
    """Rank windows of a straight variant, lowest first: ``(ranks, top rank)`` (ranks 0..12 = 3..2)."""
    plain = [(tuple(range(s, s + 5)), s + 4) for s in range(8)]  # 3-7 .. 10-A
    if variant == "wheels":  # A-2-3-4-5 < 2-3-4-5-6 < 3-4-5-6-7: the 2 (and ace) below the 3
        return [((11, 12, 0, 1, 2), 2), ((12, 0, 1, 2, 3), 3)] + plain
    if variant == "twos_high":  # ... < 10-J-Q-K-A < J-Q-K-A-2
        return plain + [(tuple(range(8, 13)), 12)]
    return plain


#: Python copy of the windows, per variant (for the reference and the docs).
STRAIGHTS = {v: _windows(v) for v in STRAIGHT_VARIANTS}
_NW = np.array([len(STRAIGHTS[v]) for v in STRAIGHT_VARIANTS], np.int64)
_WR = np.zeros((len(STRAIGHT_VARIANTS), 10, 5), np.int64)  # ranks of window w, the top rank last
_WSET = np.zeros((len(STRAIGHT_VARIANTS), 10), np.int64)  # 13-bit rank set of window w
for _v, _name in enumerate(STRAIGHT_VARIANTS):
    for _w, (_ranks, _top) in enumerate(STRAIGHTS[_name]):
        _others = [r for r in _ranks if r != _top]
        _WR[_v, _w] = _others + [_top]
        _WSET[_v, _w] = sum(1 << r for r in _ranks)
_P13 = np.array([13 ** k for k in range(6)], np.int64)
_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U15 = np.uint64(15)
#: five_walk modes
W_COUNT, W_UNRANK, W_CANON = 0, 1, 2


def five_class(straights: int, flush_order: int, five_type: int) -> int:
    """Class id of a five-card type under the encoded switches (indices of the tuples above)."""
    return FIVE_BASE + 8 * (2 * straights + flush_order) + five_type


def five_class_name(cls: int) -> str:
    return FIVE_TYPE_NAMES[(cls - FIVE_BASE) & 7]


@njit(cache=True, inline="always")
def five_type(cls):
    return (cls - FIVE_BASE) & 7


@njit(cache=True, inline="always")
def _nib(h, r):
    return np.int64((h >> np.uint64(4 * r)) & _U15)


@njit(cache=True, inline="always")
def _rank_set(h, s):
    """13-bit set of the ranks of suit ``s`` held in ``h``."""
    rs = np.int64(0)
    for r in range(13):
        if (h >> np.uint64(4 * r + s)) & _U1:
            rs |= np.int64(1) << r
    return rs


@njit(cache=True, inline="always")
def _flush_key(rs, s, by_suit):
    """Key of a flush of suit ``s`` with the 13-bit rank set ``rs`` (five ranks)."""
    lex = np.int64(0)
    for r in range(12, -1, -1):
        if (rs >> r) & 1:
            lex = lex * 13 + r
    if by_suit:
        return s * _P13[5] + lex
    return lex * 4 + s


@njit(cache=True, inline="always")
def _is_window(rs, sv):
    for w in range(_NW[sv]):
        if _WSET[sv, w] == rs:
            return True
    return False


@njit(cache=True)
def five_key(move, cls):
    """The comparison key of a five-card play ``move`` of class ``cls`` (see the module docstring)."""
    m = np.uint64(move)
    t = five_type(cls)
    variant = (cls - FIVE_BASE) >> 3
    sv = variant >> 1
    if t == T_STRAIGHT or t == T_STRAIGHT_FLUSH:
        rs = np.int64(0)
        for r in range(13):
            if _nib(m, r) != 0:
                rs |= np.int64(1) << r
        for w in range(_NW[sv]):
            if _WSET[sv, w] == rs:
                top = _WR[sv, w, 4]
                nib = _nib(m, top)
                s = 0
                while not (nib >> s) & 1:
                    s += 1
                return 4 * w + s
        return -1
    if t == T_FLUSH:
        s = 0
        while ((m >> np.uint64(s)) & np.uint64(0x1111111111111)) == _U0:
            s += 1
        return _flush_key(_rank_set(m, s), s, (variant & 1) == 1)
    best = -1
    for r in range(13):
        n = popcount(np.uint64(_nib(m, r)))
        if (t == T_FULL_HOUSE and n == 3) or (t == T_FOUR and n == 4):
            nib = _nib(m, r)
            s = 3
            while not (nib >> s) & 1:
                s -= 1
            best = 4 * r + s
    return best


@njit(cache=True, inline="always")
def _pdep(x, rs):
    """The set bits of ``rs`` selected by the low bits of ``x`` (i-th bit of x = i-th set bit of rs)."""
    out = np.int64(0)
    i = 0
    for r in range(13):
        if (rs >> r) & 1:
            if (x >> i) & 1:
                out |= np.int64(1) << r
            i += 1
    return out


@njit(cache=True, inline="always")
def _take(mode, m, key, min_key, req, k, target):
    """Account for one play ``m`` (key ``key``): returns ``(k, hit, add)``; ``hit`` when the
    walk may stop (the unranked play is ``m``), ``add`` when it is a candidate to append."""
    if key < min_key:
        return k, False, False
    if req >= 0 and not (m >> np.uint64(req)) & _U1:
        return k, False, False
    if mode == W_UNRANK and k == target:
        return k, True, False
    return k + 1, False, mode == W_CANON


@njit(cache=True, inline="always")
def _append(cand, ccls, nc, m, cls):
    if nc < cand.shape[0]:
        cand[nc] = m
        ccls[nc] = cls
        nc += 1
    return nc


@njit(cache=True, _nrt=False)
def five_walk(hand, cls, min_key, req, mode, target, cand, ccls, nc):
    """Walk the plays of five-card class ``cls`` in ``hand`` with key >= ``min_key``
    (containing card ``req`` when ``req >= 0``), in the class's order.

    ``mode``: ``W_COUNT`` returns ``(count, 0, nc)``; ``W_UNRANK`` returns ``(target,
    mask of the target-th play, nc)``; ``W_CANON`` appends the heuristic's candidates to
    ``cand, ccls`` from ``nc`` (a few per group: the first legal straight of each window,
    the first full house of each pair of ranks, up to 6 flushes per suit, every four and
    straight flush) and returns ``(count, 0, nc)``.
    """
    h = np.uint64(hand)
    t = five_type(cls)
    variant = (cls - FIVE_BASE) >> 3
    sv = variant >> 1
    k = np.int64(0)
    if t == T_STRAIGHT or t == T_STRAIGHT_FLUSH:
        for w in range(_NW[sv]):
            if 4 * w + 3 < min_key:
                continue
            n0 = _nib(h, _WR[sv, w, 0])
            n1 = _nib(h, _WR[sv, w, 1])
            n2 = _nib(h, _WR[sv, w, 2])
            n3 = _nib(h, _WR[sv, w, 3])
            n4 = _nib(h, _WR[sv, w, 4])
            if n0 == 0 or n1 == 0 or n2 == 0 or n3 == 0 or n4 == 0:
                continue
            b0 = np.uint64(4 * _WR[sv, w, 0])
            b1 = np.uint64(4 * _WR[sv, w, 1])
            b2 = np.uint64(4 * _WR[sv, w, 2])
            b3 = np.uint64(4 * _WR[sv, w, 3])
            b4 = np.uint64(4 * _WR[sv, w, 4])
            if t == T_STRAIGHT_FLUSH:
                for s in range(4):
                    if (n0 & n1 & n2 & n3 & n4) >> s & 1:
                        m = (_U1 << np.uint64(s)) << b0
                        m |= (_U1 << np.uint64(s)) << b1
                        m |= (_U1 << np.uint64(s)) << b2
                        m |= (_U1 << np.uint64(s)) << b3
                        m |= (_U1 << np.uint64(s)) << b4
                        k, hit, add = _take(mode, m, 4 * w + s, min_key, req, k, target)
                        if hit:
                            return k, m, nc
                        if add and cand is not None:
                            nc = _append(cand, ccls, nc, m, cls)
                continue
            first_in_window = True
            for s4 in range(4):
                if not (n4 >> s4) & 1:
                    continue
                for s3 in range(4):
                    if not (n3 >> s3) & 1:
                        continue
                    for s2 in range(4):
                        if not (n2 >> s2) & 1:
                            continue
                        for s1 in range(4):
                            if not (n1 >> s1) & 1:
                                continue
                            for s0 in range(4):
                                if not (n0 >> s0) & 1:
                                    continue
                                if s0 == s1 and s1 == s2 and s2 == s3 and s3 == s4:
                                    continue  # a straight flush
                                m = ((_U1 << np.uint64(s0)) << b0) | ((_U1 << np.uint64(s1)) << b1)
                                m |= ((_U1 << np.uint64(s2)) << b2) | ((_U1 << np.uint64(s3)) << b3)
                                m |= (_U1 << np.uint64(s4)) << b4
                                if mode == W_CANON and not first_in_window:
                                    continue
                                before = k
                                k, hit, add = _take(mode, m, 4 * w + s4, min_key, req, k, target)
                                if hit:
                                    return k, m, nc
                                if add and cand is not None:
                                    nc = _append(cand, ccls, nc, m, cls)
                                if k > before:
                                    first_in_window = False
        return k, _U0, nc
    if t == T_FLUSH:
        by_suit = (variant & 1) == 1
        for s in range(4):
            rs = _rank_set(h, s)
            n = popcount(np.uint64(rs))
            if n < 5:
                continue
            if by_suit and (s + 1) * _P13[5] <= min_key:
                continue
            taken = 0
            x = np.int64(31)  # 5-subsets of n items, ascending (Gosper's hack)
            while x < (np.int64(1) << n):
                sub = _pdep(x, rs)
                if not _is_window(sub, sv) and not (mode == W_CANON and taken >= 6):
                    m = _U0
                    for r in range(13):
                        if (sub >> r) & 1:
                            m |= _U1 << np.uint64(4 * r + s)
                    before = k
                    k, hit, add = _take(mode, m, _flush_key(sub, s, by_suit), min_key, req, k, target)
                    if hit:
                        return k, m, nc
                    if add and cand is not None:
                        nc = _append(cand, ccls, nc, m, cls)
                    taken += k - before
                c = x & -x
                y = x + c
                x = (((y ^ x) >> 2) // c) | y
        return k, _U0, nc
    if t == T_FULL_HOUSE:
        for tr in range(13):
            nt = _nib(h, tr)
            if popcount(np.uint64(nt)) < 3 or 4 * tr + 3 < min_key:
                continue
            for pr in range(13):
                np_ = _nib(h, pr)
                if pr == tr or popcount(np.uint64(np_)) < 2:
                    continue
                first = True
                for ts in range(16):  # triples of rank tr, ascending
                    if (ts & nt) != ts or popcount(np.uint64(ts)) != 3:
                        continue
                    top = 3
                    while not (ts >> top) & 1:
                        top -= 1
                    for ps in range(16):
                        if (ps & np_) != ps or popcount(np.uint64(ps)) != 2:
                            continue
                        if mode == W_CANON and not first:
                            continue
                        m = (np.uint64(ts) << np.uint64(4 * tr)) | (np.uint64(ps) << np.uint64(4 * pr))
                        before = k
                        k, hit, add = _take(mode, m, 4 * tr + top, min_key, req, k, target)
                        if hit:
                            return k, m, nc
                        if add and cand is not None:
                            nc = _append(cand, ccls, nc, m, cls)
                        if k > before:
                            first = False
        return k, _U0, nc
    # four of a kind + kicker
    for q in range(13):
        if _nib(h, q) != 15 or 4 * q + 3 < min_key:
            continue
        quad = _U15 << np.uint64(4 * q)
        rest = h & ~quad
        for c in range(52):
            if (rest >> np.uint64(c)) & _U1:
                m = quad | (_U1 << np.uint64(c))
                k, hit, add = _take(mode, m, 4 * q + 3, min_key, req, k, target)
                if hit:
                    return k, m, nc
                if add and cand is not None:
                    nc = _append(cand, ccls, nc, m, cls)
    return k, _U0, nc


@njit(cache=True, _nrt=False)
def classify_five(mask, sv):
    """Type of a five-card ``mask`` under straight variant ``sv`` (-1: no hand)."""
    m = np.uint64(mask)
    if popcount(m) != 5:
        return -1
    rs = np.int64(0)
    maxc = 0
    for r in range(13):
        n = popcount(np.uint64(_nib(m, r)))
        if n:
            rs |= np.int64(1) << r
            if n > maxc:
                maxc = n
    suits = 0
    for s in range(4):
        if (m >> np.uint64(s)) & np.uint64(0x1111111111111):
            suits += 1
    straight = _is_window(rs, sv)
    if straight and suits == 1:
        return T_STRAIGHT_FLUSH
    if maxc == 4:
        return T_FOUR
    if maxc == 3 and popcount(np.uint64(rs)) == 2:
        return T_FULL_HOUSE
    if suits == 1:
        return T_FLUSH
    if straight:
        return T_STRAIGHT
    return -1
