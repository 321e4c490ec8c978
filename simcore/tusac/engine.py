"""Tứ Sắc game state and turn loop: the deal, the phases of a turn (draw, claims, take,
discard), applying a decision, and the result of a game.

State (plain arrays, the same in real play and in a search's rollouts)
----------------------------------------------------------------------
``cur`` int64[N_CUR] (the cursor: phase, claim level, exposed card and its source, whose
turn, stock left, turns, result, log rows), ``deck`` uint8[112] (the stock is
``deck[stock_lo : stock_lo + cur[C_NSTOCK]]``, ``stock_lo`` = cards dealt), ``hands`` and
``table`` int8[4, 28] (hidden and laid counts per seat), ``discards`` int8[28],
``locked`` int64[4] (trio_lock masks), ``exp_pts`` int64[4] (points laid), ``exp_kinds``
int64[4, N_KINDS] (melds laid by kind), ``seat`` int16[N_SEAT, players] (per-seat
columns).

Phases: ``PH_DRAW`` (seat ``C_WHO`` draws; a drawn hand when the stock is down to
``dead_wall``), ``PH_CLAIM`` (card ``C_CARD`` exposed by ``C_SRC``, drawn when
``C_DRAW``: claim levels win, steal, taiwanese keep, normal taker, see :mod:`.claims`),
``PH_DISCARD`` (seat ``C_WHO`` discards; the dealer opens this way), ``PH_END``.

:func:`advance` plays from any state until the end, or until a seat whose policy is
``search`` has a real choice (then the driver in :mod:`.play` asks :mod:`.search` and
calls :func:`advance` again with that choice as ``forced``). A search's rollouts call the
same :func:`advance` with the rollout policy at every seat.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.primitives.arrays import copy1
from cardsim.simcore.primitives.movelog import log_record
from cardsim.simcore.primitives.rng import randbelow, shuffle_prefix_planned
from cardsim.simcore.tusac.cards import N_TYPES
from cardsim.simcore.tusac.claims import (K_QUAD, N_KINDS, discardable_options, meld_options, normal_taker,
                                          steal_claimant, steal_options, win_claim)
from cardsim.simcore.tusac.deal import BASE_DECK, deal_into
from cardsim.simcore.tusac.log import (LOG_CLAIM, LOG_DEAL, LOG_DISCARD, LOG_DRAW, LOG_END, LOG_MELD,
                                       LOG_MULLIGAN, LOG_NODISCARD, LOG_PASS, LOG_QUAD, LOG_TAKE, LOG_WIN,
                                       TAKE_DRAW, TAKE_EAT, TAKE_STEAL, pack_counts, rev_code)
from cardsim.simcore.tusac.luck import add_draw_luck
from cardsim.simcore.tusac.melds import part_state
from cardsim.simcore.tusac.policies import DEC_DISCARD, DEC_TAKE, POL_SEARCH, choose, count_discards
from cardsim.simcore.tusac.rules import P_DEAD, P_LOCK, P_MULL, P_PLAYERS

# the cursor
(C_PHASE, C_LEVEL, C_CARD, C_SRC, C_DRAW, C_WHO, C_HOW, C_NSTOCK, C_TURNS, C_WINNER, C_WTAKE, C_WSCORE, C_WCARD,
 C_NWIN, C_NLOG) = range(15)
N_CUR = 15
PH_DRAW, PH_CLAIM, PH_DISCARD, PH_END = range(4)
LV_WIN, LV_STEAL, LV_KEEP, LV_NORMAL = range(4)
#: ``forced`` value of :func:`advance` when no decision is imposed.
NO_FORCE = -99
MAX_MULLIGANS = 100
DEALER_CARDS, PLAYER_CARDS, DECK_CARDS = 21, 20, 112
# per-game columns
M_WINNER, M_TAKE, M_POINTS, M_KINDS = 0, 1, 2, 3
M_TURNS, M_STOCK, M_MULL, M_TIES = 11, 12, 13, 14
N_META = 15
META_NAMES = ("winner", "win_take", "winner_points", "win_generals", "win_pairs", "win_triples", "win_quads",
              "win_command", "win_field", "win_soldier3", "win_soldier4", "turns", "stock_left", "mulligans",
              "claim_ties")
META_DTYPES = (np.int8, np.int8, np.int16) + (np.int8,) * 8 + (np.int16, np.int16, np.int8, np.int8)
# per-seat columns
S_POINTS, S_WIN, S_QUAD, S_TRIPLE, S_DT, S_DQ = range(6)
N_SEAT = 6
SEAT_NAMES = ("points", "steals_win", "steals_quad", "steals_triple", "dealt_triples", "dealt_quads")
SEAT_DTYPES = (np.int16, np.int16, np.int16, np.int16, np.int8, np.int8)


@njit(cache=True, inline="always")
def stock_start(P):
    """Index of the first stock card in ``deck`` (the cards dealt to ``P`` players)."""
    return DEALER_CARDS + PLAYER_CARDS * (P - 1)


@njit(cache=True)
def is_weak(h):
    """The mulligan condition: no General, no type held 3+ times, not a Soldier of every colour."""
    sold = 0
    for t in range(N_TYPES):
        if h[t] >= 3:
            return False
        if t % 7 == 0 and h[t] > 0:
            return False
        if t % 7 == 6 and h[t] > 0:
            sold += 1
    return sold < 4


@njit(cache=True)
def forced_discard(h):
    """The discard of a hand without a legal one (only Generals and locked triples hidden):
    its lowest non-General type, else its lowest General; -1 for an empty hand."""
    for k in range(N_TYPES):
        if h[k] > 0 and k % 7 != 0:
            return k
    for k in range(N_TYPES):
        if h[k] > 0:
            return k
    return -1


@njit(cache=True)
def lay_meld(s, c, i, okind, opts, orev, hands, table, exp_pts, exp_kinds):
    """Lay the taken card ``c`` with meld option ``i`` for seat ``s``."""
    table[s, c] += 1
    for j in range(3):
        o = orev[i, j]
        if o >= 0:
            hands[s, o] -= 1
            table[s, o] += 1
    exp_pts[s] += opts[i]
    exp_kinds[s, okind[i]] += 1


@njit(cache=True)
def hands_from_deck(deck, hands, P):
    """Deal ``deck``'s first cards: 21 to the dealer (seat 0), then 20 to each other seat."""
    hands[:, :] = 0
    for j in range(stock_start(P)):
        s = 0 if j < DEALER_CARDS else 1 + (j - DEALER_CARDS) // PLAYER_CARDS
        hands[s, deck[j]] += 1


