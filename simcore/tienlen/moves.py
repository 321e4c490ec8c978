"""Tiến Lên legal moves on ``uint64`` hand masks (numba kernels).

A play is a card mask (bit = card id = 4·rank + suit); the empty mask is a pass.
Every combination belongs to one **class** (type and length), numbered in a fixed order:

====================  ==========================================
class id              combination
====================  ==========================================
0, 1, 2, 3            single, pair, triple, four of a kind
4 + L - 3  (4..13)    sequence of ``L`` = 3..12 consecutive ranks
14 + L - 3 (14..23)   double sequence of ``L`` = 3..12 pairs
====================  ==========================================

The legal plays in a position are described by a short list of ``(class, min_top)``
pairs (:func:`allowed_classes`): a play of that class is legal when its top card (the
highest card id) is ``>= min_top``. Within a class the plays are counted and *unranked*
without building lists (per-rank nibble tables, products over rank windows), so the
random policy draws a uniform legal move with two cheap walks and no allocation.

Move order (used by the random policy and mirrored by :mod:`references.tienlen`):
plays sorted by ``(class id, mask as an integer)``, then the pass (when allowed) last.

Bomb ladders (the spec's ``chop_rules``), besides "same class, higher top card":

* ``seed`` (0): a single 2 may be beaten by a four of a kind or a double sequence of 3
  pairs; a pair of 2s by a double sequence of 4 pairs; three 2s by one of 5 pairs --
  "or more" pairs with ``chop_length = at_least`` (0, the seed), exactly that many with
  ``exact`` (1).
* ``southern`` (1): a four of a kind beats a single 2, a pair of 2s and any 3-pair
  double sequence (and lower fours); a 4-pair double sequence beats fours, 3-pair
  double sequences, a single 2 and a pair of 2s; a 3-pair double sequence still beats a
  single 2; three 2s cannot be chopped.
* Both: nothing beats four 2s (so, house reading of the spec, a 4-pair double sequence
  does **not** beat four 2s under ``southern``).

``bombs_after_pass`` for a player who already passed this trick: ``none`` (0) nothing;
``all`` (1) any legal play of a four of a kind or double sequence; ``four_pairs`` (2)
only a legal 4-pair double sequence.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.primitives.bits import lowest_bit, popcount
from cardsim.simcore.tienlen.deal import rank_planes
from cardsim.simcore.tienlen.fives import FIVE_BASE, N_FIVE_TYPES, W_COUNT, W_UNRANK, five_class_name, five_walk
from cardsim.simcore.tienlen.rules import BAP_ALL, BAP_FOUR_PAIRS, CHOP_AT_LEAST, CHOP_SEED

N_CLASSES = 24
CLS_SINGLE, CLS_PAIR, CLS_TRIPLE, CLS_FOUR = 0, 1, 2, 3
CLS_SEQ3 = 4
CLS_DSEQ3, CLS_DSEQ4, CLS_DSEQ5 = 14, 15, 16

_R3A = np.uint64(0x111111111111)  # unit bit of ranks 3..A (no 2s)
_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U4 = np.uint64(4)
_U15 = np.uint64(15)


def class_name(cls: int) -> str:
    """Human name of a class id (``"pair"``, ``"sequence of 5"``, ``"double sequence of 3"``)."""
    if cls < 0:
        return "pass"
    if cls >= FIVE_BASE:
        return five_class_name(cls)
    if cls < 4:
        return ("single", "pair", "triple", "four of a kind")[cls]
    if cls < 14:
        return f"sequence of {cls - 1}"
    return f"double sequence of {cls - 11}"


def _build_tables():
    """``CNT[k, nib, ms]``: k-subsets of a rank nibble whose top suit is >= ms;
    ``SUB[k, nib, ms, i]``: the i-th of them, ascending as integers."""
    cnt = np.zeros((5, 16, 5), np.int64)
    sub = np.zeros((5, 16, 5, 6), np.uint64)
    for k in range(5):
        for nib in range(16):
            subs = [s for s in range(16) if (s & nib) == s and bin(s).count("1") == k]
            for ms in range(5):
                if k == 0:
                    sel = [0] if ms == 0 else []
                else:
                    sel = [s for s in subs if s.bit_length() - 1 >= ms]
                cnt[k, nib, ms] = len(sel)
                for i, s in enumerate(sel):
                    sub[k, nib, ms, i] = s
    return cnt, sub


_CNT, _SUB = _build_tables()


@njit(cache=True, inline="always")
def class_k(cls):
    """Cards per rank in a play of class ``cls``."""
    if cls < 4:
        return cls + 1
    if cls < 14:
        return 1
    return 2


@njit(cache=True, inline="always")
def class_len(cls):
    """Number of ranks in a play of class ``cls``."""
    if cls < 4:
        return 1
    if cls < 14:
        return cls - 1
    return cls - 11


@njit(cache=True, inline="always")
def is_bomb_class(cls):
    """Four of a kind or double sequence (any length); under the Big Two profile the
    five-card hands (ids >= ``FIVE_BASE``) too: they only count as "bombs played"."""
    return cls == CLS_FOUR or cls >= CLS_DSEQ3


@njit(cache=True)
def classify(mask):
    """Class id of a card mask, or -1 if it is no combination (0 cards included)."""
    m = np.uint64(mask)
    n = popcount(m)
    if n == 0:
        return -1
    ge1, ge2, ge3, eq4 = rank_planes(m)
    nr = popcount(ge1)
    if nr == 1:
        return n - 1
    if (ge1 & ~_R3A) != 0:  # a 2 in a multi-rank play
        return -1
    lo = lowest_bit(ge1)
    # ranks must be consecutive: ge1 >> lo is a run of nr unit bits
    run = np.uint64(0)
    for j in range(nr):
        run |= _U1 << np.uint64(4 * j)
    if (ge1 >> np.uint64(lo)) != run:
        return -1
    if n == nr and nr >= 3:
        return CLS_SEQ3 + nr - 3
    if n == 2 * nr and nr >= 3 and ge2 == ge1 and ge3 == 0:
        return CLS_DSEQ3 + nr - 3
    return -1


@njit(cache=True, inline="always")
def _choices(h, r, k, ms, req):
    """Ways to pick ``k`` cards of rank ``r`` (top suit >= ms; containing ``req`` if in r)."""
    nib = np.int64((h >> np.uint64(4 * r)) & _U15)
    if req >= 0 and r == (req >> 2):
        rb = np.int64(1) << (req & 3)
        return _CNT[k - 1, nib & ~rb, 0]
    return _CNT[k, nib, ms]


@njit(cache=True, inline="always")
def _pick(h, r, k, ms, req, d):
    """The ``d``-th choice counted by :func:`_choices`, as a mask at rank ``r``."""
    nib = np.int64((h >> np.uint64(4 * r)) & _U15)
    if req >= 0 and r == (req >> 2):
        rb = np.int64(1) << (req & 3)
        s = _SUB[k - 1, nib & ~rb, 0, d] | np.uint64(rb)
    else:
        s = _SUB[k, nib, ms, d]
    return s << np.uint64(4 * r)


@njit(cache=True, inline="always")
def _windows(h, k, L, rt, req):
    """Unit bits ``4s`` of the rank windows ``s..s+L-1`` (no 2s) holding >= k cards per
    rank, with top rank >= rt (and containing the rank of ``req`` when req >= 0)."""
    ge1, ge2, ge3, eq4 = rank_planes(h)
    present = (ge1 if k == 1 else ge2) & _R3A
    run = present
    for j in range(1, L):
        run &= present >> np.uint64(4 * j)
    lo = rt - L + 1
    if req >= 0:
        rq = req >> 2
        if rq - L + 1 > lo:
            lo = rq - L + 1
        run &= (_U1 << np.uint64(4 * rq + 1)) - _U1
    if lo > 0:
        run &= ~((_U1 << np.uint64(4 * lo)) - _U1)
    return run


@njit(cache=True, _nrt=False)
def count_class(hand, cls, min_top, req):
    """Number of plays of class ``cls`` in ``hand`` with top card >= ``min_top``
    (that contain card ``req`` when ``req >= 0``; only used with ``min_top == 0``).
    Tiến Lên's classes only: :func:`count_moves` counts the five-card ones (:mod:`.fives`)."""
    if min_top >= 52:
        return 0
    h = np.uint64(hand)
    rt = min_top >> 2
    ms = min_top & 3
    k = class_k(cls)
    if cls < 4:
        if req >= 0:
            r = req >> 2
            if r < rt:
                return 0
            return _choices(h, r, k, ms if r == rt else 0, req)
        if k == 1:
            return popcount(h >> np.uint64(min_top))
        ge1, ge2, ge3, eq4 = rank_planes(h)
        above = ~((_U1 << np.uint64(4 * rt + 4)) - _U1)
        if k == 2:
            n = popcount(ge2 & above) + 2 * popcount(ge3 & above) + 3 * popcount(eq4 & above)
        elif k == 3:
            n = popcount(ge3 & above) + 3 * popcount(eq4 & above)
        else:
            n = popcount(eq4 & above)
        return n + _CNT[k, np.int64((h >> np.uint64(4 * rt)) & _U15), ms]
    L = class_len(cls)
    run = _windows(h, k, L, rt, req)
    total = 0
    while run != 0:
        s = lowest_bit(run) >> 2
        run &= run - _U1
        top = s + L - 1
        p = _choices(h, top, k, ms if top == rt else 0, req)
        for r in range(s, top):
            p *= _choices(h, r, k, 0, req)
        total += p
    return total


