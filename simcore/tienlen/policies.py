"""Tiến Lên policies (random, greedy, heuristic) and the one dispatch the engine calls.

Each policy is an njit function of what the seat may see at its decision (its hand,
the classes it may play with their minimum top card, the card its play must contain,
whether it may pass, the table's class, the fewest cards an opponent holds, whether
only one opponent is left) and of the game's RNG state; it returns
``(mask, class, rng state)``, class ``-1`` for a pass. :func:`choose` dispatches on the
policy code; a new policy is one function here plus one line in :func:`choose` and in
``POLICIES``. The search policy (``search``) lives in :mod:`.search`: the engine pauses
at its decisions (it needs the whole game state to roll out), see :mod:`.engine`.

* random: uniform over all legal plays plus the pass when passing is allowed (leaders
  cannot pass). A forced choice (one option) draws nothing.
* greedy: on a lead, its lowest card as a single (the required card in a match's first
  lead, which is the lowest card); following, the lowest play (lowest top card, then
  lowest cards) of the table's class, else the lowest allowed bomb; it never passes
  when it can play.
* heuristic: scores a few candidate plays (the lowest-suit play of each class and top
  rank) by how they change a hand-structure value: the number of "units" left (each
  non-2 rank is one unit; runs of >= 3 ranks count as one sequence plus the ranks
  holding >= 2 cards, when that is fewer), 2s, fours and aces held; it prefers low
  and long plays, keeps pairs/sequences intact, holds 2s and bombs (their value is
  lost when played) unless they win the control needed to go out, chops 2s, and stops
  passing when an opponent is close to going out (1, 2 or <= 4 cards). Passing is
  valued ``HEUR_PASS`` (``HEUR_PASS_HEADS_UP`` with one opponent left, where a pass
  hands over the lead). Deterministic: it draws no random numbers.

Big Two (the engine's five-card profile, ``simcore/bigtwo``): :func:`choose_any` and
:func:`choose_bigtwo` are the entries, reached only when the kernels' ``five`` argument is
not ``None`` (Tiến Lên compiles none of it). Random and greedy are the same players over
the five-card classes too (:func:`choose_random_any`, :func:`choose_greedy_any`); the
heuristic (:func:`choose_heuristic_bigtwo`) values a hand by :func:`units_bigtwo` (plays
needed, counting what full houses, fours + kicker, straights or flushes save), keeps 2s
and aces, and sheds low and long plays first, a low five-card hand among them; the learned
policy (:func:`choose_learned_bigtwo`) scores the same candidates by the features read as
Big Two's heuristic reads them (:func:`_features_of`) with Big Two's own weights
(``simcore/bigtwo/learned_weights.txt``, ``cardsim train bigtwo``).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.primitives.bits import highest_bit, lowest_bit, popcount
from cardsim.simcore.primitives.rng import randbelow
from cardsim.simcore.tienlen.deal import rank_planes
from cardsim.simcore.tienlen.fives import FIVE_BASE, T_FOUR, T_FULL_HOUSE, W_CANON, five_key, five_type, five_walk
from cardsim.simcore.tienlen.moves import (CLS_DSEQ3, CLS_SEQ3, CLS_SINGLE, _choices, _pick, _windows, class_k,
                                           class_len, count_moves, count_moves_any, is_bomb_class, unrank_any,
                                           unrank_class, unrank_move, unrank_move_any)

POLICIES = ("random", "greedy", "heuristic", "search", "learned")
POL_RANDOM, POL_GREEDY, POL_HEURISTIC, POL_SEARCH, POL_LEARNED = range(5)

HEUR_PASS = -3.0  # value of passing (relative to the hand's value)
HEUR_PASS_HEADS_UP = -6.0  # ... when one opponent is left: a pass hands them the lead
#: Value of a play that empties the hand (the heuristic plays it at once).
GOES_OUT = 1e9

_R3A = np.uint64(0x111111111111)
_UNITS13 = np.uint64(0x1111111111111)
_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U4 = np.uint64(4)
_U15 = np.uint64(15)
_U44 = np.uint64(44)
_U48 = np.uint64(48)
_U40 = np.uint64(40)
_U16_LOW = np.uint64(0xFFFF)


# ----------------------------------------------------------------------------------
# heuristic
# ----------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def _units(h):
    """Approximate number of plays needed for the non-2 cards of ``h``."""
    ge1, ge2, ge3, eq4 = rank_planes(h)
    p = ge1 & _R3A
    multi = ge2 & _R3A
    units = 0
    while p != _U0:
        s = np.uint64(lowest_bit(p))
        # the run of consecutive ranks from s ends at the first rank missing above it
        # (rank 2 is never in p, so there is one)
        length = lowest_bit(~(p >> s) & _UNITS13) >> 2
        run = (((_U1 << np.uint64(4 * length)) - _U1) & _UNITS13) << s
        p &= ~run
        if length >= 3:
            alt = 1 + popcount(multi & run)
            units += alt if alt < length else length
        else:
            units += length
    return units


@njit(cache=True, _nrt=False)
def _eval_units(h, units):
    """:func:`_eval` of ``h`` given ``units = _units(h)``."""
    ge1, ge2, ge3, eq4 = rank_planes(h)
    return (-10.0 * units + 3.0 * popcount(h >> _U48) + 6.0 * popcount(eq4 & _R3A)
            + 1.0 * popcount((h >> _U44) & _U15))


@njit(cache=True, _nrt=False)
def _eval(h):
    """The heuristic's value of holding ``h``."""
    return _eval_units(h, _units(h))


