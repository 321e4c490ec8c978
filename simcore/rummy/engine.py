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
"""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from cardsim.simcore.rummy.cards import JOKER, add_card, card_points, remove_card
from cardsim.simcore.rummy.claims import apply_claim, next_claimant
from cardsim.simcore.rummy.contract import _search_sorted as _search
from cardsim.simcore.rummy.contract import contract_ok
from cardsim.simcore.rummy.deal import draw_stock
from cardsim.simcore.rummy.log import (L_DEAL, L_DISCARD, L_LAYDOWN, L_LAYOFF, L_MELD, L_OUT, L_CAPPED, L_POINTS,
                                       L_RESHUFFLE, L_SWAP, L_TAKE_PILE, L_TAKE_STOCK, L_UP, _log, _pack)
from cardsim.simcore.rummy.laydown import exact_laydown_table
from cardsim.simcore.rummy.melds import LAY_HIGH, LAY_LOW, LAY_NO, LAY_SWAP, RUN, TRIO, best_laydown, lay_off

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


# ----------------------------------------------------------------------------- hand helpers
@njit(cache=True)
def hand_points(a1, a2, j):
    pts = 50 * j
    for c in range(52):
        bit = np.uint64(1) << np.uint64(c)
        if a1 & bit:
            pts += card_points(c)
        if a2 & bit:
            pts += card_points(c)
    return pts


@njit(cache=True, forceinline=True)
def count_of(a1, a2, j, code):
    """Copies of card ``code`` in the hand (jokers: ``code >= 52``)."""
    if code >= 52:
        return j
    bit = np.uint64(1) << np.uint64(code)
    return ((a1 & bit) != 0) + ((a2 & bit) != 0)


@njit(cache=True, forceinline=False)
def nth_card(a1, a2, j, idx):
    """The ``idx``-th card of the hand (codes ascending, copies adjacent, jokers last)."""
    for c in range(52):
        n = count_of(a1, a2, j, c)
        if idx < n:
            return c
        idx -= n
    return JOKER


@njit(cache=True, forceinline=False)
def n_cards(a1, a2, j):
    n = j
    for c in range(52):
        n += count_of(a1, a2, j, c)
    return n


@njit(cache=True)
def distance(a1, a2, jokers, k, m, mp, cap):
    """Contract distance (fewest missing cards, ``cap + 1`` beyond ``cap``) with the kernel's faster search."""
    a1 = np.uint64(a1)
    a2 = np.uint64(a2)
    for d in range(cap + 1):
        if _search(a1, a2, jokers, m, d, k, mp[0], mp[1], mp[2], mp[3]):
            return d
    return cap + 1


@njit(cache=True, forceinline=False)
def improves(a1, a2, j, card, d, k, m, mp):
    """Does adding ``card`` lower the (capped) contract distance ``d``?"""
    if d <= 0:
        return False
    b1, b2, bj = add_card(a1, a2, j, card)
    return _search(b1, b2, bj, m, d - 1, k, mp[0], mp[1], mp[2], mp[3])


@njit(cache=True, _nrt=False, forceinline=True)
def forget_played(st, p):
    """Known cards of seat ``p`` that it no longer holds are no longer known."""
    h1, h2, hj, seat, seen = st[0], st[1], st[2], st[3], st[4]
    for c in range(53):
        if seen[p, c] > 0:
            seen[p, c] = min(seen[p, c], count_of(h1[p], h2[p], hj[p], c))


@njit(cache=True, _nrt=False, forceinline=True)
def forget_card(st, p, c):
    """:func:`forget_played` after seat ``p`` played the one card ``c``: only its code can
    change (after every play the known counts are at most the held counts)."""
    seen = st[4]
    cc = min(c, 52)
    n = count_of(st[0][p], st[1][p], st[2][p], cc)
    if seen[p, cc] > n:
        seen[p, cc] = n


# ----------------------------------------------------------------------------- melds on the table
@njit(cache=True, _nrt=False)
def run_cards(row, out):
    """Cards of an escalera row in position order into ``out``; returns the count."""
    L = row[3]
    for i in range(L):
        if (row[4] >> i) & 1:
            out[i] = JOKER
        else:
            out[i] = row[1] * 13 + (row[2] + i) % 13
    return L


