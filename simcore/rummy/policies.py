"""The rummy policies (random, heuristic) as ``choose`` functions of (state, rng state), behind one dispatch.

Every decision of a round (:mod:`cardsim.simcore.rummy.engine`: take, claim, lay down,
lay off, discard) is asked of the deciding seat's policy through :func:`choose`; a new
policy is one function here plus one line in :func:`choose` and its name in
:data:`POLICIES`. The search policy (:mod:`cardsim.simcore.rummy.search`) uses the
heuristic in its rollouts.

* random: every decision uniform among its legal choices: take pile / stock (1/2 when the
  pile has a live card), claim with probability ``1 / (4 (P - 1))`` per asked seat (about
  a quarter of the refused cards are claimed whatever the table size) and never when the
  stock holds fewer than ``penalty + P`` cards (each claim moves two or more cards into a
  hand for good: with 1/2 per seat, or 1 / (2 (P - 1)) without the stock guard, most
  rounds ended capped because stock and pile ran dry), lay down or not (1/2, the melds are
  the solver's best lay-down; in Loba's final round with bought cards only a lay-down
  that takes the whole hand), lay-offs one at a time uniformly among the legal
  (card, meld) lay-offs plus "stop" (joker swaps are not offered to it), discard a
  uniform card of the hand.
* heuristic (deterministic): keeps its contract distance ``d`` (fewest missing cards,
  capped at ``HEUR_CAP``; exact, updated by one search per card taken: the state's
  ``F_DIST``); takes the pile card when it lowers ``d`` (when down: when it can be laid
  off); claims when the card lowers ``d`` to at most ``CLAIM_MAX_DIST`` (never when down,
  never in Loba's final "go out at once" round, where a bought card and its penalty card
  would both have to fit in the lay-down); both only for cards "related" to the hand
  (:func:`related`: a joker, a held rank, a same-suit card within two ranks); lays down
  as soon as it can; lays off every card it can (naturals, then joker swaps, then
  jokers); discards like :func:`cardsim.simcore.rummy.melds.best_discard` (most points
  among the cards whose removal keeps ``d``; :func:`heuristic_discard` scans in that
  order and stops at the first hit), when down the highest-point card that cannot be
  laid off.
* learned (deterministic): the heuristic's take, claim and discard decisions scored by a
  linear function ``w . features`` (:data:`FEATURES`; take, claim and discard have their
  own weights; see :func:`learned_choose`); lay-down, lay-offs and every decision of a seat
  already down are the heuristic's. With :data:`.learned.HEURISTIC_WEIGHTS` it is the
  heuristic, bit for bit. It reads its own hand and public information only (the pile,
  the table melds, the cards others are known to hold, who is down, the match totals and
  the rounds left). Weights from ``cardsim train loba|continental`` (:mod:`.train`).
"""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from cardsim.simcore.primitives.rng import randbelow
from cardsim.simcore.rummy.cards import JOKER, card_points, remove_card
from cardsim.simcore.rummy.contract import _search_sorted as _search
from cardsim.simcore.rummy.contract import contract_ok
from cardsim.simcore.rummy.engine import distance, improves, layable, n_cards, nth_card, count_of
from cardsim.simcore.rummy.melds import LAY_NO, lay_off
from cardsim.simcore.rummy.state import (F_DIST, F_DOWN, F_TOTAL, LO_GREEDY, LO_STOP, P_PENALTY, P_PLAYERS, PH_CLAIM,
                                         PH_LAYDOWN, PH_LAYOFF, PH_TAKE, V_K, V_M, V_NM,
                                         V_NPILE, V_OUT_AT_ONCE, V_PHASE, V_ROUNDS_LEFT, V_SP, V_TOP)

POLICIES = ("random", "heuristic", "search", "learned")
POL_RANDOM, POL_HEURISTIC, POL_SEARCH, POL_LEARNED = 0, 1, 2, 3
HEUR_CAP = 4  # contract distance cap of the heuristic
CLAIM_MAX_DIST = 3  # heuristic claims only when the card brings it to <= this distance
MAX_LAYOFF_OPTIONS = 1024

#: Natural codes by discard preference: most points first, then the highest code.
DISCARD_ORDER = np.array(sorted(range(52), key=lambda c: (-[20, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10][c % 13], -c)),
                         np.int64)