@njit(cache=True)
def set_up_deal(prm, cur, hands, table, discards, locked, exp_pts, exp_kinds, seat, log, log_on, nl):
    """The table after the deal of ``hands``: dealt triples (locked under ``trio_lock``),
    dealt quadruples revealed, the deal records of the log (from row ``nl``), the cursor on
    the dealer's opening discard."""
    P = prm[P_PLAYERS]
    ndealt = stock_start(P)
    table[:, :] = 0
    discards[:] = 0
    exp_kinds[:, :] = 0
    for s in range(P):
        for f in range(N_SEAT):
            seat[f, s] = 0
        exp_pts[s] = 0
        locked[s] = 0
        nt = 0
        nq = 0
        for t in range(N_TYPES):
            if hands[s, t] == 3:
                nt += 1
                if prm[P_LOCK] != 0:
                    locked[s] |= np.int64(1) << t
            elif hands[s, t] == 4:
                nq += 1
        seat[S_DT, s] = nt
        seat[S_DQ, s] = nq
        nl = log_record(log, nl, log_on, LOG_DEAL, s, pack_counts(hands[s], np.int64(0), np.int64(14)),
                        pack_counts(hands[s], np.int64(14), np.int64(28)),
                        locked[s], 0)
        for t in range(N_TYPES):
            if hands[s, t] == 4:  # a dealt quadruple is revealed: a concealed quadruple on the table
                hands[s, t] = 0
                table[s, t] = 4
                exp_pts[s] += 8
                exp_kinds[s, K_QUAD] += 1
                nl = log_record(log, nl, log_on, LOG_QUAD, s, t, 0, 0, 0)
    cur[:] = 0
    cur[C_PHASE] = PH_DISCARD
    cur[C_WHO] = 0
    cur[C_HOW] = -1
    cur[C_NSTOCK] = DECK_CARDS - ndealt
    cur[C_WINNER] = -1
    cur[C_WTAKE] = -1
    cur[C_WCARD] = -1
    cur[C_NLOG] = nl