@njit(cache=True, _nrt=True)
def build_melds(b1, b2, l1, l2, rows, owner, mrow, mcards, mlen, mown, nm):
    """Append the lay-down ``rows`` to the table with their actual cards (the cards removed
    from the hand ``b`` to leave ``l``)."""
    r1 = np.zeros(52, np.int64)
    for c in range(52):
        r1[c] = count_of(b1, b2, 0, c) - count_of(l1, l2, 0, c)
    for i in range(rows.shape[0]):
        for col in range(6):
            mrow[nm, col] = rows[i, col]
        mown[nm] = owner
        if rows[i, 0] == RUN:
            n = run_cards(rows[i], mcards[nm])
            for t in range(n):
                if mcards[nm, t] < 52:
                    r1[mcards[nm, t]] -= 1
            mlen[nm] = n
        else:
            r = rows[i, 1]
            n = 0
            need = rows[i, 4]
            for s in range(4):
                c = s * 13 + r
                while need > 0 and r1[c] > 0:
                    r1[c] -= 1
                    need -= 1
                    mcards[nm, n] = c
                    n += 1
            for t in range(rows[i, 3]):
                mcards[nm, n] = JOKER
                n += 1
            mlen[nm] = n
        nm += 1
    return nm


@njit(cache=True, _nrt=False, forceinline=False)
def apply_layoff(mrow, mcards, mlen, i, code, where, circular):
    """Lay card ``code`` on meld ``i`` (``where`` from :func:`lay_off`). For ``LAY_SWAP`` the
    natural replaces a joker (the caller takes the joker)."""
    isj = 1 if code >= 52 else 0
    if mrow[i, 0] == TRIO:
        mrow[i, 2] += 1
        if isj:
            mrow[i, 3] += 1
        else:
            mrow[i, 4] += 1
        mcards[i, mlen[i]] = code
        mlen[i] += 1
        return
    L = mrow[i, 3]
    if where == LAY_HIGH:
        if isj:
            mrow[i, 4] |= 1 << L
        mrow[i, 3] = L + 1
    elif where == LAY_LOW:
        s = mrow[i, 2] - 1
        if circular:
            s = s % 13
        mrow[i, 2] = s
        mrow[i, 4] = (mrow[i, 4] << 1) | isj
        mrow[i, 3] = L + 1
    else:  # swap
        r = code % 13
        for t in range(L):
            if (mrow[i, 4] >> t) & 1 and (mrow[i, 2] + t) % 13 == r:
                mrow[i, 4] &= ~(1 << t)
                break
    mlen[i] = run_cards(mrow[i], mcards[i])


@njit(cache=True, _nrt=False, forceinline=False)
def layable(mrow, nm, code, mp):
    """First meld accepting ``code`` (not by a swap): ``(meld, where)`` or ``(-1, 0)``."""
    for i in range(nm):
        w = lay_off(mrow[i], code, mp, np.bool_(False))
        if w != LAY_NO:
            return i, w
    return -1, 0


@njit(cache=True, _nrt=False)
def swap_target(mrow, nm, code, mp):
    """A joker swap for natural ``code``: ``(meld, meld for the released joker, where)`` or -1s."""
    for i in range(nm):
        if mrow[i, 0] != RUN:
            continue
        if lay_off(mrow[i], code, mp, np.bool_(True)) != LAY_SWAP:
            continue
        r = code % 13
        jokers = mrow[i, 4]
        # meld i as after the swap, in place (no scratch row to allocate), restored below
        for t in range(mrow[i, 3]):
            if (jokers >> t) & 1 and (mrow[i, 2] + t) % 13 == r:
                mrow[i, 4] = jokers & ~(1 << t)
                break
        for k in range(nm):
            if mrow[k, 0] != RUN:
                continue
            w = lay_off(mrow[k], np.int64(JOKER), mp, np.bool_(False))
            if w != LAY_NO:
                mrow[i, 4] = jokers
                return i, k, w
        mrow[i, 4] = jokers
    return -1, -1, 0