# ----------------------------------------------------------------------------- heuristic pieces
@njit(cache=True, _nrt=False, forceinline=False)
def heuristic_discard(a1, a2, j, k, m, mp, d_full, cap):
    """Same answer as :func:`best_discard` given the hand's (capped) distance ``d_full``:
    the card with the most points (then the highest code) among those whose removal keeps
    the distance, scanning cards in that order and stopping at the first one (a joker
    only when every natural raises the distance and the joker does not). Returns
    ``(code, distance after the discard)``."""
    first = -1
    for t in range(52):
        c = DISCARD_ORDER[t]
        bit = np.uint64(1) << np.uint64(c)
        if (a1 & bit) == 0:
            continue
        if first < 0:
            first = c
        if d_full > cap:
            return c, cap + 1
        if a2 & bit:
            b1, b2 = a1, a2 ^ bit
        else:
            b1, b2 = a1 ^ bit, a2
        if _search(b1, b2, j, m, d_full, k, mp[0], mp[1], mp[2], mp[3]):
            return c, d_full
    if j > 0 and (first < 0 or _search(a1, a2, j - 1, m, d_full, k, mp[0], mp[1], mp[2], mp[3])):
        return JOKER, d_full
    return first, min(d_full + 1, cap + 1)


@njit(cache=True, _nrt=False, forceinline=True)
def near_rank(r, dr, circular):
    """The rank ``dr`` steps from rank ``r`` in a suit (0 = ace .. 12 = king), or -1 past
    either end: escaleras wrap round when ``circular``, else only the ace sits next to the
    king (ranks 13 and -1)."""
    rr = r + dr
    if circular:
        return rr % 13
    if rr == 13:
        return 0
    if rr == -1:
        return 12
    return rr if 0 <= rr <= 12 else -1


@njit(cache=True, _nrt=False, forceinline=False)
def related(a1, j, card, k, m, circular):
    """Cheap filter of the heuristic's take / claim decisions: a joker, a rank already held
    (when the contract has tríos) or a same-suit card within two ranks (escaleras)."""
    if card >= 52 or j < 0:
        return True
    r = card % 13
    s = card // 13
    if k > 0:
        for t in range(4):
            if (a1 >> np.uint64(t * 13 + r)) & np.uint64(1):
                return True
    if m > 0:
        for dr in (-2, -1, 1, 2):
            rr = near_rank(r, dr, circular)
            if rr >= 0 and (a1 >> np.uint64(s * 13 + rr)) & np.uint64(1):
                return True
    return False


@njit(cache=True, _nrt=False, forceinline=False)
def heuristic_discard_down(a1, a2, j, mrow, nm, mp):
    """A seat already down discards the highest-point natural that cannot be laid off (a joker last)."""
    best = -1
    best_v = -(1 << 30)
    for c in range(53):
        if count_of(a1, a2, j, c) == 0:
            continue
        v = card_points(c) * 64 + c
        if c >= 52:
            v = -1000
        elif layable(mrow, nm, c, mp)[0] >= 0:
            v -= 1000
        if v > best_v:
            best_v = v
            best = c
    return best


# ----------------------------------------------------------------------------- policies
@njit(cache=True, _nrt=False, forceinline=True)
def choose_heuristic(st, q, prm, mp):
    """The heuristic's decision for seat ``q`` in the phase due (may update its distance memory)."""
    h1, h2, hj, seat, mrow, pile, sv = st[0], st[1], st[2], st[3], st[5], st[9], st[11]
    ph = sv[V_PHASE]
    k, m = sv[V_K], sv[V_M]
    if ph == PH_TAKE:
        top = np.int64(pile[sv[V_NPILE] - 1])
        if seat[F_DOWN, q]:
            return 1 if layable(mrow, sv[V_NM], top, mp)[0] >= 0 else 0
        ok = related(h1[q], hj[q], top, k, m, mp[2]) and improves(h1[q], h2[q], hj[q], top, seat[F_DIST, q], k, m, mp)
        return 1 if ok else 0
    if ph == PH_CLAIM:
        top = sv[V_TOP]
        want = (seat[F_DOWN, q] == 0 and not sv[V_OUT_AT_ONCE] and seat[F_DIST, q] - 1 <= CLAIM_MAX_DIST
                and related(h1[q], hj[q], top, k, m, mp[2])
                and improves(h1[q], h2[q], hj[q], top, seat[F_DIST, q], k, m, mp))
        return 1 if want else 0
    if ph == PH_LAYDOWN:
        return 1 if seat[F_DIST, q] == 0 else 0
    if ph == PH_LAYOFF:
        return LO_GREEDY
    # discard
    if seat[F_DOWN, q]:
        return heuristic_discard_down(h1[q], h2[q], hj[q], mrow, sv[V_NM], mp)
    c, d = heuristic_discard(h1[q], h2[q], hj[q], k, m, mp, seat[F_DIST, q], HEUR_CAP)
    seat[F_DIST, q] = d
    return c