@njit(cache=True, _nrt=False)
def unrank_class(hand, cls, min_top, req, idx):
    """The ``idx``-th play (ascending mask order) counted by :func:`count_class`."""
    h = np.uint64(hand)
    rt = min_top >> 2
    ms = min_top & 3
    k = class_k(cls)
    if cls < 4:
        for r in range(rt, 13):
            if req >= 0 and r != (req >> 2):
                continue
            mr = ms if r == rt else 0
            n = _choices(h, r, k, mr, req)
            if idx < n:
                return _pick(h, r, k, mr, req, idx)
            idx -= n
        return _U0
    L = class_len(cls)
    run = _windows(h, k, L, rt, req)
    while run != 0:
        s = lowest_bit(run) >> 2
        run &= run - _U1
        top = s + L - 1
        mt = ms if top == rt else 0
        p = _choices(h, top, k, mt, req)
        for r in range(s, top):
            p *= _choices(h, r, k, 0, req)
        if idx < p:
            mask = _U0
            for r in range(s, top + 1):  # mixed radix, lowest rank least significant
                mr = mt if r == top else 0
                base = _choices(h, r, k, mr, req)
                d = idx % base
                idx //= base
                mask |= _pick(h, r, k, mr, req, d)
            return mask
        idx -= p
    return _U0


