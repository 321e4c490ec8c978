"""Applying the lay-down decision (``@njit``): the solver a run compiles, the contract's lay-down, going out at once.

Which lay-down solver the rules reach (:func:`reach_markers`, :func:`solve_laydown`), the
contract's lay-down (:func:`apply_laydown`) and Loba's final-round lay-down that takes the
whole hand (:func:`laydown_out`).

The solvers are :func:`cardsim.simcore.rummy.melds.best_laydown` (greedy) and
:mod:`cardsim.simcore.rummy.laydown` (exact); the round's state, phases and compiled form
are described in :mod:`cardsim.simcore.rummy.engine`.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from cardsim.simcore.rummy.cards import JOKER, remove_card
from cardsim.simcore.rummy.contract import contract_ok
from cardsim.simcore.rummy.hand import count_of, forget_played, n_cards
from cardsim.simcore.rummy.laydown import exact_laydown_table
from cardsim.simcore.rummy.log import L_LAYDOWN, L_LAYOFF, L_MELD, _log, _pack
from cardsim.simcore.rummy.melds import LAY_HIGH, LAY_LOW, RUN, TRIO, best_laydown
from cardsim.simcore.rummy.state import (F_DOWN, GAME_LOBA, MAXC, P_CLAIMS, P_EXACT, P_EXTEND, P_GAME, P_SAME_TURN,
                                         P_SWAP, P_TABLE, P_CLOSE, P_BUDGET, PH_LAYOFF, V_K, V_LAID_NOW, V_M, V_NM, V_OUT_AT_ONCE, V_P,
                                         V_PHASE)
from cardsim.simcore.rummy.table import apply_layoff, build_melds, run_cards


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


def solve_laydown(exact, a1, a2, aj, k, m, mp, extend, mrow, nt, swap, close, budget):
    """The lay-down solver marker ``exact`` names (:func:`reach_markers`): the exact solver,
    or the greedy one (``extend``: longer melds) when None. Returns the solvers' ``(ok, left,
    rows, l1, l2, lj)``. The exact solver also weighs the same-turn lay-offs on the ``nt``
    table melds ``mrow[:nt]`` (``nt = 0``: none; ``swap``: joker swaps allowed; ``close``:
    switch ``exact_close``, any sequence of them, not only the heuristic's), within ``budget``
    work units (switch ``laydown_budget``; 0 = unlimited)."""
    if exact is None:
        return best_laydown(a1, a2, aj, k, m, mp, extend)
    return exact_laydown_table(a1, a2, aj, k, m, mp, mrow, nt, swap, close, budget)


@overload(solve_laydown)
def _solve_laydown_typed(exact, a1, a2, aj, k, m, mp, extend, mrow, nt, swap, close, budget):
    # Chosen by the marker's type while compiling: numba prunes `if exact is None` only when
    # ``exact`` is None, so a plain `if` in a kernel compiled both solvers for a marker of 1.
    if isinstance(exact, types.NoneType):
        return lambda exact, a1, a2, aj, k, m, mp, extend, mrow, nt, swap, close, budget: best_laydown(
            a1, a2, aj, k, m, mp, extend)
    return lambda exact, a1, a2, aj, k, m, mp, extend, mrow, nt, swap, close, budget: exact_laydown_table(
        a1, a2, aj, k, m, mp, mrow, nt, swap, close, budget)


@njit(cache=True, _nrt=True, forceinline=False)
def laydown_out(st, p, mp, exact, log, nl, log_on, budget=0):
    """Loba's "go out at once" round (the contract uses every dealt card) for a hand with
    extra cards (buys): the lay-down of the solver's extend mode (longer melds), accepted
    only when it leaves at most one card (to discard). The table gets the contract's exact
    melds (trío of 3, escalera of 4 within the joker limits), then the extra cards as
    same-turn lay-offs on those new melds. ``exact`` (the ``go_out_exact`` marker of
    :func:`reach_markers`): the lay-down leaving the fewest cards
    (:func:`cardsim.simcore.rummy.laydown.exact_laydown`); None: the old greedy solver
    (most points), and the exact one is not compiled. ``budget``: the exact solver's work budget
    (switch ``laydown_budget``; 0 = unlimited). Returns ``(ok, log rows)``; nothing changes when
    not ok."""
    h1, h2, hj, seat, seen, mrow, mcards, mlen, mown, pile, deck, sv = st
    k, m = sv[V_K], sv[V_M]
    a1, a2, aj = h1[p], h2[p], hj[p]
    ok, left, rows, l1, l2, lj = solve_laydown(exact, a1, a2, aj, k, m, mp, np.int64(1), mrow, np.int64(0),
                                               np.int64(0), np.int64(0), np.int64(budget))
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
                                               prm[P_SWAP], prm[P_CLOSE], prm[P_BUDGET])
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
def _go_out_at_once(st, p, mp, go_out, exact, log, nl, log_on, budget):
    """Loba's final round with bought cards: only a lay-down that takes the whole hand
    (:func:`laydown_out`). ``go_out`` None: rules where no seat gets here (numba then
    leaves this out)."""
    if go_out is None:
        return nl
    ok, nl = laydown_out(st, p, mp, exact, log, nl, log_on, budget)
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
            return _go_out_at_once(st, p, mp, reach[0], reach[1], log, nl, log_on, prm[P_BUDGET])
    return _lay_down_contract(st, p, prm, mp, reach[2], log, nl, log_on)
