"""Claim resolution of the rummy kernels: Loba's buy and Continental's *robar de contra*.

When the player in turn takes from the stock, the refused live pile card (``sv[V_TOP]``)
is offered to the later seats in turn order (``sv[V_ASK]`` = offset from the player in
turn). A seat is asked only when the run lets it claim (``cseat``), it did not discard
the card itself (Loba: the discarder may not buy back; Continental: it may, asked last)
and it has claims left (``max_claims``, 0 = unlimited). The first seat that wants the
card takes it plus ``penalty`` stock cards and does not discard; the card is then dead.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.rummy.cards import add_card
from cardsim.simcore.rummy.contract import _search_sorted
from cardsim.simcore.rummy.deal import draw_stock
from cardsim.simcore.rummy.log import L_CLAIM, L_PENALTY, L_RESHUFFLE, _log
from cardsim.simcore.rummy.state import (F_DIST, F_DOWN, F_NCLAIMS, P_CLAIMS, P_DISC_CLAIM, P_MAXCLAIMS, P_PENALTY,
                                         P_PLAYERS, PH_LAYDOWN, V_ASK, V_K, V_LAST_DISC, V_LIVE, V_M, V_NPILE, V_P,
                                         V_PHASE, V_RESH, V_SP, V_TOP)


@njit(cache=True, _nrt=False, forceinline=True)
def claim_allowed(st, prm, cseat, q):
    """May seat ``q`` claim the refused card now?"""
    seat, sv = st[3], st[11]
    if not prm[P_CLAIMS] or not cseat[q]:
        return False
    if q == sv[V_LAST_DISC] and not prm[P_DISC_CLAIM]:
        return False
    if prm[P_MAXCLAIMS] > 0 and seat[F_NCLAIMS, q] >= prm[P_MAXCLAIMS]:
        return False
    return True


@njit(cache=True, _nrt=False, forceinline=True)
def next_claimant(st, prm, cseat):
    """The next seat to ask about the refused card (advancing ``V_ASK`` over seats that may
    not claim), or -1 when every later seat has been asked."""
    sv = st[11]
    P = prm[P_PLAYERS]
    while sv[V_ASK] < P:
        q = (sv[V_P] + sv[V_ASK]) % P
        if claim_allowed(st, prm, cseat, q):
            return q
        sv[V_ASK] += 1
    return -1


@njit(cache=True, _nrt=False, forceinline=True)
def apply_claim(st, want, prm, mp, state, log, nl, log_on):
    """The asked seat claims (``want``) or refuses the card. A claim moves the card and the
    penalty cards into its hand and closes the offer. Returns ``(state, log rows)``."""
    h1, h2, hj, seat, seen, mrow, mcards, mlen, mown, pile, deck, sv = st
    P = prm[P_PLAYERS]
    p = sv[V_P]
    q = (p + sv[V_ASK]) % P
    if not want:
        sv[V_ASK] += 1
        return state, nl
    top = sv[V_TOP]
    sv[V_NPILE] -= 1
    sv[V_LIVE] = 0
    seat[F_NCLAIMS, q] += 1
    h1[q], h2[q], hj[q] = add_card(h1[q], h2[q], hj[q], top)
    seen[q, min(top, 52)] += 1
    nl = _log(log, nl, log_on, L_CLAIM, q, top, p, 0, 0)
    for t in range(prm[P_PENALTY]):
        c, sp, npile, state, r = draw_stock(deck, sv[V_SP], pile, sv[V_NPILE], state)
        sv[V_SP] = sp
        sv[V_NPILE] = npile
        if r:
            sv[V_RESH] += 1
            nl = _log(log, nl, log_on, L_RESHUFFLE, -1, deck.shape[0] - sp + 1, 0, 0, 0)  # the new stock
        if c < 0:
            break
        h1[q], h2[q], hj[q] = add_card(h1[q], h2[q], hj[q], c)
        nl = _log(log, nl, log_on, L_PENALTY, q, c, 0, 0, 0)
    if not seat[F_DOWN, q] and seat[F_DIST, q] >= 0:  # the heuristic's memory: its exact contract distance
        d = 5
        for dd in range(5):
            if _search_sorted(np.uint64(h1[q]), np.uint64(h2[q]), hj[q], sv[V_M], dd, sv[V_K], mp[0], mp[1], mp[2],
                              mp[3]):
                d = dd
                break
        seat[F_DIST, q] = d
    sv[V_PHASE] = PH_LAYDOWN
    return state, nl