@njit(cache=True)
def start_game(seed, index, prm, g_sizes, g_products, cur, deck, hands, table, discards, locked, exp_pts,
               exp_kinds, seat, log, log_on):
    """Deal game ``index`` of run ``seed`` (redeals while a hand is weak), reveal dealt
    quadruples and set the cursor to the dealer's opening discard. Returns
    ``(game RNG state, mulligans)``."""
    P = prm[P_PLAYERS]
    nl = 0
    base = BASE_DECK
    state = deal_into(seed, index, deck, base, g_sizes, g_products)
    mull = 0
    while True:
        hands_from_deck(deck, hands, P)
        if prm[P_MULL] == 0 or mull >= MAX_MULLIGANS:
            break
        weak = 0
        for s in range(P):
            if is_weak(hands[s]):
                weak |= 1 << s
        if weak == 0:
            break
        nl = log_record(log, nl, log_on, LOG_MULLIGAN, -1, weak, 0, 0, 0)
        mull += 1
        copy1(deck, base)
        state = shuffle_prefix_planned(state, deck, g_sizes, g_products)
    set_up_deal(prm, cur, hands, table, discards, locked, exp_pts, exp_kinds, seat, log, log_on, nl)
    return state, mull


@njit(cache=True, inline="always")
def level_options(prm, lv, c, src, is_draw, claimant, hands, locked, okind, opts, orev):
    """The take decision at claim level ``lv`` (steal, keep or normal taker): ``(seat,
    options, allow_decline)``; seat -1 when the level does not apply.

    A take here is not a win, so a discard follows: only the options that leave the taker
    a legal discard are offered (:func:`.claims.discardable_options`), which keeps every
    hand at 20 cards between turns. A drawn General must be laid, unless no option is left:
    then it is declined, so discarded as drawn (only below ``win_threshold``, with only
    Generals or locked cards hidden)."""
    normal = normal_taker(c, src, is_draw, prm)
    if lv == LV_STEAL:
        if claimant < 0:
            return -1, 0, False
        n = steal_options(hands[claimant], locked[claimant], c, prm, is_draw and c % 7 == 0, okind, opts, orev)
        n = discardable_options(hands[claimant], locked[claimant], n, okind, opts, orev)
        return claimant, n, True
    if lv == LV_KEEP:
        # taiwanese: the drawer may keep its drawn card for a triple/quadruple only
        if not (is_draw and normal != src and hands[src, c] >= 2):
            return -1, 0, False
        n = steal_options(hands[src], locked[src], c, prm, np.bool_(False), okind, opts, orev)
        n = discardable_options(hands[src], locked[src], n, okind, opts, orev)
        return src, n, True
    n = meld_options(hands[normal], locked[normal], c, prm, okind, opts, orev)
    n = discardable_options(hands[normal], locked[normal], n, okind, opts, orev)
    # a drawn General must be laid (declined only when no option is left)
    return normal, n, not (is_draw and normal == src and c % 7 == 0 and n > 0)