@njit(cache=True, _nrt=False, forceinline=True)
def choose_random(st, q, prm, mp, state):
    """The random policy's decision for seat ``q`` in the phase due. Returns ``(state, decision)``."""
    h1, h2, hj, mrow, deck, sv = st[0], st[1], st[2], st[5], st[10], st[11]
    ph = sv[V_PHASE]
    P = prm[P_PLAYERS]
    if ph == PH_TAKE:
        state, x = randbelow(state, 2)
        return state, 1 if x == 1 else 0
    if ph == PH_CLAIM:
        if deck.shape[0] - sv[V_SP] < prm[P_PENALTY] + P:
            return state, 0  # never when the buy would empty the stock
        state, x = randbelow(state, 4 * (P - 1))
        return state, 1 if x == 0 else 0
    if ph == PH_LAYDOWN:
        if not contract_ok(h1[q], h2[q], hj[q], sv[V_K], sv[V_M], mp):
            return state, 0
        state, x = randbelow(state, 2)
        return state, 1 if x == 1 else 0
    if ph == PH_LAYOFF:
        no = 0
        pick = np.int64(-1)
        # count first, then draw, then find the chosen option: same order as a list of options
        for c in range(53):
            if count_of(h1[q], h2[q], hj[q], c) == 0:
                continue
            for i in range(sv[V_NM]):
                if lay_off(mrow[i], c, mp, np.bool_(False)) != LAY_NO and no < MAX_LAYOFF_OPTIONS:
                    no += 1
        if no == 0:
            return state, LO_STOP
        state, x = randbelow(state, no + 1)
        if x == no:
            return state, LO_STOP
        t = 0
        for c in range(53):
            if count_of(h1[q], h2[q], hj[q], c) == 0:
                continue
            for i in range(sv[V_NM]):
                w = lay_off(mrow[i], c, mp, np.bool_(False))
                if w != LAY_NO:
                    if t == x:
                        pick = (i * 64 + c) * 4 + w
                        return state, pick
                    t += 1
        return state, LO_STOP
    state, x = randbelow(state, n_cards(h1[q], h2[q], hj[q]))
    return state, nth_card(h1[q], h2[q], hj[q], x)


# ----------------------------------------------------------------------------- learned
#: What a take of the pile top (against the stock) or a claim of the refused card brings,
#: and the public situation: ``improves`` the heuristic's test (a related card that lowers
#: the contract distance), ``lowers`` the distance test alone, the card's ``points`` and
#: ``joker``, the ``distance`` before, ``threat`` (opponents already down), ``behind`` (own
#: match total minus the lowest opponent's, per 100 points), ``last_round``; a claim also
#: ``near`` (distance at most ``CLAIM_MAX_DIST + 1``, the heuristic's gate). The seat takes
#: (claims) when ``w . features > 0``.
TAKE_FEATURES = ("bias", "improves", "lowers", "points", "joker", "distance", "threat", "behind", "last_round")
CLAIM_FEATURES = TAKE_FEATURES + ("near",)
#: What a discard of card ``c`` leaves: the contract ``distance`` after it (capped at
#: ``HEUR_CAP + 1``), the card's ``points``, ``joker``, ``links`` (cards kept of its rank or of
#: its suit within two ranks: pairs and near-runs broken), ``unseen`` (copies of ``c`` the seat
#: has not seen: own hand, pile, table, cards others are known to hold), ``layable`` (it fits a
#: table meld: food for a seat that is down), ``points_threat`` (points times opponents down).
#: The highest score is discarded (ties: the heuristic's order, most points then highest code,
#: a joker last).
DISCARD_FEATURES = ("distance", "points", "joker", "links", "unseen", "layable", "points_threat")
FEATURES = (tuple(f"take_{f}" for f in TAKE_FEATURES) + tuple(f"claim_{f}" for f in CLAIM_FEATURES)
            + tuple(f"discard_{f}" for f in DISCARD_FEATURES))