@njit(cache=True, inline="always")
def unrank_any(hand, cls, min_top, req, idx):
    """:func:`unrank_class`, or a five-card class's ``idx``-th play (:func:`.fives.five_walk`)."""
    if cls >= FIVE_BASE:
        return five_walk(hand, cls, min_top, req, W_UNRANK, idx, None, None, 0)[1]
    return unrank_class(hand, cls, min_top, req, idx)


@njit(cache=True, inline="always")
def _push(acls, amin, n, cls, min_top):
    acls[n] = cls
    amin[n] = min_top
    return n + 1


@njit(cache=True, _nrt=False)
def allowed_classes(table_cls, table_top, chop, passed, bap, acls, amin, chop_len):
    """Fill ``acls[:n], amin[:n]`` (int64 scratch of length >= 24) with the classes a
    player may play and their minimum top card; returns ``n``. ``table_cls < 0``: a
    lead (every class, no minimum). ``passed``: the player already passed this trick
    (only bombs allowed by ``bap`` remain; pass ``False`` under ``pass_resets``).
    ``chop_len``: ``CHOP_AT_LEAST`` or ``CHOP_EXACT`` (seed ladder only).
    Classes come out in ascending id order."""
    if table_cls < 0:
        for c in range(N_CLASSES):
            acls[c] = c
            amin[c] = 0
        return N_CLASSES
    two = (table_top >> 2) == 12
    n = _push(acls, amin, 0, table_cls, table_top + 1)
    if chop == CHOP_SEED:
        if two and table_cls <= CLS_TRIPLE:
            if table_cls == CLS_SINGLE:
                n = _push(acls, amin, n, CLS_FOUR, 0)
            shortest = CLS_DSEQ3 + table_cls  # 3, 4, 5 pairs on one, two, three 2s
            longest = N_CLASSES - 1 if chop_len == CHOP_AT_LEAST else shortest
            for c in range(shortest, longest + 1):
                n = _push(acls, amin, n, c, 0)
    else:
        if table_cls == CLS_SINGLE and two:
            n = _push(acls, amin, n, CLS_FOUR, 0)
            n = _push(acls, amin, n, CLS_DSEQ3, 0)
            n = _push(acls, amin, n, CLS_DSEQ4, 0)
        elif table_cls == CLS_PAIR and two:
            n = _push(acls, amin, n, CLS_FOUR, 0)
            n = _push(acls, amin, n, CLS_DSEQ4, 0)
        elif table_cls == CLS_FOUR and not two:
            n = _push(acls, amin, n, CLS_DSEQ4, 0)
        elif table_cls == CLS_DSEQ3:
            n = _push(acls, amin, n, CLS_FOUR, 0)
            n = _push(acls, amin, n, CLS_DSEQ4, 0)
    # the table's own class is first; move it to its sorted place
    for i in range(1, n):
        if acls[i - 1] > acls[i]:
            c, m = acls[i - 1], amin[i - 1]
            acls[i - 1], amin[i - 1] = acls[i], amin[i]
            acls[i], amin[i] = c, m
    if passed:
        kept = 0
        for i in range(n):
            c = acls[i]
            ok = (bap == BAP_ALL and is_bomb_class(c)) or (bap == BAP_FOUR_PAIRS and c == CLS_DSEQ4)
            if ok:
                acls[kept] = c
                amin[kept] = amin[i]
                kept += 1
        n = kept
    return n