# ----------------------------------------------------------------------------- round start and end
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
    h1, h2, hj, seat, sv = st[0], st[1], st[2], st[3], st[11]
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
def advance(st, prm, mp, cseat, state, log, nl, log_on):
    """Play forced moves until a decision is due. Returns ``(state, log rows, seat to decide or -1 at the end)``."""
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
            state, nl = apply_take(st, np.int64(0), prm, mp, state, log, nl, log_on)
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
def apply_take(st, from_pile, prm, mp, state, log, nl, log_on):
    """Seat ``V_P`` takes the live pile top (``from_pile``) or the stock top."""
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


def reach_markers(prm: np.ndarray, pol: np.ndarray) -> tuple:
    """The code a run's rules and policies can reach, as the kernels' ``reach`` argument: a
    tuple ``(go_out, go_out_exact, contract_exact, random_seat)`` of markers, each None
    (never) or 1. Numba compiles only the code whose marker is not None (picked by the
    marker's type), so a run compiles what it uses and plays exactly as with all of it.

    ``go_out``: a seat can go out at once (:func:`laydown_out`: Loba's final round with
    bought cards, so Loba with claims). ``go_out_exact``: that lay-down uses the exact solver
    (``exact_go_out``), else the greedy one. ``contract_exact``: an ordinary lay-down of
    lengthened melds uses the exact solver (``exact_laydown``), else the greedy one.
    ``random_seat``: some seat plays the random policy
    (:func:`cardsim.simcore.rummy.policies.choose`).
    """
    from cardsim.simcore.rummy.policies import POL_RANDOM

    exact_on = bool(prm[P_EXACT])
    go_out = 1 if prm[P_GAME] == GAME_LOBA and prm[P_CLAIMS] else None
    return (go_out, 1 if go_out is not None and exact_on else None,
            1 if exact_on and prm[P_EXTEND] else None, 1 if (np.asarray(pol) == POL_RANDOM).any() else None)


def solve_laydown(exact, a1, a2, aj, k, m, mp, extend, mrow, nt, swap):
    """The lay-down solver marker ``exact`` names (:func:`reach_markers`): the exact solver,
    or the greedy one (``extend``: longer melds) when None. Returns the solvers' ``(ok, left,
    rows, l1, l2, lj)``. The exact solver also weighs the same-turn lay-offs on the ``nt``
    table melds ``mrow[:nt]`` (``nt = 0``: none; ``swap``: joker swaps allowed)."""
    if exact is None:
        return best_laydown(a1, a2, aj, k, m, mp, extend)
    return exact_laydown_table(a1, a2, aj, k, m, mp, mrow, nt, swap)


@overload(solve_laydown)
def _solve_laydown_typed(exact, a1, a2, aj, k, m, mp, extend, mrow, nt, swap):
    # Chosen by the marker's type while compiling: numba prunes `if exact is None` only when
    # ``exact`` is None, so a plain `if` in a kernel compiled both solvers for a marker of 1.
    if isinstance(exact, types.NoneType):
        return lambda exact, a1, a2, aj, k, m, mp, extend, mrow, nt, swap: best_laydown(a1, a2, aj, k, m, mp, extend)
    return lambda exact, a1, a2, aj, k, m, mp, extend, mrow, nt, swap: exact_laydown_table(a1, a2, aj, k, m, mp, mrow,
                                                                                          nt, swap)