N_FEATURES = len(FEATURES)
O_TAKE, O_CLAIM, O_DISCARD = 0, len(TAKE_FEATURES), len(TAKE_FEATURES) + len(CLAIM_FEATURES)
#: The heuristic's discard as a linear score: ``-DISCARD_DISTANCE_WEIGHT * distance + points
#: - 50 * joker`` (a joker scores 0: below every natural that keeps the distance, above every
#: one that does not; a natural's points are 2..20, so keeping the distance always wins).
DISCARD_DISTANCE_WEIGHT = 25.0


@njit(cache=True, _nrt=False, forceinline=False)
def _links(a1, a2, j, c, circular):
    """Cards of the hand (one copy of natural ``c`` left out) of ``c``'s rank, or of its suit
    within two ranks (the ace next to the king as in :func:`related`)."""
    r = c % 13
    s = c // 13
    n = count_of(a1, a2, j, c) - 1
    for t in range(4):
        if t != s:
            n += count_of(a1, a2, j, t * 13 + r)
    for dr in (-2, -1, 1, 2):
        rr = near_rank(r, dr, circular)
        if rr >= 0:
            n += count_of(a1, a2, j, s * 13 + rr)
    return n


@njit(cache=True, _nrt=False, forceinline=False)
def _unseen(st, q, c, P):
    """Copies of card ``c`` (52: a joker) seat ``q`` has not seen: the pack's copies minus its
    hand, the pile, the table melds and the cards the other seats are known to hold."""
    h1, h2, hj, seen, mcards, mlen, pile, deck, sv = st[0], st[1], st[2], st[4], st[6], st[7], st[9], st[10], st[11]
    n = (deck.shape[0] - 104) if c >= 52 else 2
    n -= count_of(h1[q], h2[q], hj[q], c)
    for t in range(sv[V_NPILE]):
        if min(pile[t], 52) == c:
            n -= 1
    for i in range(sv[V_NM]):
        for t in range(mlen[i]):
            if min(mcards[i, t], 52) == c:
                n -= 1
    for o in range(P):
        if o != q:
            n -= seen[o, c]
    return n