@njit(cache=True, _nrt=False)
def bigtwo_classes(table_cls, table_top, five, quads, acls, amin):
    """Big Two's allowed classes (the engine's profile ``five = 1 + variant``, :mod:`.fives`)
    into ``acls, amin``; returns their number. A lead: single, pair, triple, the four of a
    kind alone when ``quads``, then the five five-card types. Following: the table's class
    above its top (key), and for a five-card hand every higher five-card type. No bombs.
    Five-card classes get ``min_top = -1`` where any play is allowed (every key is >= 0):
    :func:`count_moves`' shortcut for Tiến Lên's double sequences never sees them."""
    base = FIVE_BASE + 8 * (five - 1)
    if table_cls < 0:
        n = 0
        for c in range(3):
            n = _push(acls, amin, n, c, 0)
        if quads != 0:
            n = _push(acls, amin, n, CLS_FOUR, 0)
        for t in range(N_FIVE_TYPES):
            n = _push(acls, amin, n, base + t, -1)
        return n
    n = _push(acls, amin, 0, table_cls, table_top + 1)
    if table_cls >= FIVE_BASE:
        for c in range(table_cls + 1, base + N_FIVE_TYPES):
            n = _push(acls, amin, n, c, -1)
    return n


@njit(cache=True, _nrt=False)
def count_moves(hand, n_acl, acls, amin, req, counts):
    """Plays (passes excluded) over the allowed classes; ``counts[i]`` per class."""
    total = 0
    no_seq = False  # no sequence of some length L: none longer either (same for pairs)
    no_dseq = False
    for i in range(n_acl):
        cls = acls[i]
        if (no_seq and CLS_SEQ3 <= cls < CLS_DSEQ3) or (no_dseq and cls >= CLS_DSEQ3):
            counts[i] = 0
            continue
        c = count_class(hand, cls, amin[i], req)
        counts[i] = c
        total += c
        if c == 0 and amin[i] == 0:
            if CLS_SEQ3 <= cls < CLS_DSEQ3:
                no_seq = True
            elif cls >= CLS_DSEQ3:
                no_dseq = True
    return total


