"""The contract-rummy round as plain arrays: state, legal decisions, applying a decision, stepping to the next one.

One shared core for Loba and Continental; the games differ by the parameter vector
(:func:`kernel_params`, generated from the rules class with
:func:`cardsim.simcore.framework.config.param_layout`) and the meld rules ``mp``.

State
-----
A round's state is one tuple of arrays (:func:`new_state`), so that a search can copy it
(:func:`copy_state`) and play on from any decision:

``h1, h2`` uint64[P], ``hj`` int64[P]
    each seat's hand as planes (:mod:`cardsim.simcore.rummy.cards`).
``seat`` int64[N_SEAT_ROWS, P]
    ``F_DOWN`` (laid down), ``F_DIST`` (the heuristic's contract distance, its memory; -1 for
    a seat that keeps none: a random seat, a search seat until it decides),
    ``F_NCLAIMS`` (claims this round); and ``F_TOTAL``, the seat's match total before this
    round (match context: set by the match driver, kept by the deal; the search's objective).
``seen`` int64[P, 53]
    cards each seat is *known* to hold: taken from the pile or claimed, not yet played
    (public information: the search's opponents model).
``mrow, mcards, mlen, mown``
    table melds (rows of :mod:`cardsim.simcore.rummy.melds`, their cards, lengths, owners).
``pile`` int64[D+1], ``deck`` int64[D]
    the discard pile (bottom first) and the pack (the stock is ``deck[sp:]``).
``sv`` int64[N_SV_ROWS]
    scalars: ``V_P`` seat in turn, ``V_PHASE``, pile size, live top, last discarder,
    stock pointer, melds, turns, reshuffles, capped, who went out, laid down this turn,
    the claimed card and the asked seat offset, the contract ``k, m`` and hand size ``H``;
    and ``V_ROUNDS_LEFT``, the rounds still to play after this one (match context).

Turn (phases)
-------------
``PH_TAKE`` (pile top or stock; forced stock when no live card) -> ``PH_CLAIM`` (after a
stock take, the refused card is offered to the later seats in turn order,
:mod:`cardsim.simcore.rummy.claims`) -> ``PH_LAYDOWN`` (when not down) -> ``PH_LAYOFF``
(when down; Loba only on later turns) -> ``PH_DISCARD`` -> next seat. :func:`advance`
steps through forced moves and returns the seat whose decision is due (-1 at the end);
:func:`apply_decision` applies one. Decisions: take 1 = pile / 0 = stock; claim 1/0;
lay down 1/0; lay-off ``LO_STOP``, ``LO_GREEDY`` (every lay-off the heuristic makes:
naturals, then joker swaps, then jokers) or one lay-off ``(meld * 64 + card) * 4 +
where``; discard a card code. The rules of a round are described in
``docs/rules/loba.md`` / ``docs/rules/continental.md`` and in :mod:`cardsim.simcore.rummy.play`.

Compiled form
-------------
Passing the state costs about 90 machine words per call (12 array structs), and numba's
reference counting adds two atomic operations per array argument, more than most
decisions cost. So small per-decision helpers are inlined into their callers: compiled
once and inlined by LLVM (``forceinline=True``), which compiles faster on a first run
than numba's own inlining at every call site (``inline="always"``, kept only for the
policies' ``choose`` overload); and every kernel that neither allocates nor receives an array
from a call is compiled without reference counting (``_nrt=False``, a Numba decorator
option: with reference counting the Tiến Lên and rummy play kernels run 40-60% slower,
``benchmarks/bench_warm_commands.py``). The kernels that allocate say ``_nrt=True``: numba
compiles a callee with its caller's setting unless the callee sets its own.

Modules
-------
This module is the entry point: the round's deal (:func:`deal_round`), its step to the next
decision (:func:`advance`), the dispatch of a decision to its kind (:func:`apply_decision`)
and its end (:func:`finish_round`, :func:`round_points`). The parts it calls, re-exported
here: a seat's hand (:mod:`cardsim.simcore.rummy.hand`), the table melds and lay-offs
(:mod:`cardsim.simcore.rummy.table`), the take, lay-off and discard decisions
(:mod:`cardsim.simcore.rummy.decisions`), the lay-down decision
(:mod:`cardsim.simcore.rummy.laydown_apply`) and the claims (:mod:`cardsim.simcore.rummy.claims`).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.rummy.cards import add_card
from cardsim.simcore.rummy.claims import apply_claim, next_claimant
from cardsim.simcore.rummy.decisions import (_after_layoffs, apply_discard, apply_layoff_decision,  # noqa: F401
                                             apply_take, start_turn)
from cardsim.simcore.rummy.hand import (count_of, distance, forget_card, forget_played, hand_points,  # noqa: F401
                                        improves, n_cards, nth_card)
from cardsim.simcore.rummy.laydown_apply import (_go_out_at_once, _lay_down_contract,  # noqa: F401
                                                 _solve_laydown_typed, apply_laydown, can_lay_down, laydown_out,
                                                 reach_markers, solve_laydown)
from cardsim.simcore.rummy.log import L_CAPPED, L_DEAL, L_OUT, L_POINTS, L_UP, _log
from cardsim.simcore.rummy.table import (apply_layoff, build_melds, greedy_layoffs, lay_row, layable,  # noqa: F401
                                         run_cards, swap_target)

from cardsim.simcore.rummy.state import (F_DIST, F_DOWN, F_NCLAIMS, GAME_LOBA, I_CAPPED, I_CLOSED1,  # noqa: F401
                                         I_RESHUFFLES, I_TURNS, I_WENT_OUT, LO_GREEDY, LO_STOP, MAXC, MAXM, N_SEATF,
                                         N_SV, P_CLAIMS, P_EXACT, P_EXTEND, P_GAME, P_MAXTURNS, P_MINUS10, P_PLAYERS,
                                         P_SAME_TURN, P_SWAP, P_TABLE, PH_CLAIM, PH_DISCARD, PH_END, PH_LAYDOWN,
                                         PH_LAYOFF, PH_TAKE, S_CLAIMS, S_DOWN, S_POINTS, V_ASK, V_CAPPED, V_H, V_K,
                                         V_LAID_NOW, V_LAST_DISC, V_LIVE, V_M, V_NM, V_NPILE, V_OUT_AT_ONCE, V_P,
                                         V_PHASE, V_RESH, V_SP, V_TOP, V_TURNS, V_WENT_OUT, copy_state, kernel_params,
                                         new_state)

_M26 = np.uint64((1 << 26) - 1)
_U26 = np.uint64(26)


# ----------------------------------------------------------------------------- round start and end
@njit(cache=True, _nrt=False)
def deal_round(st, first, k, m, H, prm, mp, pol, heur_code, log, nl, log_on):
    """Deal the round from the shuffled pack ``st``'s ``deck``: hands, up-card, stock; the
    heuristic seats (``pol == heur_code``) get their contract distance. Returns the log rows."""
    h1, h2, hj, seat, seen, mrow, mcards, mlen, mown, pile, deck, sv = st
    P = prm[P_PLAYERS]
    for s in range(P):
        h1[s] = 0
        h2[s] = 0
        hj[s] = 0
        for f in range(N_SEATF):
            seat[f, s] = 0
        seen[s, :] = 0
    for i in range(N_SV):
        sv[i] = 0
    for s in range(P):
        for t in range(H):
            h1[s], h2[s], hj[s] = add_card(h1[s], h2[s], hj[s], np.int64(deck[s * H + t]))
            deck[s * H + t] = -1
        nl = _log(log, nl, log_on, L_DEAL, s, np.int64(h1[s] & _M26), np.int64(h1[s] >> _U26),
                  np.int64(h2[s] & _M26), np.int64(h2[s] >> _U26) | (hj[s] << 32))
        if pol[s] == heur_code:
            seat[F_DIST, s] = distance(h1[s], h2[s], hj[s], k, m, mp, 4)
        else:
            seat[F_DIST, s] = -1  # no memory kept (a search seat recomputes it when it decides)
    pile[0] = deck[P * H]
    deck[P * H] = -1
    sv[V_NPILE] = 1
    sv[V_LIVE] = 1
    sv[V_LAST_DISC] = -1
    nl = _log(log, nl, log_on, L_UP, -1, np.int64(pile[0]), 0, 0, 0)
    sv[V_SP] = P * H + 1
    sv[V_WENT_OUT] = -1
    sv[V_P] = first
    sv[V_K] = k
    sv[V_M] = m
    sv[V_H] = H
    # Loba round whose contract uses every dealt card: the first lay-down goes out at once
    sv[V_OUT_AT_ONCE] = 1 if (prm[P_GAME] == GAME_LOBA and 3 * k + 4 * m >= H) else 0
    start_turn(st, prm)
    return nl


@njit(cache=True, _nrt=False)
def round_points(st, prm, s):
    """Points seat ``s`` scores for the round in state ``st`` (final or not)."""
    h1, h2, hj, sv = st[0], st[1], st[2], st[11]
    if s == sv[V_WENT_OUT]:
        return -10 if (sv[V_LAID_NOW] and prm[P_MINUS10]) else 0
    return hand_points(h1[s], h2[s], hj[s])


@njit(cache=True, _nrt=False)
def finish_round(st, prm, seatout, info, log, nl, log_on):
    """Log the end of the round and fill ``seatout[3, P]`` (claims, down, points) and ``info[5]``."""
    seat, sv = st[3], st[11]
    P = prm[P_PLAYERS]
    went_out = sv[V_WENT_OUT]
    closed1 = 0
    if went_out >= 0:
        closed1 = 1 if sv[V_LAID_NOW] else 0
        nl = _log(log, nl, log_on, L_OUT, went_out, closed1, 0, 0, 0)
    else:
        nl = _log(log, nl, log_on, L_CAPPED, -1, sv[V_TURNS], 0, 0, 0)
    for s in range(P):
        seatout[S_CLAIMS, s] = seat[F_NCLAIMS, s]
        seatout[S_DOWN, s] = seat[F_DOWN, s]
        pts = round_points(st, prm, s)
        seatout[S_POINTS, s] = pts
        nl = _log(log, nl, log_on, L_POINTS, s, pts, 0, 0, 0)
    info[I_WENT_OUT] = went_out
    info[I_TURNS] = sv[V_TURNS]
    info[I_RESHUFFLES] = sv[V_RESH]
    info[I_CAPPED] = sv[V_CAPPED]
    info[I_CLOSED1] = closed1
    return nl


# ----------------------------------------------------------------------------- decisions
@njit(cache=True, _nrt=False, forceinline=True)
def advance(st, prm, mp, cseat, state, log, nl, log_on, luck):
    """Play forced moves until a decision is due. Returns ``(state, log rows, seat to decide or -1 at the end)``.
    ``luck``: the draws' luck (:func:`.decisions.apply_take`; no rows: not recorded)."""
    sv = st[11]
    seat = st[3]
    while True:
        ph = sv[V_PHASE]
        p = sv[V_P]
        if ph == PH_END:
            return state, nl, -1
        if ph == PH_TAKE:
            if sv[V_NPILE] > 0 and sv[V_LIVE]:
                return state, nl, p
            state, nl = apply_take(st, np.int64(0), prm, mp, state, log, nl, log_on, luck)
        elif ph == PH_CLAIM:
            if cseat is None:  # rules without claims: never reached (numba leaves the claims out)
                q = -1
            else:
                q = next_claimant(st, prm, cseat)
            if q < 0:
                sv[V_PHASE] = PH_LAYDOWN
            else:
                return state, nl, q
        elif ph == PH_LAYDOWN:
            if seat[F_DOWN, p]:
                sv[V_PHASE] = PH_LAYOFF
            else:
                return state, nl, p
        elif ph == PH_LAYOFF:
            if seat[F_DOWN, p] and (prm[P_SAME_TURN] or not sv[V_LAID_NOW]):
                return state, nl, p
            _after_layoffs(st)
        else:
            return state, nl, p


@njit(cache=True, _nrt=False, forceinline=True)
def apply_decision(st, d, prm, mp, cseat, reach, state, log, nl, log_on, luck):
    """Apply decision ``d`` of the phase due (see the module docstring). ``cseat`` (claim seats)
    is None when the rules have no claims; ``reach`` marks the code the rules can reach
    (:func:`reach_markers`): numba leaves the rest out; ``luck``: the draws' luck
    (:func:`.decisions.apply_take`; no rows: not recorded). Returns ``(state, log rows)``."""
    ph = st[11][V_PHASE]
    if ph == PH_TAKE:
        state, nl = apply_take(st, d, prm, mp, state, log, nl, log_on, luck)
    elif ph == PH_CLAIM:
        if cseat is not None:  # never reached without claims
            state, nl = apply_claim(st, d, prm, mp, state, log, nl, log_on)
    elif ph == PH_LAYDOWN:
        nl = apply_laydown(st, d, prm, mp, cseat, reach, log, nl, log_on)
    elif ph == PH_LAYOFF:
        nl = apply_layoff_decision(st, d, prm, mp, log, nl, log_on)
    elif ph == PH_DISCARD:
        nl = apply_discard(st, d, prm, log, nl, log_on)
    return state, nl