@njit(cache=True, _nrt=False, forceinline=False)
def learned_choose(st, q, prm, mp, wts):
    """The learned policy's decision for seat ``q`` with its weights ``wts[q]`` (float64[players,
    N_FEATURES]); the heuristic's candidates, order and ties (see the module docstring).

    The seat's contract distance is computed from its hand at each decision (a learned seat
    keeps no memory: ``F_DIST`` stays -1). Reads the seat's own hand and public information."""
    h1, h2, hj, seat, mrow, pile, sv = st[0], st[1], st[2], st[3], st[5], st[9], st[11]
    ph = sv[V_PHASE]
    if seat[F_DOWN, q] or ph == PH_LAYOFF:
        return choose_heuristic(st, q, prm, mp)  # never reads F_DIST there
    P = prm[P_PLAYERS]
    k, m = sv[V_K], sv[V_M]
    a1, a2, j = h1[q], h2[q], hj[q]
    d = distance(a1, a2, j, k, m, mp, HEUR_CAP)
    if ph == PH_LAYDOWN:
        return 1 if d == 0 else 0
    threat = 0
    low_total = 1 << 40
    for o in range(P):
        if o != q:
            threat += seat[F_DOWN, o]
            low_total = min(low_total, seat[F_TOTAL, o])
    if ph == PH_TAKE or ph == PH_CLAIM:
        if ph == PH_CLAIM and sv[V_OUT_AT_ONCE]:
            return 0  # never in Loba's final round (the heuristic's rule)
        top = np.int64(pile[sv[V_NPILE] - 1]) if ph == PH_TAKE else np.int64(sv[V_TOP])
        low = improves(a1, a2, j, top, d, k, m, mp)
        imp = low and related(a1, j, top, k, m, mp[2])
        o = O_TAKE if ph == PH_TAKE else O_CLAIM
        v = (wts[q, o] + wts[q, o + 1] * (1.0 if imp else 0.0) + wts[q, o + 2] * (1.0 if low else 0.0)
             + wts[q, o + 3] * card_points(top) + wts[q, o + 4] * (1.0 if top >= 52 else 0.0)
             + wts[q, o + 5] * d + wts[q, o + 6] * threat
             + wts[q, o + 7] * ((seat[F_TOTAL, q] - low_total) / 100.0)
             + wts[q, o + 8] * (1.0 if sv[V_ROUNDS_LEFT] == 0 else 0.0))
        if ph == PH_CLAIM:
            v += wts[q, o + 9] * (1.0 if d <= CLAIM_MAX_DIST + 1 else 0.0)
        return 1 if v > 0.0 else 0
    # discard: every card held, in the heuristic's order (most points, highest code, a joker last)
    o = O_DISCARD
    best = np.int64(-1)
    bv = 0.0
    for t in range(53):
        c = DISCARD_ORDER[t] if t < 52 else np.int64(JOKER)
        if count_of(a1, a2, j, c) == 0:
            continue
        if d > HEUR_CAP:
            da = HEUR_CAP + 1
        else:
            b1, b2, bj = remove_card(a1, a2, j, c)
            da = d if _search(b1, b2, bj, m, d, k, mp[0], mp[1], mp[2], mp[3]) else min(d + 1, HEUR_CAP + 1)
        pts = card_points(c)
        v = (wts[q, o] * da + wts[q, o + 1] * pts + wts[q, o + 2] * (1.0 if c >= 52 else 0.0)
             + wts[q, o + 3] * (_links(a1, a2, j, c, mp[2]) if c < 52 else 0)
             + wts[q, o + 4] * _unseen(st, q, c, P)
             + wts[q, o + 5] * (1.0 if layable(mrow, sv[V_NM], c, mp)[0] >= 0 else 0.0)
             + wts[q, o + 6] * (pts * threat))
        if best < 0 or v > bv:
            best = c
            bv = v
    return best


def choose(code, st, q, prm, mp, state, random_seat, wts=None):
    """The decision of seat ``q``'s policy ``code`` (random, heuristic or learned) in the phase
    due: ``(state, decision)``. ``random_seat``: None when no seat plays at random (the marker
    of :func:`cardsim.simcore.rummy.engine.reach_markers`; the random policy is then not
    compiled); ``wts``: the learned seats' weights float64[players, N_FEATURES], or None when no
    seat is learned (the learned policy is then not compiled)."""
    if random_seat is not None and code == POL_RANDOM:
        return choose_random(st, q, prm, mp, state)
    if wts is not None and code == POL_LEARNED:
        return state, learned_choose(st, q, prm, mp, wts)
    return state, choose_heuristic(st, q, prm, mp)


def _choose_random_heuristic(code, st, q, prm, mp, state, random_seat, wts=None):
    if code == POL_RANDOM:
        return choose_random(st, q, prm, mp, state)
    return state, choose_heuristic(st, q, prm, mp)


def _choose_learned_heuristic(code, st, q, prm, mp, state, random_seat, wts=None):
    if code == POL_LEARNED:
        return state, learned_choose(st, q, prm, mp, wts)
    return state, choose_heuristic(st, q, prm, mp)


def _choose_all(code, st, q, prm, mp, state, random_seat, wts=None):
    if code == POL_RANDOM:
        return choose_random(st, q, prm, mp, state)
    if code == POL_LEARNED:
        return state, learned_choose(st, q, prm, mp, wts)
    return state, choose_heuristic(st, q, prm, mp)


@overload(choose, inline="always")
def _choose_typed(code, st, q, prm, mp, state, random_seat, wts=None):
    # Chosen by the markers' types while compiling (numba prunes `if x is None` only when x is None);
    # ``wts`` left out (None): no learned seat
    rnd = not isinstance(random_seat, types.NoneType)
    lrn = wts is not None and not isinstance(wts, types.NoneType)
    if rnd and lrn:
        return _choose_all
    if rnd:
        return _choose_random_heuristic
    if lrn:
        return _choose_learned_heuristic
    return lambda code, st, q, prm, mp, state, random_seat, wts=None: (state, choose_heuristic(st, q, prm, mp))