@njit(cache=True, _nrt=False)
def count_moves_any(hand, n_acl, acls, amin, req, counts):
    """:func:`count_moves` for any profile of the engine: five-card classes (Big Two,
    :mod:`.fives`, whose ``min_top`` is -1 where any key goes) are counted by their walk.
    Tiến Lên's own decisions use :func:`count_moves`, which knows nothing of them."""
    total = 0
    for i in range(n_acl):
        cls = acls[i]
        if cls >= FIVE_BASE:
            c = five_walk(hand, cls, amin[i], req, W_COUNT, 0, None, None, 0)[0]
        else:
            c = count_class(hand, cls, amin[i], req)
        counts[i] = c
        total += c
    return total


@njit(cache=True, _nrt=False)
def unrank_move(hand, n_acl, acls, amin, req, counts, idx):
    """The ``idx``-th play in move order, as ``(mask, class)``; ``counts`` from
    :func:`count_moves`."""
    for i in range(n_acl):
        if idx < counts[i]:
            return unrank_class(hand, acls[i], amin[i], req, idx), acls[i]
        idx -= counts[i]
    return _U0, -1


@njit(cache=True, _nrt=False)
def unrank_move_any(hand, n_acl, acls, amin, req, counts, idx):
    """:func:`unrank_move` for any profile (``counts`` from :func:`count_moves_any`)."""
    for i in range(n_acl):
        if idx < counts[i]:
            return unrank_any(hand, acls[i], amin[i], req, idx), acls[i]
        idx -= counts[i]
    return _U0, -1


@njit(cache=True)
def legal_moves(hand, table_cls, table_top, chop, passed, bap, req, alone, chop_len):
    """All legal plays (no pass) in move order: ``(masks uint64[n], classes int64[n])``.

    For tests and tools; the game kernel counts and unranks instead. ``req``: card the
    play must contain (first lead of a match, -1 otherwise); ``alone``: it must be that
    card alone.
    """
    acls = np.zeros(N_CLASSES, np.int64)
    amin = np.zeros(N_CLASSES, np.int64)
    n_acl = allowed_classes(table_cls, table_top, chop, passed, bap, acls, amin, chop_len)
    if req >= 0 and alone:
        n_acl = 1  # class 0 = single
    return _listed_moves(hand, n_acl, acls, amin, req)


@njit(cache=True)
def legal_moves_bigtwo(hand, table_cls, table_top, five, quads, req, alone):
    """:func:`legal_moves` under the Big Two profile (:func:`bigtwo_classes`)."""
    acls = np.zeros(N_CLASSES, np.int64)
    amin = np.zeros(N_CLASSES, np.int64)
    n_acl = bigtwo_classes(table_cls, table_top, five, quads, acls, amin)
    if req >= 0 and alone:
        n_acl = 1  # class 0 = single
    return _listed_moves(hand, n_acl, acls, amin, req)


@njit(cache=True)
def _listed_moves(hand, n_acl, acls, amin, req):
    counts = np.zeros(N_CLASSES, np.int64)
    total = count_moves_any(hand, n_acl, acls, amin, req, counts)
    masks = np.zeros(total, np.uint64)
    classes = np.zeros(total, np.int64)
    j = 0
    for i in range(n_acl):
        for idx in range(counts[i]):
            masks[j] = unrank_any(hand, acls[i], amin[i], req, idx)
            classes[j] = acls[i]
            j += 1
    return masks, classes
