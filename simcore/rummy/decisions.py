"""Applying the take, lay-off and discard decisions of a round (``@njit``), and the phase steps around them.

The steps: a turn's start (or the cap on turns) and the end of the lay-offs (go out or discard).

The phases and decision codes are described in :mod:`cardsim.simcore.rummy.engine`, which
dispatches a decision to its kind (:func:`cardsim.simcore.rummy.engine.apply_decision`); the
lay-down is applied in :mod:`cardsim.simcore.rummy.laydown_apply`, a claim in
:mod:`cardsim.simcore.rummy.claims`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.rummy.cards import add_card, remove_card
from cardsim.simcore.rummy.deal import draw_stock
from cardsim.simcore.rummy.hand import forget_card, forget_played, improves
from cardsim.simcore.rummy.luck import add_draw_luck
from cardsim.simcore.rummy.log import L_DISCARD, L_LAYOFF, L_RESHUFFLE, L_TAKE_PILE, L_TAKE_STOCK, _log
from cardsim.simcore.rummy.laydown_close import exact_close_layoffs
from cardsim.simcore.rummy.state import (F_DIST, F_DOWN, LO_GREEDY, LO_STOP, P_CLAIMS, P_CLOSE, P_EXACT, P_MAXTURNS,
                                         P_PLAYERS, P_TABLE,
                                         PH_CLAIM, PH_DISCARD, PH_END, PH_LAYDOWN, PH_TAKE, V_ASK, V_CAPPED, V_K,
                                         V_LAID_NOW, V_LAST_DISC, V_LIVE, V_M, V_NPILE, V_P, V_PHASE, V_RESH, V_SP,
                                         V_TOP, V_TURNS, V_WENT_OUT)
from cardsim.simcore.rummy.table import apply_layoff, greedy_layoffs


@njit(cache=True, _nrt=False, forceinline=True)
def start_turn(st, prm):
    """Begin the turn of ``sv[V_P]`` (or cap the round at ``max_turns``)."""
    sv = st[11]
    if sv[V_TURNS] >= prm[P_MAXTURNS]:
        sv[V_CAPPED] = 1
        sv[V_PHASE] = PH_END
        return
    sv[V_TURNS] += 1
    sv[V_LAID_NOW] = 0
    sv[V_PHASE] = PH_TAKE


@njit(cache=True, _nrt=False, forceinline=True)
def _after_layoffs(st):
    """Lay-offs are over: a player without cards goes out, else discards."""
    h1, hj, sv = st[0], st[2], st[11]
    p = sv[V_P]
    if h1[p] == 0 and hj[p] == 0:
        sv[V_WENT_OUT] = p
        sv[V_PHASE] = PH_END
    else:
        sv[V_PHASE] = PH_DISCARD


@njit(cache=True, _nrt=False, forceinline=True)
def apply_take(st, from_pile, prm, mp, state, log, nl, log_on, luck):
    """Seat ``V_P`` takes the live pile top (``from_pile``) or the stock top. A stock draw adds
    its luck to ``luck`` (float64[P, N_LUCK], :mod:`.luck`) when ``luck`` has rows."""
    h1, h2, hj, seat, seen, mrow, mcards, mlen, mown, pile, deck, sv = st
    p = sv[V_P]
    top = np.int64(pile[sv[V_NPILE] - 1]) if (sv[V_NPILE] > 0 and sv[V_LIVE]) else np.int64(-1)
    if from_pile:
        sv[V_NPILE] -= 1
        sv[V_LIVE] = 0
        h1[p], h2[p], hj[p] = add_card(h1[p], h2[p], hj[p], top)
        seen[p, min(top, 52)] += 1
        if not seat[F_DOWN, p] and seat[F_DIST, p] > 0:
            seat[F_DIST, p] -= 1  # the heuristic's memory: it takes the pile card only when it lowers the distance
        nl = _log(log, nl, log_on, L_TAKE_PILE, p, top, 0, 0, 0)
        sv[V_PHASE] = PH_LAYDOWN
        return state, nl
    c, sp, npile, state, r = draw_stock(deck, sv[V_SP], pile, sv[V_NPILE], state)
    sv[V_SP] = sp
    sv[V_NPILE] = npile
    if r:
        sv[V_RESH] += 1
        # a = the new stock, the card just drawn included
        nl = _log(log, nl, log_on, L_RESHUFFLE, -1, deck.shape[0] - sp + 1, 0, 0, 0)
    if c < 0:
        sv[V_CAPPED] = 1
        sv[V_PHASE] = PH_END
        return state, nl
    if luck.shape[0] > 0:  # the hand before the card joins it; the stock before: c and deck[sp:]
        add_draw_luck(luck, p, h1[p], h2[p], hj[p], seat[F_DOWN, p] != 0, deck, sp, c, sv[V_K], sv[V_M], mp)
    if not seat[F_DOWN, p] and improves(h1[p], h2[p], hj[p], c, seat[F_DIST, p], sv[V_K], sv[V_M], mp):
        seat[F_DIST, p] -= 1  # the heuristic's memory (exact for heuristic seats)
    h1[p], h2[p], hj[p] = add_card(h1[p], h2[p], hj[p], c)
    nl = _log(log, nl, log_on, L_TAKE_STOCK, p, c, 0, 0, 0)
    if prm[P_CLAIMS] and top >= 0 and sv[V_LIVE]:
        sv[V_TOP] = top
        sv[V_ASK] = 1
        sv[V_PHASE] = PH_CLAIM
    else:
        sv[V_PHASE] = PH_LAYDOWN
    return state, nl


@njit(cache=True, _nrt=False, forceinline=True)
def apply_layoff_decision(st, d, prm, mp, log, nl, log_on):
    """``LO_STOP``, ``LO_GREEDY`` or one lay-off ``(meld * 64 + card) * 4 + where`` (the phase goes on)."""
    h1, h2, hj, mrow, mcards, mlen = st[0], st[1], st[2], st[5], st[6], st[7]
    sv = st[11]
    p = sv[V_P]
    if d == LO_STOP:
        _after_layoffs(st)
    elif d == LO_GREEDY:
        if prm[P_CLOSE] and prm[P_EXACT] and prm[P_TABLE] and sv[V_LAID_NOW]:
            # switch exact_close: lay-offs that close at once where the greedy ones would not (issue 50)
            nl = exact_close_layoffs(st, prm, mp, log, nl, log_on)
        nl = greedy_layoffs(st, prm, mp, log, nl, log_on)
        _after_layoffs(st)
        forget_played(st, p)
    else:
        w = d % 4
        c = (d // 4) % 64
        i = d // 256
        apply_layoff(mrow, mcards, mlen, i, c, w, mp[2])
        h1[p], h2[p], hj[p] = remove_card(h1[p], h2[p], hj[p], c)
        nl = _log(log, nl, log_on, L_LAYOFF, p, i, c, w * mrow[i, 0], 0)
        forget_card(st, p, c)
    return nl


@njit(cache=True, _nrt=False, forceinline=True)
def apply_discard(st, c, prm, log, nl, log_on):
    """Seat ``V_P`` discards card ``c``; the round ends when its hand is empty, else the next seat's turn starts."""
    h1, h2, hj, seat, seen, mrow, mcards, mlen, mown, pile, deck, sv = st
    p = sv[V_P]
    h1[p], h2[p], hj[p] = remove_card(h1[p], h2[p], hj[p], c)
    forget_card(st, p, c)
    pile[sv[V_NPILE]] = c
    sv[V_NPILE] += 1
    sv[V_LIVE] = 1
    sv[V_LAST_DISC] = p
    nl = _log(log, nl, log_on, L_DISCARD, p, c, 0, 0, 0)
    if h1[p] == 0 and hj[p] == 0:
        sv[V_WENT_OUT] = p
        sv[V_PHASE] = PH_END
        return nl
    sv[V_P] = (p + 1) % prm[P_PLAYERS]
    start_turn(st, prm)
    return nl