@njit(cache=True, _nrt=True, forceinline=False)
def laydown_out(st, p, mp, exact, log, nl, log_on):
    """Loba's "go out at once" round (the contract uses every dealt card) for a hand with
    extra cards (buys): the lay-down of the solver's extend mode (longer melds), accepted
    only when it leaves at most one card (to discard). The table gets the contract's exact
    melds (trío of 3, escalera of 4 within the joker limits), then the extra cards as
    same-turn lay-offs on those new melds. ``exact`` (the ``go_out_exact`` marker of
    :func:`reach_markers`): the lay-down leaving the fewest cards
    (:func:`cardsim.simcore.rummy.laydown.exact_laydown`); None: the old greedy solver
    (most points), and the exact one is not compiled. Returns ``(ok, log rows)``; nothing
    changes when not ok."""
    h1, h2, hj, seat, seen, mrow, mcards, mlen, mown, pile, deck, sv = st
    k, m = sv[V_K], sv[V_M]
    a1, a2, aj = h1[p], h2[p], hj[p]
    ok, left, rows, l1, l2, lj = solve_laydown(exact, a1, a2, aj, k, m, mp, np.int64(1), mrow, np.int64(0),
                                               np.int64(0))
    if not ok or n_cards(l1, l2, lj) > 1:
        return False, nl
    n = rows.shape[0]
    # remaining removed cards per code (joker = 52) once every escalera card is accounted for
    rem = np.zeros(53, np.int64)
    for c in range(52):
        rem[c] = count_of(a1, a2, 0, c) - count_of(l1, l2, 0, c)
    rem[52] = aj - lj
    full = np.zeros((n, MAXC), np.int64)
    flen = np.zeros(n, np.int64)
    off = np.zeros(n, np.int64)
    for i in range(n):
        if rows[i, 0] != RUN:
            continue
        L = run_cards(rows[i], full[i])
        flen[i] = L
        for t in range(L):
            rem[full[i, t]] -= 1
        off[i] = -1
        for o in range(L - 3):  # an exact window of 4 within the lay-down joker limits
            pat = (rows[i, 4] >> o) & 15
            nj = (pat & 1) + ((pat >> 1) & 1) + ((pat >> 2) & 1) + ((pat >> 3) & 1)
            if nj <= mp[0] and 4 - nj >= mp[1]:
                off[i] = o
                break
        if off[i] < 0:
            return False, nl
    nm = sv[V_NM]
    nm0 = nm
    for i in range(n):
        for col in range(6):
            mrow[nm, col] = 0
        mown[nm] = p
        if rows[i, 0] == RUN:
            o = off[i]
            mrow[nm, 0] = RUN
            mrow[nm, 1] = rows[i, 1]
            mrow[nm, 2] = rows[i, 2] + o
            mrow[nm, 3] = 4
            mrow[nm, 4] = (rows[i, 4] >> o) & 15
            mlen[nm] = run_cards(mrow[nm], mcards[nm])
        else:
            r = rows[i, 1]
            n0 = min(3, rows[i, 4])
            j0 = 3 - n0
            t = 0
            for s in range(4):
                c = s * 13 + r
                while t < n0 and rem[c] > 0:
                    rem[c] -= 1
                    mcards[nm, t] = c
                    t += 1
            for u in range(j0):
                mcards[nm, t] = JOKER
                t += 1
            rem[52] -= j0
            mlen[nm] = 3
            mrow[nm, 0] = TRIO
            mrow[nm, 1] = r
            mrow[nm, 2] = 3
            mrow[nm, 3] = j0
            mrow[nm, 4] = n0
        for t in range(mlen[nm]):
            a1, a2, aj = remove_card(a1, a2, aj, mcards[nm, t])
        nm += 1
    nl = _log(log, nl, log_on, L_LAYDOWN, p, nm - nm0, 0, 0, 0)
    for i in range(nm0, nm):
        nl = _log(log, nl, log_on, L_MELD, p, i, _pack(mcards[i], mlen[i], 0), _pack(mcards[i], mlen[i], 10),
                  mlen[i])
    # the extra cards: same-turn lay-offs on the new melds
    for i in range(n):
        mi = nm0 + i
        if rows[i, 0] == RUN:
            o = off[i]
            for t in range(o + 4, flen[i]):
                c = full[i, t]
                apply_layoff(mrow, mcards, mlen, mi, c, np.int64(LAY_HIGH), np.int64(0))
                a1, a2, aj = remove_card(a1, a2, aj, c)
                nl = _log(log, nl, log_on, L_LAYOFF, p, mi, c, LAY_HIGH, 0)
            for t in range(o - 1, -1, -1):
                c = full[i, t]
                apply_layoff(mrow, mcards, mlen, mi, c, np.int64(LAY_LOW), np.int64(0))
                a1, a2, aj = remove_card(a1, a2, aj, c)
                nl = _log(log, nl, log_on, L_LAYOFF, p, mi, c, LAY_LOW, 0)
        else:
            r = rows[i, 1]
            extra_n = rows[i, 4] - min(3, rows[i, 4])
            extra_j = rows[i, 3] - (3 - min(3, rows[i, 4]))
            for s in range(4):
                c = s * 13 + r
                while extra_n > 0 and rem[c] > 0:
                    rem[c] -= 1
                    extra_n -= 1
                    apply_layoff(mrow, mcards, mlen, mi, c, np.int64(LAY_HIGH), np.int64(0))
                    a1, a2, aj = remove_card(a1, a2, aj, c)
                    nl = _log(log, nl, log_on, L_LAYOFF, p, mi, c, 0, 0)
            for u in range(extra_j):
                rem[52] -= 1
                apply_layoff(mrow, mcards, mlen, mi, np.int64(JOKER), np.int64(LAY_HIGH), np.int64(0))
                aj -= 1
                nl = _log(log, nl, log_on, L_LAYOFF, p, mi, JOKER, 0, 0)
    h1[p], h2[p], hj[p] = a1, a2, aj
    sv[V_NM] = nm
    return True, nl