@njit(cache=True, _nrt=False)
def _canon(h, cls, min_top, req, cand, ccls, nc):
    """Append the lowest-suit play of each top rank of class ``cls`` (top >= min_top)."""
    if min_top >= 52:
        return nc
    rt = min_top >> 2
    ms = min_top & 3
    k = class_k(cls)
    if cls < 4:
        for r in range(rt, 13):
            if req >= 0 and r != (req >> 2):
                continue
            mr = ms if r == rt else 0
            if _choices(h, r, k, mr, req) > 0:
                cand[nc] = _pick(h, r, k, mr, req, 0)
                ccls[nc] = cls
                nc += 1
        return nc
    L = class_len(cls)
    run = _windows(h, k, L, rt, req)
    while run != _U0:
        s = lowest_bit(run) >> 2
        run &= run - _U1
        top = s + L - 1
        mt = ms if top == rt else 0
        if _choices(h, top, k, mt, req) == 0:
            continue
        m = _U0
        for r in range(s, top + 1):
            m |= _pick(h, r, k, mt if r == top else 0, req, 0)
        cand[nc] = m
        ccls[nc] = cls
        nc += 1
    return nc


@njit(cache=True, _nrt=False)
def heuristic_candidates(h, n_acl, acls, amin, req, cand, ccls):
    """The heuristic's canonical candidates (lowest-suit play of each class and top
    rank) into ``cand[:n], ccls[:n]``; returns ``n``."""
    nc = np.int64(0)  # typed: a literal 0 would compile _canon twice
    no_seq = False  # no sequence of some length: none longer either (same for pairs)
    no_dseq = False
    for a in range(n_acl):
        cls = acls[a]
        if (no_seq and CLS_SEQ3 <= cls < CLS_DSEQ3) or (no_dseq and cls >= CLS_DSEQ3):
            continue
        before = nc
        nc = _canon(h, cls, amin[a], req, cand, ccls, nc)
        if nc == before and amin[a] == 0:
            if CLS_SEQ3 <= cls < CLS_DSEQ3:
                no_seq = True
            elif cls >= CLS_DSEQ3:
                no_dseq = True
    return nc