@njit(cache=True)
def pending_decision(prm, cur, hands, locked, okind, opts, orev):
    """The decision :func:`advance` stopped at: ``(seat, DEC_TAKE | DEC_DISCARD, options,
    allow_decline)`` (take options in ``okind, opts, orev``)."""
    if cur[C_PHASE] == PH_DISCARD:
        return cur[C_WHO], DEC_DISCARD, 0, False
    d, n, allow = level_options(prm, cur[C_LEVEL], cur[C_CARD], cur[C_SRC], cur[C_DRAW] != 0, cur[C_WHO],
                                hands, locked, okind, opts, orev)
    return d, DEC_TAKE, n, allow


@njit(cache=True)
def advance(prm, pol, forced, stop_search, stop_after_claim, cur, deck, hands, table, discards, locked, exp_pts,
            exp_kinds, seat, okind, opts, orev, trash_tab, score_tab, win_tab, state, log, log_on, wts, luck):
    """Play from the cursor until the game ends; returns ``(game RNG state, stopped)``.

    ``forced``: the choice of the first decision met (an option index or -1 to decline for
    a take, a type for a discard), or ``NO_FORCE``. ``stop_search``: stop (``stopped``
    True) before a decision of a ``search`` seat with two or more choices, the cursor on
    it. ``stop_after_claim``: stop once the claims on the exposed card are resolved (for
    :func:`.probes.claim_case`). ``wts``: the ``learned`` seats' weights (float64[players,
    N_FEATURES]) or None when no seat is learned. ``luck``: float64[P, N_LUCK] to which each
    draw adds its luck (:func:`.luck.add_draw_luck`), or None (numba leaves it out).
    """
    P = prm[P_PLAYERS]
    dead = prm[P_DEAD]
    stock_lo = stock_start(P)
    # the cursor lives in locals while playing (written back once, at the end)
    nl = cur[C_NLOG]
    phase = cur[C_PHASE]
    lv = cur[C_LEVEL]
    c = cur[C_CARD]
    src = cur[C_SRC]
    is_draw = cur[C_DRAW] != 0
    who = cur[C_WHO]
    how_last = cur[C_HOW]
    n_stock = cur[C_NSTOCK]
    turns = cur[C_TURNS]
    stopped = False
    while True:
        if phase == PH_END:
            break
        if phase == PH_DRAW:
            if stop_after_claim:
                break
            if n_stock <= dead:
                nl = log_record(log, nl, log_on, LOG_END, -1, n_stock, 0, 0, 0)
                phase = PH_END
                break
            state, r = randbelow(state, n_stock)
            pos = stock_lo + r
            drawn = deck[pos]
            if luck is not None:  # before the draw: the stock still holds the drawn card
                add_draw_luck(luck, prm, hands, locked, exp_pts, deck, stock_lo, n_stock, np.int64(drawn), who,
                              trash_tab, score_tab, win_tab)
            deck[pos] = deck[stock_lo + n_stock - 1]
            deck[stock_lo + n_stock - 1] = drawn
            n_stock -= 1
            turns += 1
            c = np.int64(drawn)
            src = who
            is_draw = True
            phase = PH_CLAIM
            lv = LV_WIN
            nl = log_record(log, nl, log_on, LOG_DRAW, src, c, n_stock, 0, 0)
            continue
        if phase == PH_DISCARD:
            if stop_after_claim:
                break
            taker = who
            if forced != NO_FORCE:
                d = forced
                forced = NO_FORCE
            else:
                if pol[taker] == POL_SEARCH and stop_search and count_discards(hands[taker], locked[taker]) >= 2:
                    stopped = True
                    break
                d, state = choose(pol[taker], DEC_DISCARD, hands[taker], locked[taker], 0, okind, opts, orev,
                                  np.bool_(False), state, trash_tab, score_tab, discards, table, wts, taker)
            if d < 0:
                # No legal discard: only the dealer's opening can get here (a take always
                # leaves one, see level_options). The dealer discards anyway, so that it too
                # keeps 20 cards: its lowest card that is not a General (of a locked
                # triple), else its lowest General.
                d = forced_discard(hands[taker])
                if d < 0:  # an empty hand (cannot happen: 21 cards, at most 5 quadruples laid)
                    nl = log_record(log, nl, log_on, LOG_NODISCARD, taker, 0, 0, 0, 0)
                    who = (taker + 1) % P
                    phase = PH_DRAW
                    continue
            hands[taker, d] -= 1
            discards[d] += 1
            nl = log_record(log, nl, log_on, LOG_DISCARD, taker, d, 0, 0, 0)
            c = d
            src = taker
            is_draw = False
            phase = PH_CLAIM
            lv = LV_WIN
            continue
        # ---- PH_CLAIM: claims on the exposed card c (from src; drawn or discarded)
        normal = normal_taker(c, src, is_draw, prm)
        if lv == LV_WIN:
            w, nwin, ws = win_claim(c, src, is_draw, prm, hands, locked, exp_pts, trash_tab, score_tab, win_tab)
            if w >= 0:
                if not is_draw:
                    discards[c] -= 1
                if is_draw and w == src:
                    how = TAKE_DRAW  # the draw was counted already
                else:
                    turns += 1
                    how = TAKE_EAT if w == normal else TAKE_STEAL
                    if how == TAKE_STEAL:
                        seat[S_WIN, w] += 1
                nl = log_record(log, nl, log_on, LOG_CLAIM, w, c, 1, nwin, 0)
                cur[C_WINNER] = w
                cur[C_WTAKE] = how
                cur[C_WSCORE] = ws + exp_pts[w]
                cur[C_WCARD] = c
                cur[C_NWIN] = nwin
                how_last = how
                phase = PH_END
                break
            lv = LV_STEAL
            who = steal_claimant(c, src, is_draw, prm, hands, locked)
            continue
        d, n, allow = level_options(prm, lv, c, src, is_draw, who, hands, locked, okind, opts, orev)
        if d < 0:
            lv += 1
            continue
        who = d
        if forced != NO_FORCE:
            ch = forced
            forced = NO_FORCE
        else:
            if pol[d] == POL_SEARCH and stop_search and n + (1 if allow else 0) >= 2:
                stopped = True
                break
            ch, state = choose(pol[d], DEC_TAKE, hands[d], locked[d], n, okind, opts, orev, allow, state,
                               trash_tab, score_tab, discards, table, wts, d)
        if ch >= 0:
            if lv == LV_STEAL:
                how = TAKE_STEAL
                if okind[ch] == K_QUAD:
                    seat[S_QUAD, d] += 1
                else:
                    seat[S_TRIPLE, d] += 1
                nl = log_record(log, nl, log_on, LOG_CLAIM, d, c, 2 if okind[ch] == K_QUAD else 3, 0, 0)
            elif lv == LV_KEEP:
                how = TAKE_DRAW
            else:
                how = TAKE_DRAW if (is_draw and normal == src) else TAKE_EAT
            nl = log_record(log, nl, log_on, LOG_TAKE, d, c, how, src, 0)
            if not is_draw and lv != LV_KEEP:
                discards[c] -= 1
            if how != TAKE_DRAW:
                turns += 1
            lay_meld(d, c, ch, okind, opts, orev, hands, table, exp_pts, exp_kinds)
            nl = log_record(log, nl, log_on, LOG_MELD, d, c, okind[ch], rev_code(orev, ch), 0)
            how_last = how
            phase = PH_DISCARD
            continue
        if lv != LV_NORMAL:
            lv += 1
            continue
        how_last = -1
        nl = log_record(log, nl, log_on, LOG_PASS, normal, c, 0, 0, 0)
        if is_draw:
            # the drawn card is discarded as is (by the drawer, or, under taiwanese, left by the next player)
            discards[c] += 1
            nl = log_record(log, nl, log_on, LOG_DISCARD, src, c, 1, 0, 0)
        if is_draw and normal == src:
            is_draw = False  # exposed again as the drawer's discard: claims again
            lv = LV_WIN
            if stop_after_claim:
                break
            continue
        who = normal
        phase = PH_DRAW
    cur[C_NLOG] = nl
    cur[C_PHASE] = phase
    cur[C_LEVEL] = lv
    cur[C_CARD] = c
    cur[C_SRC] = src
    cur[C_DRAW] = 1 if is_draw else 0
    cur[C_WHO] = who
    cur[C_HOW] = how_last
    cur[C_NSTOCK] = n_stock
    cur[C_TURNS] = turns
    return state, stopped


