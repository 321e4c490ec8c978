"""The exact lay-down with same-turn lay-offs on its own new melds (fewest cards left, then fewest points), ``@njit``.

Continental lays down its combinations at any valid length (cards laid off on the same
turn count as part of the lay-down), and Loba's final round with bought cards goes out
only when the contract's melds, lengthened by same-turn lay-offs, take the whole hand
but at most one card. Both ask: which lay-down of ``k`` tríos + ``m`` escaleras, each
lengthened by lay-offs, leaves the fewest cards in hand (then the fewest points)?

Exact method (:func:`exact_laydown`):

1. every choice of the ``m`` escalera *cores* (4-card windows and joker patterns within
   the lay-down limits, jokers also on slots whose natural is held: the enumeration of
   :func:`cardsim.simcore.rummy.contract._next_window`);
2. every choice of the ``k`` trío ranks (non-decreasing) and of the jokers in each trío's
   3-card core; a trío of rank ``r`` *reserves* the naturals of its core (a count: any
   suit serves a trío);
3. the escaleras are lengthened: every held natural that fits an end is laid (beyond the
   reserved counts), and the remaining jokers are placed on escalera ends in every
   combination (the closure after each), a joker laid off anywhere it fits (``max_jokers``
   limits the lay-down only); each placement multiset is tried once. This closure is exact
   only while no natural is *contested*; when one may be (two escaleras of one suit, escaleras
   next to a trío's rank, with no trío a joker that may be stranded),
   :func:`cardsim.simcore.rummy.laydown_lengthen._finish_search`
   also tries leaving each contested natural to the others (issue 34: AS 2S 3S 7S 8S 8S TS JS
   QS QS 2H 2D 2C + 4 jokers, 2E1T, goes out only if the T-J-Q escalera leaves 7S 8S);
4. the tríos take every remaining natural of their rank, the spare jokers go on the first
   trío (a trío takes any number of laid-off jokers).

Continental (:func:`exact_laydown_table`, issue 34): the same-turn lay-offs may also go on the melds
already on the table (and swap their jokers). Every choice scored in step 4 whose lay-down leaves
more than one card is then played out with the heuristic's lay-offs
(:func:`cardsim.simcore.rummy.laydown_score._table_closes`: the order of the engine's
``greedy_layoffs`` with its row lay-off routines, on a copy of the table plus the new melds,
after a bitmask bound); a choice after which at most one card is left closes the hand (-10) and
beats every choice that does not, else the order above is kept (with an empty table it is
unchanged). With the switch ``exact_close`` (issue 50) the check is exact: any sequence of
lay-offs and joker swaps (:func:`cardsim.simcore.rummy.laydown_close.table_closes_exact`), and
the lay-down turn's lay-offs then follow it.

Work budget (switch ``laydown_budget``, ``B``; 0 = unlimited): the search counts the choices it
scores in step 4 and the positions of the exact close search
(:func:`cardsim.simcore.rummy.laydown_close.close_search`). Past ``B`` positions in all, the
remaining choices are checked for a close by the heuristic's lay-offs alone (what ``exact_close =
off`` does); past ``B`` choices the enumeration stops and returns the best choice found so far, a
legal lay-down (every choice scored is one) chosen by the same order among those seen, or the
greedy solver's lay-down (``exact_laydown = off``, :func:`cardsim.simcore.rummy.melds.best_laydown`,
its close checked likewise) when that one is better: a cut search is never worse than the greedy
solver and keeps what it found (a close the greedy solver misses). Both are counts, never time, so
a run's results still depend only on its seed. Ordinary hands stay far below the default (heuristic
seats: a few thousand; the golden cases are bit-identical); hands of 40 cards with 6 jokers beside
9 table escaleras went on for minutes without it.

The best over all choices (no budget, or one not reached) is exact for the lay-off rules of
:func:`cardsim.simcore.rummy.melds.lay_off` (tested against a brute force over all meld
partitions in ``tests/rummy/test_rummy_laydown.py``).

Modules: this one enumerates the escalera cores and the trío choices (steps 1-2) and is the
entry point; step 3 is :mod:`cardsim.simcore.rummy.laydown_lengthen`, step 4 and the table
check :mod:`cardsim.simcore.rummy.laydown_score`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.primitives.bits import popcount
from cardsim.simcore.rummy.contract import RUN, TRIO, _next_window, _rank_count
from cardsim.simcore.rummy.laydown_close import _scratch_rows
from cardsim.simcore.rummy.laydown_lengthen import _finish
from cardsim.simcore.rummy.laydown_score import _consider_greedy, _left, _spent
from cardsim.simcore.rummy.melds import best_laydown


@njit(cache=True, _nrt=False)
def _trio_choices(runs, m, a1, a2, j, k, mp, best, best_rows, best_hand, work, scratch, stk, stk_a, tab, sim):
    """Every choice of trío ranks and core jokers after the escalera cores ``runs``.
    ``scratch``: int64 rows of :func:`exact_laydown` (allocated once per lay-down)."""
    jcap = min(mp[0], 3 - mp[1])
    t_rank, t_jok, code, reserve, seq = scratch[0], scratch[1], scratch[2], scratch[3], scratch[4]
    reserve[:] = 0
    if k == 0:
        _finish(runs, m, a1, a2, j, k, t_rank, t_jok, reserve, mp, best, best_rows, best_hand, work, seq, stk,
                stk_a, tab, sim)
        return
    # Odometer over (rank, jokers) codes per trío, non-decreasing, restricted to the codes whose
    # trío core the hand can hold alone (any other choice fails the reserve check below):
    # the same feasible choices in the same order, without visiting all 13 (jcap + 1) codes.
    valid, idx = scratch[5], scratch[6]
    nv = 0
    for c in range(13 * (jcap + 1)):
        if 3 - c % (jcap + 1) <= _rank_count(a1, a2, c // (jcap + 1)):
            valid[nv] = c
            nv += 1
    if nv == 0:
        return
    idx[:k] = 0
    while True:
        if _spent(best):  # the work budget (switch laydown_budget): keep the best so far
            return
        for t in range(k):
            code[t] = valid[idx[t]]
        for r in range(13):
            reserve[r] = 0
        jused = 0
        for t in range(k):
            t_rank[t] = code[t] // (jcap + 1)
            t_jok[t] = code[t] % (jcap + 1)
            reserve[t_rank[t]] += 3 - t_jok[t]
            jused += t_jok[t]
        if jused <= j:
            ok = True
            for r in range(13):
                if reserve[r] > _rank_count(a1, a2, r):
                    ok = False
                    break
            if ok:
                _finish(runs, m, a1, a2, j - jused, k, t_rank, t_jok, reserve, mp, best, best_rows, best_hand,
                        work, seq, stk, stk_a, tab, sim)
        t = k - 1
        while t >= 0 and idx[t] == nv - 1:
            t -= 1
        if t < 0:
            return
        idx[t] += 1
        for u in range(t + 1, k):
            idx[u] = idx[t]


@njit(cache=True, forceinline=True)
def _set_core(runs, i, w, pat):
    runs[i, 0] = RUN
    runs[i, 1] = w // 13
    runs[i, 2] = w % 13
    runs[i, 3] = 4
    runs[i, 4] = pat
    runs[i, 5] = 0


@njit(cache=True, _nrt=True)
def _new_best(budget):
    """``best = [cards, points, 1 = does not close, choices scored, work budget, close positions]`` of
    :func:`_exact_laydown`."""
    best = np.zeros(6, np.int64)
    best[0] = 1 << 30
    best[1] = 1 << 30
    best[2] = 1
    best[4] = budget
    return best


@njit(cache=True, _nrt=True)
def exact_laydown(a1, a2, jokers, k, m, mp):
    """:func:`exact_laydown_table` with no meld on the table and no work budget (Loba; tests)."""
    return _exact_laydown(a1, a2, jokers, k, m, mp, np.zeros((1, 9), np.int64), _new_best(np.int64(0)))


@njit(cache=True, _nrt=True)
def exact_laydown_table(a1, a2, jokers, k, m, mp, mrow, nt, joker_swap, exact_close=0, budget=0):
    """:func:`_exact_laydown` for Continental, where same-turn lay-offs may go on any table meld:
    a lay-down after which the heuristic's lay-offs on the ``nt`` melds ``mrow[:nt]`` already on
    the table (and on the new ones) leave at most one card, so that the player closes (-10),
    beats any that does not; otherwise the order is unchanged (fewest cards left by the
    lay-down with its own lay-offs, then points). ``exact_close`` (switch, issue 50): any
    sequence of lay-offs and joker swaps that closes counts, not only the heuristic's
    (:mod:`cardsim.simcore.rummy.laydown_close`). ``budget`` (switch ``laydown_budget``): the work
    budget: at most ``budget`` positions of exact close search in all, then the greedy close check, and
    at most ``budget`` choices scored, then the best lay-down found so far or the greedy solver's when
    better (0 = unlimited)."""
    return _exact_laydown(a1, a2, jokers, k, m, mp, _table(mp, mrow, nt, joker_swap, exact_close),
                          _new_best(np.int64(budget)))


@njit(cache=True, _nrt=True)
def laydown_work(a1, a2, jokers, k, m, mp, mrow, nt, joker_swap, exact_close, budget):
    """:func:`exact_laydown_table` and the work it spent: ``(ok, left_points, melds, l1, l2,
    ljokers, choices scored, close positions, 0 when it closes at once)`` (tests and measurements; a run
    never calls it)."""
    best = _new_best(np.int64(budget))
    ok, pts, rows, l1, l2, lj = _exact_laydown(a1, a2, jokers, k, m, mp, _table(mp, mrow, nt, joker_swap, exact_close),
                                               best)
    return ok, pts, rows, l1, l2, lj, best[3], best[5], best[2]


@njit(cache=True, _nrt=True)
def _table(mp, mrow, nt, joker_swap, exact_close):
    """The table rows of :func:`laydown_score._table_closes`: a header, then the ``nt`` melds ``mrow[:nt]``."""
    tab = np.zeros((nt + 1, 9), np.int64)
    tab[0, 8] = 1 if exact_close else 0
    tab[0, 0] = nt
    tab[0, 1] = 1 if joker_swap else 0
    tab[0, 2] = mp[2]
    tab[0, 3] = mp[3]
    tab[0, 4] = mp[0]
    tab[0, 5] = mp[1]
    for i in range(nt):
        for c in range(6):
            tab[i + 1, c] = mrow[i, c]
        if mrow[i, 0] == TRIO:
            tab[0, 6] |= 1 << mrow[i, 1]
        else:
            tab[0, 7] |= 1 << mrow[i, 1]
    return tab


@njit(cache=True, _nrt=True)
def _exact_laydown(a1, a2, jokers, k, m, mp, tab, best):
    """The lay-down of ``k`` tríos + ``m`` escaleras, lengthened by same-turn lay-offs on its own
    melds, leaving the fewest cards in hand, then the fewest points. ``best``: :func:`_new_best`
    (the work budget; the work spent is left in ``best[3]`` and ``best[5]``).

    Returns ``(ok, left_points, melds int64[k+m, 6], l1, l2, ljokers)`` like
    :func:`cardsim.simcore.rummy.melds.best_laydown` (escaleras first; a trío row's size,
    jokers and naturals include its lay-offs).
    """
    a1 = np.uint64(a1)
    a2 = np.uint64(a2)
    mj, mn, ci, na = mp[0], mp[1], mp[2], mp[3]
    runs = np.zeros((3, 6), np.int64)
    work = np.zeros((3, 6), np.int64)
    # the table of :func:`laydown_score._table_closes` (and the scratch of the exact close search)
    extra = _scratch_rows(popcount(a1) + popcount(a2) + jokers) if tab[0, 8] else 0
    sim = np.zeros((tab[0, 0] + 6 + extra, 6), np.int64)
    best_rows = np.zeros((k + m, 6), np.int64)
    best_hand = np.zeros(3, np.uint64)
    # the tríos' ranks, core jokers, codes, reserved naturals per rank; joker placements; the
    # feasible trío codes and the odometer over them
    scratch = np.zeros((7, max(52, jokers + 1)), np.int64)
    # the stack of :func:`laydown_lengthen._finish_search`
    depth = popcount(a1) + popcount(a2) + 6 * (2 * jokers + 8)
    stk = np.zeros((depth, 12), np.int64)
    stk_a = np.zeros((depth, 2), np.uint64)
    zero = np.int64(0)  # variables, not literals: one compiled signature per callee
    no_order = np.int64(-1)  # every escalera choice, in any (missing cards, window) order
    optional = np.bool_(True)
    if m == 0:
        _trio_choices(runs, zero, a1, a2, jokers, k, mp, best, best_rows, best_hand, work, scratch, stk, stk_a, tab,
                      sim)
    else:
        w0 = np.int64(0)
        p0 = np.int64(0)
        while best[0] > 0 and not _spent(best):
            w0, p0, b1, b2, j1, _ = _next_window(a1, a2, jokers, w0, p0, zero, optional, mj, mn, ci, na, no_order, zero)
            if w0 >= 52:
                break
            _set_core(runs, 0, w0, p0)
            if m == 1:
                _trio_choices(runs, np.int64(1), b1, b2, j1, k, mp, best, best_rows, best_hand, work, scratch, stk,
                              stk_a, tab, sim)
            else:
                w1 = w0
                p1 = np.int64(0)
                while best[0] > 0 and not _spent(best):
                    w1, p1, c1, c2, j2, _ = _next_window(b1, b2, j1, w1, p1, zero, optional, mj, mn, ci, na,
                                                         no_order, zero)
                    if w1 >= 52:
                        break
                    _set_core(runs, 1, w1, p1)
                    if m == 2:
                        _trio_choices(runs, np.int64(2), c1, c2, j2, k, mp, best, best_rows, best_hand, work, scratch,
                                      stk, stk_a, tab, sim)
                    else:
                        w2 = w1
                        p2 = np.int64(0)
                        while best[0] > 0 and not _spent(best):
                            w2, p2, d1, d2, j3, _ = _next_window(c1, c2, j2, w2, p2, zero, optional, mj, mn, ci, na,
                                                                 no_order, zero)
                            if w2 >= 52:
                                break
                            _set_core(runs, 2, w2, p2)
                            _trio_choices(runs, np.int64(3), d1, d2, j3, k, mp, best, best_rows, best_hand, work,
                                          scratch, stk, stk_a, tab, sim)
                            p2 += 1
                    p1 += 1
            p0 += 1
    if _spent(best):
        # the work budget ran out (switch laydown_budget): the greedy solver's lay-down (exact_laydown
        # off) when it beats the best choice found so far, so that a cut search is never worse than it
        g_ok, g_pts, g_rows, g1, g2, gj = best_laydown(a1, a2, jokers, k, m, mp, np.int64(1))
        _consider_greedy(g_ok, g_pts, g_rows, g1, g2, gj, m, k, best, best_rows, best_hand, work, scratch[0], tab,
                         sim)
    if best[0] >= 1 << 30:
        total = _left(a1, a2, jokers)[1]
        return False, total, best_rows, a1, a2, jokers
    return True, best[1], best_rows, best_hand[0], best_hand[1], np.int64(best_hand[2])