@njit(cache=True, _nrt=False)
def heuristic_candidates_any(h, n_acl, acls, amin, req, cand, ccls):
    """:func:`heuristic_candidates` for any profile of the engine: a five-card class (Big
    Two) adds a few plays per group (:func:`.fives.five_walk`, mode ``W_CANON``)."""
    nc = np.int64(0)
    for a in range(n_acl):
        cls = acls[a]
        if cls >= FIVE_BASE:
            nc = five_walk(h, cls, amin[a], req, W_CANON, 0, cand, ccls, nc)[2]
        else:
            nc = _canon(h, cls, amin[a], req, cand, ccls, nc)
    return nc


@njit(cache=True)
def pass_value(opp_min, heads_up):
    """The heuristic's value of passing."""
    v = HEUR_PASS_HEADS_UP if heads_up else HEUR_PASS
    if opp_min <= 1:
        v = -40.0
    elif opp_min <= 2:
        v = -20.0
    elif opp_min <= 4:
        v = -6.0
    return v


@njit(cache=True, _nrt=False)
def play_value(h, base, m, c, table_cls, opp_min):
    """The heuristic's value of playing ``m`` (class ``c``) from ``h`` (``base = _eval(h)``);
    ``GOES_OUT`` when it empties the hand."""
    after = h & ~m
    if after == _U0:
        return GOES_OUT
    top = highest_bit(m) >> 2
    units = _units(after)
    v = _eval_units(after, units) - base - 0.4 * top + 0.3 * popcount(m)
    if table_cls >= 0 and c != table_cls:
        v += 6.0  # a chop wins the control and costs the victim a 2
    if (top == 12 or is_bomb_class(c)) and units <= 1:
        v += 15.0  # control needed to go out
    if table_cls < 0 and opp_min <= 1 and c == CLS_SINGLE:
        v -= 2.0 * (12 - top)  # do not feed a player on one card
    return v


@njit(cache=True, _nrt=False)
def choose_heuristic(h, n_acl, acls, amin, req, can_pass, table_cls, opp_min, heads_up, cand, ccls):
    """The heuristic's play ``(mask, class)``; class -1 = pass."""
    nc = heuristic_candidates(h, n_acl, acls, amin, req, cand, ccls)
    if nc == 0:
        return _U0, -1
    return _best_candidate(h, nc, _eval(h), can_pass, table_cls, opp_min, heads_up, cand, ccls, None)


@njit(cache=True, _nrt=False)
def _best_candidate(h, nc, base, can_pass, table_cls, opp_min, heads_up, cand, ccls, bigtwo):
    """The best of the ``nc`` candidates by the heuristic's value (the pass's value as the
    floor when passing is allowed; a play that goes out at once). ``bigtwo``: ``None``
    under Tiến Lên, any integer under the Big Two profile; Numba prunes the other branch
    at compile time, so Tiến Lên compiles no Big Two value."""
    best_m = _U0
    best_c = -1
    best_v = -1e18
    if can_pass:
        best_v = pass_value(opp_min, heads_up)
    for i in range(nc):
        if bigtwo is None:
            v = play_value(h, base, cand[i], ccls[i], table_cls, opp_min)
        else:
            v = play_value_bigtwo(h, base, cand[i], ccls[i], table_cls, opp_min)
        if v == GOES_OUT:
            return cand[i], ccls[i]
        if v > best_v:
            best_v = v
            best_m = cand[i]
            best_c = ccls[i]
    return best_m, best_c