@njit(cache=True, _nrt=False)
def can_lay_down(st, p, mp):
    """Does seat ``p``'s hand hold the contract (the rules' lay-down condition, before the final-round check)?"""
    sv = st[11]
    return contract_ok(st[0][p], st[1][p], st[2][p], sv[V_K], sv[V_M], mp)


@njit(cache=True, _nrt=True, forceinline=False)
def _lay_down_contract(st, p, prm, mp, exact, log, nl, log_on):
    """Seat ``p`` lays down the solver's best lay-down (apart from :func:`apply_laydown`: the
    solvers return arrays, so this part keeps numba's reference counting). ``exact`` (the
    ``contract_exact`` marker of :func:`reach_markers`): the exact solver; None: the
    greedy one, and the exact one is not compiled."""
    h1, h2, hj, seat, seen, mrow, mcards, mlen, mown, pile, deck, sv = st
    k, m = sv[V_K], sv[V_M]
    # Continental's same-turn lay-offs may go on any table meld: the exact lay-down weighs them (issue 34)
    nt = sv[V_NM] if prm[P_SAME_TURN] and prm[P_TABLE] else np.int64(0)
    ok, left, rows, l1, l2, lj = solve_laydown(exact, h1[p], h2[p], hj[p], k, m, mp, prm[P_EXTEND], mrow, nt,
                                               prm[P_SWAP])
    nm0 = sv[V_NM]
    nm = build_melds(h1[p], h2[p], l1, l2, rows, p, mrow, mcards, mlen, mown, nm0)
    sv[V_NM] = nm
    h1[p], h2[p], hj[p] = l1, l2, lj
    seat[F_DOWN, p] = 1
    sv[V_LAID_NOW] = 1
    forget_played(st, p)
    nl = _log(log, nl, log_on, L_LAYDOWN, p, nm - nm0, 0, 0, 0)
    for i in range(nm0, nm):
        nl = _log(log, nl, log_on, L_MELD, p, i, _pack(mcards[i], mlen[i], 0), _pack(mcards[i], mlen[i], 10), mlen[i])
    return nl


@njit(cache=True, _nrt=False, forceinline=True)
def _go_out_at_once(st, p, mp, go_out, exact, log, nl, log_on):
    """Loba's final round with bought cards: only a lay-down that takes the whole hand
    (:func:`laydown_out`). ``go_out`` None: rules where no seat gets here (numba then
    leaves this out)."""
    if go_out is None:
        return nl
    ok, nl = laydown_out(st, p, mp, exact, log, nl, log_on)
    if ok:
        st[3][F_DOWN, p] = 1
        st[11][V_LAID_NOW] = 1
        forget_played(st, p)
    return nl


