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
"""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from cardsim.simcore.primitives.rng import randbelow
from cardsim.simcore.rummy.cards import JOKER, card_points
from cardsim.simcore.rummy.contract import _search_sorted as _search
from cardsim.simcore.rummy.contract import contract_ok
from cardsim.simcore.rummy.engine import improves, layable, n_cards, nth_card, count_of
from cardsim.simcore.rummy.melds import LAY_NO, lay_off
from cardsim.simcore.rummy.state import (F_DIST, F_DOWN, LO_GREEDY, LO_STOP, P_PENALTY, P_PLAYERS, PH_CLAIM,
                                         PH_DISCARD, PH_LAYDOWN, PH_LAYOFF, PH_TAKE, V_ASK, V_K, V_LIVE, V_M, V_NM,
                                         V_NPILE, V_OUT_AT_ONCE, V_P, V_PHASE, V_SP, V_TOP)

POLICIES = ("random", "heuristic", "search")
POL_RANDOM, POL_HEURISTIC, POL_SEARCH = 0, 1, 2
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
            rr = r + dr
            if circular:
                rr = rr % 13
            elif rr < 0 or rr > 12:
                if rr == 13:
                    rr = 0
                elif rr == -1:
                    rr = 12
                else:
                    continue
            if (a1 >> np.uint64(s * 13 + rr)) & np.uint64(1):
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


def choose(code, st, q, prm, mp, state, random_seat):
    """The decision of seat ``q``'s policy ``code`` (random or heuristic) in the phase due:
    ``(state, decision)``. ``random_seat``: None when no seat plays at random (the marker of
    :func:`cardsim.simcore.rummy.engine.reach_markers`; the random policy is then not compiled)."""
    if random_seat is not None and code == POL_RANDOM:
        return choose_random(st, q, prm, mp, state)
    return state, choose_heuristic(st, q, prm, mp)


@overload(choose, inline="always")
def _choose_typed(code, st, q, prm, mp, state, random_seat):
    # Chosen by the marker's type while compiling (numba prunes `if x is None` only when x is None)
    if isinstance(random_seat, types.NoneType):
        return lambda code, st, q, prm, mp, state, random_seat: (state, choose_heuristic(st, q, prm, mp))
    return choose  # a marker of 1: the plain function, both policies