# ----------------------------------------------------------------------------------
# the heuristic under the Big Two profile (five-card hands, no bombs)
# ----------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def units_bigtwo(h):
    """Approximate number of Big Two plays needed for the non-2 cards of ``h``: one per
    rank, less one per triple that can carry a pair (full house) and per four that can
    carry a loose card, less what straights (one per five ranks of a run of >= 5 ranks
    3..A, saving its loose ranks but one) or flushes (five loose cards of a suit in one
    play, saving four) save, whichever saves more."""
    ge1, ge2, ge3, eq4 = rank_planes(h)
    ranks = ge1 & _R3A
    units = popcount(ranks)
    loose = ge1 & ~ge2 & _R3A
    trips = popcount(ge3 & ~eq4 & _R3A)
    pairs = popcount(ge2 & ~ge3 & _R3A)
    units -= trips if trips < pairs else pairs
    quads = popcount(eq4 & _R3A)
    n_loose = popcount(loose)
    units -= quads if quads < n_loose else n_loose
    p = ranks
    saved = 0
    while p != _U0:
        s = np.uint64(lowest_bit(p))
        length = lowest_bit(~(p >> s) & _UNITS13) >> 2
        run = (((_U1 << np.uint64(4 * length)) - _U1) & _UNITS13) << s
        p &= ~run
        if length >= 5:
            n_str = length // 5
            lr = popcount(loose & run)
            gain = (lr if lr < 5 * n_str else 5 * n_str) - n_str
            if gain > 0:
                saved += gain
    flush = 0
    for suit in range(4):
        flush += 4 * (popcount((h >> np.uint64(suit)) & loose) // 5)
    units -= saved if saved > flush else flush
    return units if units > 0 else 0


@njit(cache=True, _nrt=False)
def eval_bigtwo_units(h, units):
    """The Big Two heuristic's value of holding ``h`` given ``units = units_bigtwo(h)``:
    plays needed, 2s and aces held (control), fours (the strongest five-card hands but one)."""
    ge1, ge2, ge3, eq4 = rank_planes(h)
    return (-10.0 * units + 3.0 * popcount(h >> _U48) + 2.0 * popcount(eq4)
            + 1.0 * popcount((h >> _U44) & _U15))


@njit(cache=True, _nrt=False)
def eval_bigtwo(h):
    return eval_bigtwo_units(h, units_bigtwo(h))


@njit(cache=True, _nrt=False)
def play_value_bigtwo(h, base, m, c, table_cls, opp_min):
    """:func:`play_value` under the Big Two profile: low and long plays first (a low
    five-card hand sheds five cards in one play), 2s and fours kept for control."""
    after = h & ~m
    if after == _U0:
        return GOES_OUT
    top = highest_bit(m) >> 2
    strong = False
    if c >= FIVE_BASE:
        t = five_type(c)
        if t == T_FULL_HOUSE or t == T_FOUR:
            top = five_key(m, c) >> 2  # the triple's or the four's rank, not the carried cards'
        strong = t >= T_FOUR
    units = units_bigtwo(after)
    v = eval_bigtwo_units(after, units) - base - 0.4 * top + 1.0 * popcount(m)  # Tiến Lên's 0.3 wins ~3% less
    if (top == 12 or strong) and units <= 1:
        v += 15.0  # control needed to go out
    if table_cls < 0 and opp_min <= 1 and c == CLS_SINGLE:
        v -= 2.0 * (12 - top)  # do not feed a player on one card
    return v


@njit(cache=True, _nrt=False)
def choose_heuristic_bigtwo(h, n_acl, acls, amin, req, can_pass, table_cls, opp_min, heads_up, cand, ccls):
    """:func:`choose_heuristic` under the Big Two profile."""
    nc = heuristic_candidates_any(h, n_acl, acls, amin, req, cand, ccls)
    if nc == 0:
        return _U0, -1
    return _best_candidate(h, nc, eval_bigtwo(h), can_pass, table_cls, opp_min, heads_up, cand, ccls, 1)


# ----------------------------------------------------------------------------------
# learned: a linear score over the heuristic's candidates (weights: see .learned)
# ----------------------------------------------------------------------------------

#: Feature names, in weight order. ``left_*``: of the hand after the decision (the hand
#: itself for a pass); ``play_*``: of the play (0 for a pass); ``pass_*``: one-hot
#: buckets of a pass by the fewest cards an opponent holds. (No feature is the same for
#: every candidate of every decision, such as the cards left, which is the hand size
#: less ``play_cards``: a score cannot learn it.)
FEATURES = ("left_units", "left_twos", "left_fours", "left_aces",
            "play_top", "play_cards", "play_chop", "play_control", "play_feeds_one",
            "play_top_when_close", "play_top_heads_up",
            "pass_opp1", "pass_opp2", "pass_opp4", "pass_far", "pass_far_heads_up",
            # not in the heuristic
            "left_loose", "left_pairs", "left_high", "left_low",
            "play_twos", "play_bomb", "play_cards_when_close", "play_low_lead")
N_FEATURES = len(FEATURES)


@njit(cache=True, _nrt=False, inline="always")
def _features_of(h, m, c, table_cls, opp_min, heads_up, bigtwo):
    """:data:`FEATURES` of deciding ``(m, c)`` (class -1 = pass) from hand ``h``, as a
    tuple (no allocation: the turn loop runs without the NRT). ``bigtwo`` (a constant of
    the caller): the Big Two profile's reading of the features its heuristic uses
    (:func:`play_value_bigtwo`): ``left_units`` is :func:`units_bigtwo`, ``left_fours``
    counts every four (2s too), ``play_top`` is the rank of a full house's triple or a
    four + kicker's four, and ``play_control`` is a 2 or a four + kicker or straight
    flush (no bombs); the other features read the same."""
    after = h if c < 0 else h & ~m
    ge1, ge2, ge3, eq4 = rank_planes(after)
    if bigtwo:
        units = units_bigtwo(after)
        fours = float(popcount(eq4))
    else:
        units = _units(after)
        fours = float(popcount(eq4 & _R3A))
    twos = float(popcount(after >> _U48))
    aces = float(popcount((after >> _U44) & _U15))
    loose = float(popcount(ge1 & ~ge2 & _R3A))
    pairs = float(popcount(ge2 & _R3A))
    high = float(popcount(after >> _U40))
    low = float(popcount(after & _U16_LOW))
    top = 0.0
    cards = chop = control = feeds = close = heads = 0.0
    ptwos = bomb = close_cards = low_lead = 0.0
    p1 = p2 = p4 = far = far_hu = 0.0
    if c < 0:
        if opp_min <= 1:
            p1 = 1.0
        elif opp_min <= 2:
            p2 = 1.0
        elif opp_min <= 4:
            p4 = 1.0
        elif heads_up:
            far_hu = 1.0
        else:
            far = 1.0
    else:
        t = highest_bit(m) >> 2
        strong = is_bomb_class(c)
        if bigtwo:
            strong = False
            if c >= FIVE_BASE:
                ft = five_type(c)
                if ft == T_FULL_HOUSE or ft == T_FOUR:
                    t = five_key(m, c) >> 2  # as play_value_bigtwo: the triple's or the four's rank
                strong = ft >= T_FOUR
        top = float(t)
        cards = float(popcount(m))
        if table_cls >= 0 and c != table_cls:
            chop = 1.0
        if (t == 12 or strong) and units <= 1:
            control = 1.0
        if table_cls < 0 and opp_min <= 1 and c == CLS_SINGLE:
            feeds = float(12 - t)
        if opp_min <= 2:
            close = top
        if heads_up:
            heads = top
        ptwos = float(popcount(m >> _U48))
        if is_bomb_class(c):
            bomb = 1.0
        if opp_min <= 2:
            close_cards = cards
        if table_cls < 0 and t <= 3:
            low_lead = 1.0
    return (float(units), twos, fours, aces, top, cards, chop, control, feeds, close, heads, p1, p2, p4, far, far_hu,
            loose, pairs, high, low, ptwos, bomb, close_cards, low_lead)


@njit(cache=True, _nrt=False, inline="always")
def _features(h, m, c, table_cls, opp_min, heads_up):
    """:func:`_features_of` of Tiến Lên."""
    return _features_of(h, m, c, table_cls, opp_min, heads_up, False)


@njit(cache=True, _nrt=False)
def decision_score(h, m, c, table_cls, opp_min, heads_up, wts):
    """The learned policy's score of deciding ``(m, c)`` from ``h``: ``wts . features``
    less the ``left_*`` part of holding ``h`` (the same for every decision, so the
    choice is that of ``wts . features``). Summed in the heuristic's order, so that
    :data:`.learned.HEURISTIC_WEIGHTS` give the heuristic's values bit for bit."""
    return _score(h, m, c, table_cls, opp_min, heads_up, wts, False)


@njit(cache=True, _nrt=False)
def decision_score_bigtwo(h, m, c, table_cls, opp_min, heads_up, wts):
    """:func:`decision_score` under the Big Two profile (its features, :func:`_features_of`):
    :data:`cardsim.simcore.bigtwo.learned.HEURISTIC_WEIGHTS` give the values of Big Two's
    heuristic (:func:`play_value_bigtwo`, :func:`pass_value`) bit for bit."""
    return _score(h, m, c, table_cls, opp_min, heads_up, wts, True)


@njit(cache=True, _nrt=False, inline="always")
def _score(h, m, c, table_cls, opp_min, heads_up, wts, bigtwo):
    """:func:`decision_score` of the profile ``bigtwo`` (a constant of the caller)."""
    f = _features_of(h, m, c, table_cls, opp_min, heads_up, bigtwo)
    if c < 0:
        return wts[11] * f[11] + wts[12] * f[12] + wts[13] * f[13] + wts[14] * f[14] + wts[15] * f[15]
    g = _features_of(h, _U0, -1, table_cls, opp_min, heads_up, bigtwo)
    left = wts[0] * f[0] + wts[1] * f[1] + wts[2] * f[2] + wts[3] * f[3]
    base = wts[0] * g[0] + wts[1] * g[1] + wts[2] * g[2] + wts[3] * g[3]
    v = left - base
    for i in range(4, 11):
        v += wts[i] * f[i]
    # the features the heuristic lacks come last, so that zero weights add exact zeros
    extra = wts[16] * f[16] + wts[17] * f[17] + wts[18] * f[18] + wts[19] * f[19]
    extra_base = wts[16] * g[16] + wts[17] * g[17] + wts[18] * g[18] + wts[19] * g[19]
    v += extra - extra_base
    for i in range(20, 24):
        v += wts[i] * f[i]
    return v


@njit(cache=True)
def decision_features(h, m, c, table_cls, opp_min, heads_up, out):
    """:data:`FEATURES` of deciding ``(m, c)`` (class -1 = pass) from hand ``h`` into
    ``out`` float64[N_FEATURES] (for training)."""
    f = _features(h, m, c, table_cls, opp_min, heads_up)
    for i in range(N_FEATURES):
        out[i] = f[i]


@njit(cache=True)
def decision_features_bigtwo(h, m, c, table_cls, opp_min, heads_up, out):
    """:func:`decision_features` under the Big Two profile."""
    f = _features_of(h, m, c, table_cls, opp_min, heads_up, True)
    for i in range(N_FEATURES):
        out[i] = f[i]


@njit(cache=True, _nrt=False)
def choose_learned(h, n_acl, acls, amin, req, can_pass, table_cls, opp_min, heads_up, cand, ccls, wts):
    """The learned policy's play ``(mask, class)`` with weights ``wts`` float64[N_FEATURES];
    class -1 = pass."""
    nc = heuristic_candidates(h, n_acl, acls, amin, req, cand, ccls)
    best_m = _U0
    best_c = -1
    if nc == 0:
        return best_m, best_c
    best_v = -1e300
    if can_pass:
        best_v = decision_score(h, _U0, -1, table_cls, opp_min, heads_up, wts)
    for i in range(nc):
        if cand[i] == h:
            return cand[i], ccls[i]  # goes out
        v = decision_score(h, cand[i], ccls[i], table_cls, opp_min, heads_up, wts)
        if v > best_v:
            best_v = v
            best_m = cand[i]
            best_c = ccls[i]
    return best_m, best_c



@njit(cache=True, _nrt=False)
def choose_learned_bigtwo(h, n_acl, acls, amin, req, can_pass, table_cls, opp_min, heads_up, cand, ccls, wts):
    """:func:`choose_learned` under the Big Two profile: over its heuristic's candidates
    (:func:`heuristic_candidates_any`), scored by :func:`decision_score_bigtwo`."""
    nc = heuristic_candidates_any(h, n_acl, acls, amin, req, cand, ccls)
    best_m = _U0
    best_c = -1
    if nc == 0:
        return best_m, best_c
    best_v = -1e300
    if can_pass:
        best_v = decision_score_bigtwo(h, _U0, -1, table_cls, opp_min, heads_up, wts)
    for i in range(nc):
        if cand[i] == h:
            return cand[i], ccls[i]  # goes out
        v = decision_score_bigtwo(h, cand[i], ccls[i], table_cls, opp_min, heads_up, wts)
        if v > best_v:
            best_v = v
            best_m = cand[i]
            best_c = ccls[i]
    return best_m, best_c


# ----------------------------------------------------------------------------------
# random and greedy
# ----------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def choose_random(h, n_acl, acls, amin, req, can_pass, counts, rng):
    """A uniform legal decision (plays in move order, then the pass)."""
    n_play = count_moves(h, n_acl, acls, amin, req, counts)
    n_opt = n_play + (1 if can_pass else 0)
    idx = 0
    if n_opt > 1:
        rng, idx = randbelow(rng, n_opt)
    if idx < n_play:
        move, mcls = unrank_move(h, n_acl, acls, amin, req, counts, idx)
        return move, mcls, rng
    return _U0, -1, rng


@njit(cache=True, inline="always")
def choose_greedy(h, n_acl, acls, amin, req, table_cls, counts):
    """Lowest single on a lead; the lowest play of the table's class, else the lowest bomb."""
    if table_cls < 0:
        move = (_U1 << np.uint64(req)) if req >= 0 else (h & (~h + _U1))
        return move, CLS_SINGLE
    count_moves(h, n_acl, acls, amin, req, counts)
    for a in range(n_acl):  # the table's class first
        if acls[a] == table_cls and counts[a] > 0:
            return unrank_class(h, acls[a], amin[a], req, np.int64(0)), acls[a]
    for a in range(n_acl):
        if counts[a] > 0:
            return unrank_class(h, acls[a], amin[a], req, np.int64(0)), acls[a]
    return _U0, -1


# The Big Two profile's random and greedy players: the same, over its five-card classes too
# (:func:`.moves.count_moves_any`); Tiến Lên's decisions never reach them.

@njit(cache=True, _nrt=False)
def choose_random_any(h, n_acl, acls, amin, req, can_pass, counts, rng):
    """:func:`choose_random` for any profile of the engine."""
    n_play = count_moves_any(h, n_acl, acls, amin, req, counts)
    n_opt = n_play + (1 if can_pass else 0)
    idx = 0
    if n_opt > 1:
        rng, idx = randbelow(rng, n_opt)
    if idx < n_play:
        move, mcls = unrank_move_any(h, n_acl, acls, amin, req, counts, idx)
        return move, mcls, rng
    return _U0, -1, rng


@njit(cache=True, _nrt=False)
def choose_greedy_any(h, n_acl, acls, amin, req, table_cls, counts):
    """:func:`choose_greedy` for any profile (following a five-card hand: the lowest of
    its class, else of the weakest stronger five-card class)."""
    if table_cls < 0:
        move = (_U1 << np.uint64(req)) if req >= 0 else (h & (~h + _U1))
        return move, CLS_SINGLE
    count_moves_any(h, n_acl, acls, amin, req, counts)
    for a in range(n_acl):  # the table's class first
        if acls[a] == table_cls and counts[a] > 0:
            return unrank_any(h, acls[a], amin[a], req, np.int64(0)), acls[a]
    for a in range(n_acl):
        if counts[a] > 0:
            return unrank_any(h, acls[a], amin[a], req, np.int64(0)), acls[a]
    return _U0, -1


@njit(cache=True, _nrt=False)
def choose_bigtwo(policy, h, n_acl, acls, amin, counts, req, can_pass, table_cls, opp_min, heads_up, rng, cand, ccls,
                   wts):
    """:func:`choose` under the Big Two profile."""
    if policy == POL_RANDOM:
        return choose_random_any(h, n_acl, acls, amin, req, can_pass, counts, rng)
    if policy == POL_GREEDY:
        move, mcls = choose_greedy_any(h, n_acl, acls, amin, req, table_cls, counts)
        return move, mcls, rng
    if policy == POL_LEARNED:
        move, mcls = choose_learned_bigtwo(h, n_acl, acls, amin, req, can_pass, table_cls, opp_min, heads_up, cand,
                                           ccls, wts)
        return move, mcls, rng
    move, mcls = choose_heuristic_bigtwo(h, n_acl, acls, amin, req, can_pass, table_cls, opp_min, heads_up, cand, ccls)
    return move, mcls, rng


@njit(cache=True, _nrt=False)
def choose_any(policy, h, n_acl, acls, amin, counts, req, can_pass, table_cls, opp_min, heads_up, rng, cand, ccls,
               wts, five):
    """:func:`choose` of the engine's profile: ``five`` is ``None`` for Tiến Lên (the Big
    Two players are then left out at compile time) or the Big Two profile (its heuristic
    :func:`choose_heuristic_bigtwo`; the learned policy :func:`choose_learned_bigtwo`, Big Two's weights)."""
    if five is None:
        return choose(policy, h, n_acl, acls, amin, counts, req, can_pass, table_cls, opp_min, heads_up, rng, cand,
                      ccls, wts)
    return choose_bigtwo(policy, h, n_acl, acls, amin, counts, req, can_pass, table_cls, opp_min, heads_up, rng, cand,
                          ccls, wts)


# ----------------------------------------------------------------------------------
# dispatch
# ----------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def choose(policy, h, n_acl, acls, amin, counts, req, can_pass, table_cls, opp_min, heads_up, rng, cand, ccls, wts):
    """The decision of ``policy`` (a code of ``POLICIES``, not ``search``) for hand ``h``.

    Parameters
    ----------
    h : uint64
        The hand.
    n_acl, acls, amin : int, int64[24], int64[24]
        Allowed classes and their minimum top card (:func:`.moves.allowed_classes`).
    counts : int64[24]
        Scratch for move counts.
    req : int
        Card the play must contain (-1 none).
    can_pass : bool
    table_cls : int
        Class on the table (-1 on a lead).
    opp_min : int
        Fewest cards an opponent still holds.
    heads_up : bool
        One opponent left.
    rng : uint64
        The game's RNG state.
    cand, ccls : uint64[512], int64[512]
        Scratch for the heuristic's candidates.
    wts : float64[N_FEATURES]
        The learned policy's weights.

    Returns
    -------
    (uint64 mask, int class, uint64 rng state); class -1 for a pass.
    """
    if policy == POL_RANDOM:
        return choose_random(h, n_acl, acls, amin, req, can_pass, counts, rng)
    if policy == POL_GREEDY:
        move, mcls = choose_greedy(h, n_acl, acls, amin, req, table_cls, counts)
        return move, mcls, rng
    if policy == POL_LEARNED:
        move, mcls = choose_learned(h, n_acl, acls, amin, req, can_pass, table_cls, opp_min, heads_up, cand, ccls,
                                    wts)
        return move, mcls, rng
    move, mcls = choose_heuristic(h, n_acl, acls, amin, req, can_pass, table_cls, opp_min, heads_up, cand, ccls)
    return move, mcls, rng