@njit(cache=True, _nrt=False, forceinline=True)
def apply_laydown(st, go, prm, mp, cseat, reach, log, nl, log_on):
    """Seat ``V_P`` lays down (``go``) the solver's best lay-down, or passes. ``cseat`` None:
    rules without claims; ``reach``: what the rules can reach (:func:`reach_markers`;
    numba leaves out the lay-down solvers they cannot)."""
    h1, h2, hj, sv = st[0], st[1], st[2], st[11]
    p = sv[V_P]
    k, m = sv[V_K], sv[V_M]
    sv[V_PHASE] = PH_LAYOFF
    if not go:
        return nl
    if cseat is not None:  # without claims no hand holds more than the contract + 1 cards
        if sv[V_OUT_AT_ONCE] and n_cards(h1[p], h2[p], hj[p]) > 3 * k + 4 * m + 1:
            return _go_out_at_once(st, p, mp, reach[0], reach[1], log, nl, log_on)
    return _lay_down_contract(st, p, prm, mp, reach[2], log, nl, log_on)


@njit(cache=True, _nrt=False, forceinline=False)
def greedy_layoffs(st, prm, mp, log, nl, log_on):
    """Every lay-off the heuristic makes, in its order: naturals (ascending codes, repeated), then joker
    swaps (Continental), then jokers, again while anything changed."""
    h1, h2, hj, seat, seen, mrow, mcards, mlen, mown, pile, deck, sv = st
    p = sv[V_P]
    nm = sv[V_NM]
    circular = mp[2]
    changed = True
    while changed:
        changed = False
        for c in range(52):  # naturals
            while count_of(h1[p], h2[p], hj[p], c) > 0:
                i, w = layable(mrow, nm, c, mp)
                if i < 0:
                    break
                apply_layoff(mrow, mcards, mlen, i, c, w, circular)
                h1[p], h2[p], hj[p] = remove_card(h1[p], h2[p], hj[p], c)
                nl = _log(log, nl, log_on, L_LAYOFF, p, i, c, w * mrow[i, 0], 0)
                changed = True
        if prm[P_SWAP]:
            for c in range(52):
                if count_of(h1[p], h2[p], hj[p], c) == 0:
                    continue
                i, kk, w = swap_target(mrow, nm, c, mp)
                if i < 0:
                    continue
                apply_layoff(mrow, mcards, mlen, i, c, np.int64(LAY_SWAP), circular)
                h1[p], h2[p], hj[p] = remove_card(h1[p], h2[p], hj[p], c)
                nl = _log(log, nl, log_on, L_SWAP, p, i, c, 0, 0)
                w = lay_off(mrow[kk], np.int64(JOKER), mp, np.bool_(False))
                apply_layoff(mrow, mcards, mlen, kk, np.int64(JOKER), w, circular)
                nl = _log(log, nl, log_on, L_LAYOFF, p, kk, JOKER, w * mrow[kk, 0], 0)
                changed = True
        while hj[p] > 0:
            i, w = layable(mrow, nm, np.int64(JOKER), mp)
            if i < 0:
                break
            apply_layoff(mrow, mcards, mlen, i, np.int64(JOKER), w, circular)
            hj[p] -= 1
            nl = _log(log, nl, log_on, L_LAYOFF, p, i, JOKER, w * mrow[i, 0], 0)
            changed = True
    return nl


@njit(cache=True, _nrt=False, forceinline=True)
def apply_layoff_decision(st, d, prm, mp, log, nl, log_on):
    """``LO_STOP``, ``LO_GREEDY`` or one lay-off ``(meld * 64 + card) * 4 + where`` (the phase goes on)."""
    h1, h2, hj, mrow, mcards, mlen = st[0], st[1], st[2], st[5], st[6], st[7]
    sv = st[11]
    p = sv[V_P]
    if d == LO_STOP:
        _after_layoffs(st)
    elif d == LO_GREEDY:
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


@njit(cache=True, _nrt=False, forceinline=True)
def apply_decision(st, d, prm, mp, cseat, reach, state, log, nl, log_on):
    """Apply decision ``d`` of the phase due (see the module docstring). ``cseat`` (claim seats)
    is None when the rules have no claims; ``reach`` marks the code the rules can reach
    (:func:`reach_markers`): numba leaves the rest out. Returns ``(state, log rows)``."""
    ph = st[11][V_PHASE]
    if ph == PH_TAKE:
        state, nl = apply_take(st, d, prm, mp, state, log, nl, log_on)
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