@njit(cache=True)
def win_breakdown(h, locked, c, ws, prm, okind, opts, orev, trash_tab, score_tab, kind_tab, kinds):
    """Add the meld kinds of a winning hand (winning meld + hidden decomposition) to
    ``kinds``; returns the option index of the winning meld."""
    n = meld_options(h, locked, c, prm, okind, opts, orev)
    for i in range(n):
        for j in range(3):
            if orev[i, j] >= 0:
                h[orev[i, j]] -= 1
        ok = True
        sc = 0
        for p in range(9):
            idx = part_state(h, locked, p)
            if trash_tab[idx]:
                ok = False
            sc += score_tab[idx]
        if ok and sc + opts[i] == ws:
            for p in range(9):
                idx = part_state(h, locked, p)
                for k in range(N_KINDS):
                    kinds[k] += kind_tab[idx, k]
            kinds[okind[i]] += 1
            for j in range(3):
                if orev[i, j] >= 0:
                    h[orev[i, j]] += 1
            return i
        for j in range(3):
            if orev[i, j] >= 0:
                h[orev[i, j]] += 1
    return -1


@njit(cache=True)
def finish_game(prm, cur, deck, hands, table, discards, locked, exp_pts, exp_kinds, meta, seat, okind, opts, orev,
                trash_tab, score_tab, kind_tab, log, log_on, fin):
    """Fill the game's columns (``meta``, ``seat`` points) from the final state, log the
    win, lay the winning card on the winner's table; in logged mode the final cards."""
    P = prm[P_PLAYERS]
    nl = cur[C_NLOG]
    winner = cur[C_WINNER]
    meta[M_WINNER] = winner
    meta[M_TAKE] = cur[C_WTAKE]
    meta[M_TURNS] = cur[C_TURNS]
    meta[M_STOCK] = cur[C_NSTOCK]
    if winner >= 0:
        wcard = cur[C_WCARD]
        wscore = cur[C_WSCORE]
        kinds = np.zeros(N_KINDS, np.int64)
        for k in range(N_KINDS):
            kinds[k] = exp_kinds[winner, k]
        i = win_breakdown(hands[winner], locked[winner], wcard, wscore - exp_pts[winner], prm, okind, opts, orev,
                          trash_tab, score_tab, kind_tab, kinds)
        for k in range(N_KINDS):
            meta[M_KINDS + k] = kinds[k]
        meta[M_POINTS] = wscore
        meta[M_TIES] = cur[C_NWIN] - 1
        nl = log_record(log, nl, log_on, LOG_MELD, winner, wcard, okind[i], rev_code(orev, i), 0)
        nl = log_record(log, nl, log_on, LOG_WIN, winner, wcard, wscore, cur[C_WTAKE], 0)
        for s in range(P):
            seat[S_POINTS, s] = wscore * (P - 1) if s == winner else -wscore
        # the winning card goes to the winner's table (card conservation)
        table[winner, wcard] += 1
    if log_on:
        for s in range(P):
            copy1(fin[s], hands[s])
            copy1(fin[4 + s], table[s])
        copy1(fin[8], discards)
        fin[9, :] = 0
        stock_lo = stock_start(P)
        for j in range(stock_lo, stock_lo + cur[C_NSTOCK]):
            fin[9, deck[j]] += 1
    cur[C_NLOG] = nl
    return nl
