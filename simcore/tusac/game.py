"""Tứ Sắc (four-colour cards) full games in numba: the ``play`` kernel.

Game ``i`` of a run is a pure function of ``(seed, i)``: the deal comes from
:func:`simcore.tusac.deal.deal_into`; redeals (mulligans), stock draws and the random
policy keep drawing from the same SplitMix64 stream. So any chunking, thread count or
:func:`replay_game` reproduces a game exactly.

Game flow (spec ``shared/rules/tusac.md``)
------------------------------------------
* Seats ``0..players-1``; seat 0 deals and gets 21 cards, the others 20. Play order is
  ``seat + 1 mod players`` (the spec's anticlockwise order, seats numbered that way).
* Mulligan (switch ``mulligan``): while some dealt hand is weak (no General, no type
  held 3+ times, not a Soldier of every colour), the deal is voided and the deck is
  reshuffled from the same RNG stream (``mulligans`` counts redeals; after 100 the deal
  is played anyway).
* Dealt quadruples are revealed: laid on the table as a concealed quadruple (8 points)
  at the start. Under ``trio_lock`` a dealt triple (type held exactly 3 times) is locked:
  it may only be melded whole (as a quadruple with the 4th copy taken), and none of its
  3 cards may be discarded or used in another meld.
* The stock is the undealt cards; each draw takes a uniformly random remaining card
  (equivalent to a shuffled stock). When ``stock_left <= dead_wall`` at a draw, the hand
  ends as a draw (no winner).
* The dealer opens by discarding a card (never a General). Every exposed card (a draw
  or a discard) then goes through the **claims** (below). A taker lays the taken card
  with exactly one meld containing it (0-3 hand cards revealed) and, unless it won,
  discards one hand card (never a General; with ``trio_lock`` never a card of a locked
  triple). A drawer who does not (or cannot) meld the drawn card discards it as is
  (a drawn General must be melded: alone, in a Command group, or a triple/quadruple).
  A player with no legal discard (an empty hand, or only Generals / locked cards, which
  can happen under ``win_threshold``) discards nothing and the next player draws.
* Win: a claim of the exposed card such that the taken card's meld plus a full
  decomposition of the hidden hand exist (:func:`simcore.tusac.melds.win_score`) and
  the total score (exposed melds + that) is ``>= win_threshold``. Wins are always
  claimed by every policy (a win is never declined).

Claims (``steals``, ``steal_seats``, ``general_steals``, ``priority``)
-----------------------------------------------------------------------
The *normal taker* of a discard by ``f`` is ``f + 1``; of a drawn card, the drawer
(default priority). Claim order: seats in play order starting from the drawer (drawn
card) or from ``f + 1`` (discard; the discarder never claims its own discard).

1. **Win**: every seat that can win with the card and may claim it (the normal taker
   and, under ``priority=taiwanese``, the drawer always may; any other seat only when
   ``steals`` is ``on`` or ``win_only`` and the seat is in ``steal_seats``). The first in
   claim order wins; ``claim_ties`` = the number of other seats that could also win on
   that card.
2. **Triple / quadruple steal**: a seat other than the normal taker holding two (or
   three) hidden copies of the card, with ``steals=on`` and in ``steal_seats``, may claim
   it to make a triple (or quadruple) of identical cards (soldier groups never). At most
   one such seat exists. A drawn General may be stolen only to make a quadruple from a
   concealed triple (``general_steals=quad_only``) or never (``never``); wins excepted.
   Under ``trio_lock`` a locked triple can only become a quadruple.
3. Otherwise the normal taker: the drawer melds its drawn card (any meld) or discards it
   as is, which exposes it again as the drawer's discard (claims again, the next player
   may eat); the next player eats a discard (any meld containing it) or declines and
   draws.

After a steal, play continues from the stealer (players in between lose their turn).

``priority=taiwanese`` (reading of "win > triple/quadruple > any meld by the next player
only"): level 3 belongs to the *next* player for every exposed card, drawn cards
included. A drawn card other than a General can be taken by its drawer only to win or
to make a triple/quadruple from its own pair/triple; otherwise the next player may eat
it for any meld; if not, it stays as the drawer's discard (no second claim round) and
the next player draws. A drawn General stays the drawer's (as in the default). For
discards both orders are the same.

Scoring and points columns
--------------------------
The winner's score = points of all their melds: melds laid on the table during the game
(taken values; dealt quadruples 8) + the winning meld (taken value) + the best
decomposition of the hidden cards (concealed values). Each loser pays the score to the
winner: ``points_w = score * (players - 1)``, ``points_s = -score`` for the others;
zeros in a drawn game.

Policies (per seat: 0 random, 1 heuristic)
------------------------------------------
* random: uniform among the legal choices at every decision: taking a drawn card (each
  meld option, or discarding it as is when allowed), eating a discard (each meld or
  declining), a triple/quadruple steal (each steal meld or not claiming), the discard
  (each legal card type). A forced choice draws no random number. Wins are always taken.
* heuristic: values a hidden hand as ``-10 * trash + concealed score`` (trash = cards
  in no meld in the best decomposition, :mod:`.melds`); each take option is valued after
  the meld and its best discard (the discard that leaves the least trash, then the most
  points; lowest type on ties) plus the meld's taken points, declining is valued as the
  current hand; it takes when an option is at least as good as declining and discards
  its least useful card. Draws no random numbers.

Entry points
------------
:func:`play_chunk` (bulk, parallel), :func:`replay_game` (text of one game from the
kernel's move log), :func:`play_logged` (rows, move log and final card state, serial; for
checks), :func:`claim_case` (the kernel's claim step on a hand-built situation).
:mod:`.reference` is an independent pure-Python version of the claims and of a game.

Output columns of :func:`play_chunk` (one row per game)
-------------------------------------------------------
``game`` int64, ``winner`` int8 (-1 draw), ``win_take`` int8 (0 the drawer on its drawn
card, 1 eat by the normal taker, 2 steal out of turn, -1 none), ``winner_points`` int16
(the winner's score, 0 for a draw), ``win_generals, win_pairs, win_triples, win_quads,
win_command, win_field, win_soldier3, win_soldier4`` int8 (melds of each kind in the
winner's final hand: table + winning meld + hidden decomposition), ``turns`` int16
(takes: draws + eats + steals), ``stock_left`` int16 (at the end), ``mulligans`` int8,
``claim_ties`` int8 (seats that could also have won on the winning card but came
later in claim order; 0 = no tie); per seat ``s``: ``points_s`` int16, ``steals_win_s``,
``steals_quad_s``, ``steals_triple_s`` int16 (out-of-turn claims), ``dealt_triples_s``,
``dealt_quads_s`` int8 (types held exactly 3 / 4 times in the played deal).
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from cardsim.simcore.tasks import policy_codes as _policy_codes
from cardsim.simcore.rng import randbelow, shuffle_prefix_planned
from cardsim.simcore.tusac.cards import N_TYPES, hand_str, type_name
from cardsim.simcore.tusac.deal import BASE_DECK, deal_into, deal_plan
from cardsim.simcore.tusac.melds import (MELD_NAMES, TYPE_PART, TYPE_POS, kind_tables, meld_tables, part_state,
                                 win_score)
from cardsim.simcore.tusac.rules import TuSacRules

POLICIES = ("random", "heuristic")
POL_RANDOM, POL_HEURISTIC = 0, 1

# kernel parameters
(P_PLAYERS, P_DEAD, P_MULL, P_LOCK, P_STEALS, P_GSTEALS, P_PRIO, P_SEATS, P_THR, P_CMD, P_FIELD,
 P_S3, P_S4, P_SPAIRS) = range(14)
N_PARAMS = 14
ST_ON, ST_OFF, ST_WIN = 0, 1, 2
# meld kinds (MELD_NAMES order)
K_GENERAL, K_PAIR, K_TRIPLE, K_QUAD, K_CMD, K_FIELD, K_S3, K_S4 = range(8)
N_KINDS = 8
# take kinds
TAKE_DRAW, TAKE_EAT, TAKE_STEAL = 0, 1, 2
TAKE_NAMES = ("draw", "eat", "steal")
# per-game columns
(M_WINNER, M_TAKE, M_POINTS, M_KINDS) = (0, 1, 2, 3)
M_TURNS, M_STOCK, M_MULL, M_TIES = 11, 12, 13, 14
N_META = 15
KIND_COLS = ("win_generals", "win_pairs", "win_triples", "win_quads", "win_command", "win_field",
             "win_soldier3", "win_soldier4")
META_NAMES = ("winner", "win_take", "winner_points") + KIND_COLS + ("turns", "stock_left", "mulligans",
                                                                    "claim_ties")
META_DTYPES = (np.int8, np.int8, np.int16) + (np.int8,) * 8 + (np.int16, np.int16, np.int8, np.int8)
S_POINTS, S_WIN, S_QUAD, S_TRIPLE, S_DT, S_DQ = range(6)
N_SEAT = 6
SEAT_NAMES = ("points", "steals_win", "steals_quad", "steals_triple", "dealt_triples", "dealt_quads")
SEAT_DTYPES = (np.int16, np.int16, np.int16, np.int16, np.int8, np.int8)
# move log rows (kind, seat, a, b, c)
(LOG_DEAL, LOG_MULLIGAN, LOG_QUAD, LOG_DRAW, LOG_CLAIM, LOG_TAKE, LOG_MELD, LOG_PASS, LOG_DISCARD,
 LOG_WIN, LOG_END, LOG_NODISCARD) = range(12)
LOG_CAP = 1024
LOG_W = 5
MAX_MULLIGANS = 100
MAX_OPTS = 16
HEUR_TRASH = 10
# final state rows (logged mode): hidden[P], table[P], discards, stock
FIN_ROWS = 10
_POW5 = np.array([1, 5, 25, 125], np.int64)


# ----------------------------------------------------------------------------------
# meld options, claims
# ----------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _is_locked(h, locked, t):
    """True when type ``t``'s hidden copies hold a locked (dealt) triple."""
    return ((locked >> t) & 1) != 0 and h[t] >= 3


@njit(cache=True)
def meld_options(h, locked, c, prm, okind, opts, orev):
    """Melds containing a taken card ``c`` with hidden hand ``h``; returns their number.

    ``okind[i]`` kind, ``opts[i]`` taken points, ``orev[i, :3]`` hand types revealed
    (-1 padded). Under ``trio_lock`` a locked triple is only used whole (a quadruple).
    """
    n = 0
    ch = c % 7
    col = c // 7
    hc = h[c]
    lk = _is_locked(h, locked, c)
    if ch == 0:
        okind[n] = K_GENERAL
        opts[n] = 1
        orev[n, 0] = -1
        orev[n, 1] = -1
        orev[n, 2] = -1
        n += 1
    elif (ch != 6 or prm[P_SPAIRS] != 0) and hc >= 1 and (not lk or hc - 1 >= 3):
        okind[n] = K_PAIR
        opts[n] = 0
        orev[n, 0] = c
        orev[n, 1] = -1
        orev[n, 2] = -1
        n += 1
    # A taken General is laid alone, in a Command group or as a quadruple (spec: never a
    # triple; two hidden copies already score as two single Generals).
    if ch != 0 and hc >= 2 and (not lk or hc - 2 >= 3):
        okind[n] = K_TRIPLE
        opts[n] = 1
        orev[n, 0] = c
        orev[n, 1] = c
        orev[n, 2] = -1
        n += 1
    if hc >= 3:
        okind[n] = K_QUAD
        opts[n] = 6
        orev[n, 0] = c
        orev[n, 1] = c
        orev[n, 2] = c
        n += 1
    if ch < 6:
        base = col * 7 + (0 if ch < 3 else 3)
        ok = True
        k = 0
        for o in range(base, base + 3):
            if o != c:
                if h[o] < 1 or (_is_locked(h, locked, o) and h[o] == 3):
                    ok = False
                orev[n, k] = o
                k += 1
        if ok:
            orev[n, 2] = -1
            okind[n] = K_CMD if ch < 3 else K_FIELD
            opts[n] = prm[P_CMD] if ch < 3 else prm[P_FIELD]
            n += 1
    else:
        # other Soldiers present (usable)
        a0 = -1
        a1 = -1
        a2 = -1
        m = 0
        for cc in range(4):
            o = cc * 7 + 6
            if o != c and h[o] >= 1 and not (_is_locked(h, locked, o) and h[o] == 3):
                if m == 0:
                    a0 = o
                elif m == 1:
                    a1 = o
                else:
                    a2 = o
                m += 1
        if m >= 2:
            for i in range(m):
                for j in range(i + 1, m):
                    x = a0 if i == 0 else (a1 if i == 1 else a2)
                    y = a0 if j == 0 else (a1 if j == 1 else a2)
                    okind[n] = K_S3
                    opts[n] = prm[P_S3]
                    orev[n, 0] = x
                    orev[n, 1] = y
                    orev[n, 2] = -1
                    n += 1
        if m == 3:
            okind[n] = K_S4
            opts[n] = prm[P_S4]
            orev[n, 0] = a0
            orev[n, 1] = a1
            orev[n, 2] = a2
            n += 1
    return n


@njit(cache=True)
def normal_taker(c, src, is_draw, prm):
    """The level-3 taker of an exposed card (see the module docstring)."""
    P = prm[P_PLAYERS]
    if not is_draw:
        return (src + 1) % P
    if prm[P_PRIO] == 1 and c % 7 != 0:
        return (src + 1) % P
    return src


@njit(cache=True)
def win_claim(c, src, is_draw, prm, hands, locked, exp_pts, trash_tab, score_tab, win_tab):
    """Level 1: ``(winning seat or -1, number of seats that can and may win, its score)``."""
    P = prm[P_PLAYERS]
    normal = normal_taker(c, src, is_draw, prm)
    start = src if is_draw else (src + 1) % P
    best = -1
    best_ws = -1
    nwin = 0
    for k in range(P):
        s = (start + k) % P
        if s == src and not is_draw:
            continue
        own = s == normal or (is_draw and s == src)
        if not own:
            if prm[P_STEALS] == ST_OFF or ((prm[P_SEATS] >> s) & 1) == 0:
                continue
        ws = win_score(hands[s], c, locked[s], trash_tab, score_tab, win_tab)
        if ws >= 0 and ws + exp_pts[s] >= prm[P_THR]:
            nwin += 1
            if best < 0:
                best = s
                best_ws = ws
    return best, nwin, best_ws


@njit(cache=True)
def steal_claimant(c, src, is_draw, prm, hands, locked):
    """Level 2: the seat that may steal the card for a triple/quadruple, or -1.

    Out-of-turn seats only (not the normal taker, not the drawer); ``steals=on``, the
    seat in ``steal_seats``, two or more hidden copies with a legal triple/quadruple.
    """
    P = prm[P_PLAYERS]
    if prm[P_STEALS] != ST_ON:
        return -1
    normal = normal_taker(c, src, is_draw, prm)
    gen = c % 7 == 0
    for s in range(P):
        if s == src or s == normal or ((prm[P_SEATS] >> s) & 1) == 0:
            continue
        hc = hands[s, c]
        if hc < 2:
            continue
        if gen and is_draw:
            if prm[P_GSTEALS] == 1 or hc < 3:
                continue
        if hc == 2 or hc >= 3:  # a triple from the pair, or a quadruple (always legal)
            return s
    return -1


@njit(cache=True)
def steal_options(h, locked, c, prm, gen_draw, okind, opts, orev):
    """Triple / quadruple options of a level-2 claim (a drawn General: quadruple only)."""
    n = meld_options(h, locked, c, prm, okind, opts, orev)
    m = 0
    for i in range(n):
        if okind[i] == K_QUAD or (okind[i] == K_TRIPLE and not gen_draw):
            okind[m] = okind[i]
            opts[m] = opts[i]
            orev[m, 0] = orev[i, 0]
            orev[m, 1] = orev[i, 1]
            orev[m, 2] = orev[i, 2]
            m += 1
    return m


# ----------------------------------------------------------------------------------
# policies
# ----------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _legal_discard(h, locked, k):
    return h[k] > 0 and k % 7 != 0 and not (((locked >> k) & 1) != 0 and h[k] == 3)


@njit(cache=True)
def best_discard(h, locked, trash_tab, score_tab):
    """Heuristic discard: ``(type or -1, trash after, score after)``; least trash, then
    most points, then lowest type. Without a legal discard: ``(-1, trash, score)``."""
    tr = 0
    sc = 0
    idx = np.empty(9, np.int64)
    for p in range(9):
        idx[p] = part_state(h, locked, p)
        tr += trash_tab[idx[p]]
        sc += score_tab[idx[p]]
    bk = -1
    bt = 0
    bs = 0
    for k in range(N_TYPES):
        if not _legal_discard(h, locked, k):
            continue
        p = TYPE_PART[k]
        i2 = idx[p] - _POW5[TYPE_POS[k]]
        t2 = tr - trash_tab[idx[p]] + trash_tab[i2]
        s2 = sc - score_tab[idx[p]] + score_tab[i2]
        if bk < 0 or t2 < bt or (t2 == bt and s2 > bs):
            bk = k
            bt = t2
            bs = s2
    if bk < 0:
        return -1, tr, sc
    return bk, bt, bs


@njit(cache=True)
def hand_value(h, locked, trash_tab, score_tab):
    tr = 0
    sc = 0
    for p in range(9):
        i = part_state(h, locked, p)
        tr += trash_tab[i]
        sc += score_tab[i]
    return -HEUR_TRASH * tr + sc


@njit(cache=True)
def choose_option(pol, h, locked, nopt, okind, opts, orev, allow_decline, state, trash_tab, score_tab):
    """A take decision: option index, or -1 to decline. Returns ``(choice, state)``."""
    if pol == POL_RANDOM:
        n = nopt + (1 if allow_decline else 0)
        if n == 0:
            return -1, state
        if n == 1:
            return (0 if nopt else -1), state
        state, r = randbelow(state, n)
        return (r if r < nopt else -1), state
    best = -1
    bv = -(1 << 40)
    if allow_decline:
        bv = hand_value(h, locked, trash_tab, score_tab)
    for i in range(nopt):
        for j in range(3):
            if orev[i, j] >= 0:
                h[orev[i, j]] -= 1
        k, t2, s2 = best_discard(h, locked, trash_tab, score_tab)
        v = -HEUR_TRASH * t2 + s2 + opts[i]
        for j in range(3):
            if orev[i, j] >= 0:
                h[orev[i, j]] += 1
        if v >= bv if best < 0 else v > bv:
            bv = v
            best = i
    return best, state


@njit(cache=True)
def choose_discard(pol, h, locked, state, trash_tab, score_tab):
    """Discard decision: a legal type, or -1 when none. Returns ``(type, state)``."""
    if pol == POL_RANDOM:
        n = 0
        for k in range(N_TYPES):
            if _legal_discard(h, locked, k):
                n += 1
        if n == 0:
            return -1, state
        r = 0
        if n > 1:
            state, r = randbelow(state, n)
        for k in range(N_TYPES):
            if _legal_discard(h, locked, k):
                if r == 0:
                    return k, state
                r -= 1
        return -1, state
    k, t2, s2 = best_discard(h, locked, trash_tab, score_tab)
    return k, state


# ----------------------------------------------------------------------------------
# one game
# ----------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _log(log, n, on, kind, seat, a, b, c):
    if on and n < log.shape[0]:
        log[n, 0] = kind
        log[n, 1] = seat
        log[n, 2] = a
        log[n, 3] = b
        log[n, 4] = c
        return n + 1
    return n


@njit(cache=True)
def _pack(h, lo, hi):
    v = np.int64(0)
    for t in range(lo, hi):
        v |= np.int64(h[t]) << (3 * (t - lo))
    return v


@njit(cache=True)
def _is_weak(h):
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
def _apply(s, c, i, okind, opts, orev, hands, table, exp_pts, exp_kinds):
    """Lay the taken card ``c`` with option ``i`` for seat ``s``."""
    table[s, c] += 1
    for j in range(3):
        o = orev[i, j]
        if o >= 0:
            hands[s, o] -= 1
            table[s, o] += 1
    exp_pts[s] += opts[i]
    exp_kinds[s, okind[i]] += 1


@njit(cache=True)
def _rev_code(orev, i):
    return (orev[i, 0] + 1) | ((orev[i, 1] + 1) << 5) | ((orev[i, 2] + 1) << 10)


@njit(cache=True)
def _win_breakdown(h, locked, c, ws, prm, okind, opts, orev, trash_tab, score_tab, kind_tab, kinds):
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


CS_WIN, CS_TAKEN, CS_REDISCARD, CS_PASS = range(4)


@njit(cache=True)
def claim_step(c, src, is_draw, prm, pol, state, hands, table, discards, locked, exp_pts, exp_kinds,
               okind, opts, orev, seat, trash_tab, score_tab, win_tab, log, nl, log_on):
    """Claims on the exposed card ``c`` (drawn by / discarded by ``src``) and the take.

    Returns ``(code, seat, how, win score of the hidden part, seats able to win, takes
    counted, state, log rows)``; ``code``: ``CS_WIN`` (``seat`` wins, ``how`` = take
    kind), ``CS_TAKEN`` (``seat`` took and laid the card; it must now discard),
    ``CS_REDISCARD`` (the drawer did not meld its drawn card: it is exposed again as the
    drawer's discard), ``CS_PASS`` (nobody took it; ``seat`` draws next).
    """
    turns = 0
    how = -1
    w, nwin, ws = win_claim(c, src, is_draw, prm, hands, locked, exp_pts, trash_tab, score_tab, win_tab)
    normal = normal_taker(c, src, is_draw, prm)
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
        nl = _log(log, nl, log_on, LOG_CLAIM, w, c, 1, nwin)
        return CS_WIN, w, how, ws, nwin, turns, state, nl
    taker = -1
    s2 = steal_claimant(c, src, is_draw, prm, hands, locked)
    gen_draw = is_draw and c % 7 == 0
    taken = False
    if s2 >= 0:
        n = steal_options(hands[s2], locked[s2], c, prm, gen_draw, okind, opts, orev)
        ch, state = choose_option(pol[s2], hands[s2], locked[s2], n, okind, opts, orev, True,
                                  state, trash_tab, score_tab)
        if ch >= 0:
            if okind[ch] == K_QUAD:
                seat[S_QUAD, s2] += 1
            else:
                seat[S_TRIPLE, s2] += 1
            nl = _log(log, nl, log_on, LOG_CLAIM, s2, c, 2 if okind[ch] == K_QUAD else 3, 0)
            nl = _log(log, nl, log_on, LOG_TAKE, s2, c, TAKE_STEAL, src)
            if not is_draw:
                discards[c] -= 1
            turns += 1
            _apply(s2, c, ch, okind, opts, orev, hands, table, exp_pts, exp_kinds)
            nl = _log(log, nl, log_on, LOG_MELD, s2, c, okind[ch], _rev_code(orev, ch))
            taker = s2
            how = TAKE_STEAL
            taken = True
    if not taken and is_draw and normal != src:
        # taiwanese: the drawer may keep its drawn card for a triple/quadruple only
        if hands[src, c] >= 2:
            n = steal_options(hands[src], locked[src], c, prm, False, okind, opts, orev)
            ch, state = choose_option(pol[src], hands[src], locked[src], n, okind, opts, orev, True,
                                      state, trash_tab, score_tab)
            if ch >= 0:
                nl = _log(log, nl, log_on, LOG_TAKE, src, c, TAKE_DRAW, src)
                _apply(src, c, ch, okind, opts, orev, hands, table, exp_pts, exp_kinds)
                nl = _log(log, nl, log_on, LOG_MELD, src, c, okind[ch], _rev_code(orev, ch))
                taker = src
                how = TAKE_DRAW
                taken = True
    if not taken:
        # level 3: the normal taker
        n = meld_options(hands[normal], locked[normal], c, prm, okind, opts, orev)
        must = is_draw and normal == src and c % 7 == 0
        ch, state = choose_option(pol[normal], hands[normal], locked[normal], n, okind, opts, orev,
                                  not must, state, trash_tab, score_tab)
        if ch >= 0:
            how = TAKE_DRAW if (is_draw and normal == src) else TAKE_EAT
            nl = _log(log, nl, log_on, LOG_TAKE, normal, c, how, src)
            if not is_draw:
                discards[c] -= 1
            if how == TAKE_EAT:
                turns += 1
            _apply(normal, c, ch, okind, opts, orev, hands, table, exp_pts, exp_kinds)
            nl = _log(log, nl, log_on, LOG_MELD, normal, c, okind[ch], _rev_code(orev, ch))
            taker = normal
            taken = True
        else:
            nl = _log(log, nl, log_on, LOG_PASS, normal, c, 0, 0)
            if is_draw and normal == src:
                # the drawer discards its drawn card as is: exposed again as a discard
                discards[c] += 1
                nl = _log(log, nl, log_on, LOG_DISCARD, src, c, 1, 0)
                return CS_REDISCARD, src, -1, -1, 0, turns, state, nl
            if is_draw:
                # taiwanese: declined by the next player: it stays as the drawer's discard
                discards[c] += 1
                nl = _log(log, nl, log_on, LOG_DISCARD, src, c, 1, 0)
            return CS_PASS, normal, -1, -1, 0, turns, state, nl
    return CS_TAKEN, taker, how, -1, 0, turns, state, nl


@njit(cache=True)
def _play_game(seed, index, prm, pol, g_sizes, g_products, trash_tab, score_tab, win_tab, kind_tab,
               deck, hands, table, discards, locked, exp_pts, exp_kinds, okind, opts, orev,
               meta, seat, log, log_on, fin):
    """Play game ``index``; fill ``meta[N_META]``, ``seat[N_SEAT, P]``; returns log rows used."""
    P = prm[P_PLAYERS]
    nl = 0
    base = BASE_DECK
    state = deal_into(seed, index, deck, base, g_sizes, g_products)
    ndealt = 21 + 20 * (P - 1)
    mull = 0
    while True:
        hands[:, :] = 0
        for j in range(ndealt):
            s = 0 if j < 21 else 1 + (j - 21) // 20
            hands[s, deck[j]] += 1
        if prm[P_MULL] == 0 or mull >= MAX_MULLIGANS:
            break
        weak = 0
        for s in range(P):
            if _is_weak(hands[s]):
                weak |= 1 << s
        if weak == 0:
            break
        nl = _log(log, nl, log_on, LOG_MULLIGAN, -1, weak, 0, 0)
        mull += 1
        deck[:] = base
        state = shuffle_prefix_planned(state, deck, g_sizes, g_products)
    table[:, :] = 0
    discards[:] = 0
    exp_kinds[:, :] = 0
    for f in range(N_META):
        meta[f] = 0
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
        nl = _log(log, nl, log_on, LOG_DEAL, s, _pack(hands[s], 0, 14), _pack(hands[s], 14, 28), locked[s])
        for t in range(N_TYPES):
            if hands[s, t] == 4:  # a dealt quadruple is revealed: a concealed quadruple on the table
                hands[s, t] = 0
                table[s, t] = 4
                exp_pts[s] += 8
                exp_kinds[s, K_QUAD] += 1
                nl = _log(log, nl, log_on, LOG_QUAD, s, t, 0, 0)
    meta[M_MULL] = mull
    stock_lo = ndealt
    n_stock = 112 - ndealt
    dead = prm[P_DEAD]
    turns = 0
    winner = -1
    wtake = -1
    wscore = 0
    wcard = -1
    nwin_w = 0
    # the dealer opens
    c, state = choose_discard(pol[0], hands[0], locked[0], state, trash_tab, score_tab)
    src = 0
    is_draw = False
    have = True  # an exposed card c from src waits for claims
    drawer = 0   # who draws next when nothing is exposed
    if c >= 0:
        hands[0, c] -= 1
        discards[c] += 1
        nl = _log(log, nl, log_on, LOG_DISCARD, 0, c, 0, 0)
    else:
        nl = _log(log, nl, log_on, LOG_NODISCARD, 0, 0, 0, 0)
        have = False
        drawer = 1 % P
    while True:
        if not have:
            if n_stock <= dead:
                nl = _log(log, nl, log_on, LOG_END, -1, n_stock, 0, 0)
                break
            state, r = randbelow(state, n_stock)
            pos = stock_lo + r
            c = np.int64(deck[pos])
            deck[pos] = deck[stock_lo + n_stock - 1]
            deck[stock_lo + n_stock - 1] = c
            n_stock -= 1
            turns += 1
            src = drawer
            is_draw = True
            have = True
            nl = _log(log, nl, log_on, LOG_DRAW, src, c, n_stock, 0)
        # ---- claims on the exposed card c (from src; drawn or discarded)
        code, who, how, ws, nwin, dt, state, nl = claim_step(
            c, src, is_draw, prm, pol, state, hands, table, discards, locked, exp_pts, exp_kinds,
            okind, opts, orev, seat, trash_tab, score_tab, win_tab, log, nl, log_on)
        turns += dt
        if code == CS_WIN:
            winner = who
            wtake = how
            wscore = ws + exp_pts[who]
            wcard = c
            nwin_w = nwin
            break
        if code == CS_REDISCARD:
            is_draw = False
            continue
        if code == CS_PASS:
            drawer = who
            have = False
            continue
        taker = who
        # the taker discards
        d, state = choose_discard(pol[taker], hands[taker], locked[taker], state, trash_tab, score_tab)
        if d < 0:
            nl = _log(log, nl, log_on, LOG_NODISCARD, taker, 0, 0, 0)
            drawer = (taker + 1) % P
            have = False
            continue
        hands[taker, d] -= 1
        discards[d] += 1
        nl = _log(log, nl, log_on, LOG_DISCARD, taker, d, 0, 0)
        c = d
        src = taker
        is_draw = False
        have = True
    meta[M_WINNER] = winner
    meta[M_TAKE] = wtake
    meta[M_TURNS] = turns
    meta[M_STOCK] = n_stock
    if winner >= 0:
        kinds = np.zeros(N_KINDS, np.int64)
        for k in range(N_KINDS):
            kinds[k] = exp_kinds[winner, k]
        hw = hands[winner]
        i = _win_breakdown(hw, locked[winner], wcard, wscore - exp_pts[winner], prm, okind, opts, orev,
                           trash_tab, score_tab, kind_tab, kinds)
        for k in range(N_KINDS):
            meta[M_KINDS + k] = kinds[k]
        meta[M_POINTS] = wscore
        meta[M_TIES] = nwin_w - 1
        nl = _log(log, nl, log_on, LOG_MELD, winner, wcard, okind[i], _rev_code(orev, i))
        nl = _log(log, nl, log_on, LOG_WIN, winner, wcard, wscore, wtake)
        for s in range(P):
            seat[S_POINTS, s] = wscore * (P - 1) if s == winner else -wscore
        # the winning card goes to the winner's table (card conservation)
        table[winner, wcard] += 1
    if log_on:
        for s in range(P):
            fin[s, :] = hands[s]
            fin[4 + s, :] = table[s]
        fin[8, :] = discards
        fin[9, :] = 0
        for j in range(stock_lo, stock_lo + n_stock):
            fin[9, deck[j]] += 1
    return nl


@njit(cache=True)
def _play_block(seed, start, count, prm, pol, g_sizes, g_products, trash_tab, score_tab, win_tab,
                kind_tab, meta, seat, log, nlog, fin, log_on):
    deck = BASE_DECK.copy()
    hands = np.zeros((4, N_TYPES), np.int8)
    table = np.zeros((4, N_TYPES), np.int8)
    discards = np.zeros(N_TYPES, np.int8)
    locked = np.zeros(4, np.int64)
    exp_pts = np.zeros(4, np.int64)
    exp_kinds = np.zeros((4, N_KINDS), np.int64)
    okind = np.zeros(MAX_OPTS, np.int64)
    opts = np.zeros(MAX_OPTS, np.int64)
    orev = np.zeros((MAX_OPTS, 3), np.int64)
    for j in range(count):
        li = j if log_on else 0
        nl = _play_game(seed, start + j, prm, pol, g_sizes, g_products, trash_tab, score_tab, win_tab,
                        kind_tab, deck, hands, table, discards, locked, exp_pts, exp_kinds, okind, opts,
                        orev, meta[j], seat[j], log[li], log_on, fin[li])
        if log_on:
            nlog[j] = nl


@njit(cache=True, parallel=True)
def _play_chunk_kernel(seed, start, count, prm, pol, g_sizes, g_products, trash_tab, score_tab, win_tab,
                       kind_tab, n_blocks, meta, seat):
    log = np.zeros((1, 1, LOG_W), np.int64)
    nlog = np.zeros(1, np.int64)
    fin = np.zeros((1, FIN_ROWS, N_TYPES), np.int8)
    for b in prange(n_blocks):
        g0 = (count * b) // n_blocks
        g1 = (count * (b + 1)) // n_blocks
        if g1 > g0:
            _play_block(seed, start + g0, g1 - g0, prm, pol, g_sizes, g_products, trash_tab, score_tab,
                        win_tab, kind_tab, meta[g0:g1], seat[g0:g1], log, nlog, fin, False)


# ----------------------------------------------------------------------------------
# Python API
# ----------------------------------------------------------------------------------

def kernel_params(rules: TuSacRules) -> np.ndarray:
    """Rules as the kernel's int64 parameter vector."""
    prm = np.zeros(N_PARAMS, np.int64)
    prm[P_PLAYERS] = rules.players
    prm[P_DEAD] = rules.dead_wall
    prm[P_MULL] = int(bool(rules.mulligan))
    prm[P_LOCK] = int(bool(rules.trio_lock))
    prm[P_STEALS] = ("on", "off", "win_only").index(rules.steals)
    prm[P_GSTEALS] = ("quad_only", "never").index(rules.general_steals)
    prm[P_PRIO] = ("default", "taiwanese").index(rules.priority)
    prm[P_SEATS] = rules.steal_seat_mask()
    prm[P_THR] = rules.win_threshold
    prm[P_CMD] = rules.command_points
    prm[P_FIELD] = rules.field_points
    prm[P_S3] = rules.three_colour_soldier_points
    prm[P_S4] = rules.full_colour_soldier_points
    prm[P_SPAIRS] = int(bool(rules.soldier_pairs))
    return prm


def policy_codes(policies, players: int) -> np.ndarray:
    """Policies as int64 codes per seat (see :func:`simcore.tasks.policy_codes`)."""
    return _policy_codes(policies, players, POLICIES)


def tables(rules: TuSacRules):
    """``(trash, score, win, kinds)`` meld tables of the rules' point configuration."""
    t = meld_tables(rules.points())
    return t.trash, t.score, t.win, kind_tables(rules.points())


def _columns(start, count, players, meta, seat) -> dict[str, np.ndarray]:
    out = {"game": np.arange(start, start + count, dtype=np.int64)}
    for f, (name, dt) in enumerate(zip(META_NAMES, META_DTYPES)):
        out[name] = meta[:, f].astype(dt)
    for f, (name, dt) in enumerate(zip(SEAT_NAMES, SEAT_DTYPES)):
        for s in range(players):
            out[f"{name}_{s}"] = seat[:, f, s].astype(dt)
    return out


def play_chunk(seed: int, start: int, count: int, rules: TuSacRules, policies,
               n_blocks: int | None = None) -> dict[str, np.ndarray]:
    """Play games ``start .. start+count-1`` of run ``seed``; one row per game.

    ``policies``: a policy name/code for every seat or one per seat (``random``,
    ``heuristic``). Games run in parallel (numba prange over ``n_blocks`` blocks);
    results do not depend on the blocks or threads. Columns: see the module docstring.
    """
    prm = kernel_params(rules)
    pol = policy_codes(policies, rules.players)
    _, g, p = deal_plan(rules.players)
    tt, st, wt, kt = tables(rules)
    if n_blocks is None:
        n_blocks = min(max(count, 1), 1024)
    n_blocks = max(1, min(int(n_blocks), max(count, 1)))
    meta = np.zeros((count, N_META), np.int16)
    seat = np.zeros((count, N_SEAT, rules.players), np.int16)
    if count:
        _play_chunk_kernel(np.uint64(seed), np.int64(start), np.int64(count), prm, pol, g, p, tt, st, wt, kt,
                           np.int64(n_blocks), meta, seat)
    return _columns(start, count, rules.players, meta, seat)


def play_logged(seed: int, start: int, count: int, rules: TuSacRules, policies):
    """Like :func:`play_chunk` (serial) plus the kernel's move log and final card state of
    every game: ``(columns, log int64[count, LOG_CAP, 5], nlog int64[count],
    fin int8[count, 10, 28])``; ``fin`` rows: hidden hands of seats 0..3, table cards of
    seats 0..3 (the winning card included), discards, stock."""
    prm = kernel_params(rules)
    pol = policy_codes(policies, rules.players)
    _, g, p = deal_plan(rules.players)
    tt, st, wt, kt = tables(rules)
    meta = np.zeros((count, N_META), np.int16)
    seat = np.zeros((count, N_SEAT, rules.players), np.int16)
    log = np.zeros((count, LOG_CAP, LOG_W), np.int64)
    nlog = np.zeros(count, np.int64)
    fin = np.zeros((count, FIN_ROWS, N_TYPES), np.int8)
    _play_block(np.uint64(seed), np.int64(start), np.int64(count), prm, pol, g, p, tt, st, wt, kt,
                meta, seat, log, nlog, fin, True)
    return _columns(start, count, rules.players, meta, seat), log, nlog, fin


def _unpack(lo, hi):
    return [(int(lo) >> (3 * t)) & 7 for t in range(14)] + [(int(hi) >> (3 * t)) & 7 for t in range(14)]


def _rev_types(code):
    return [((int(code) >> (5 * j)) & 31) - 1 for j in range(3) if ((int(code) >> (5 * j)) & 31)]


_CLAIM_REASONS = {1: "win", 2: "quadruple", 3: "triple"}


def format_log(log: np.ndarray, n: int, row: dict, players: int) -> list[str]:
    """Human-readable lines of one game's move log and result row."""
    lines = []
    for kind, seat, a, b, c in log[:n]:
        kind, seat, a, b, c = int(kind), int(seat), int(a), int(b), int(c)
        if kind == LOG_MULLIGAN:
            weak = [s for s in range(players) if a >> s & 1]
            lines.append(f"mulligan: weak hand(s) at seat(s) {', '.join(map(str, weak))}; redeal")
        elif kind == LOG_DEAL:
            lock = f"  (locked: {' '.join(type_name(t) for t in range(N_TYPES) if c >> t & 1)})" if c else ""
            lines.append(f"deal seat {seat}: {hand_str(_unpack(a, b))}{lock}")
        elif kind == LOG_QUAD:
            lines.append(f"seat {seat} reveals a dealt quadruple {type_name(a)} (8)")
        elif kind == LOG_DRAW:
            lines.append(f"seat {seat} draws {type_name(a)} ({b} left in the stock)")
        elif kind == LOG_CLAIM:
            extra = f", {c} seat(s) could win, first in turn order takes it" if b == 1 and c > 1 else ""
            lines.append(f"  claim: seat {seat} claims {type_name(a)} for a {_CLAIM_REASONS[b]}{extra}")
        elif kind == LOG_TAKE:
            how = TAKE_NAMES[b]
            lines.append(f"  seat {seat} takes {type_name(a)} ({how}"
                         + (f" from seat {c})" if b != TAKE_DRAW else ")"))
        elif kind == LOG_MELD:
            cards = " ".join(type_name(t) for t in [a] + _rev_types(c))
            lines.append(f"  seat {seat} melds {MELD_NAMES[b]}: {cards}")
        elif kind == LOG_PASS:
            lines.append(f"  seat {seat} does not take {type_name(a)}")
        elif kind == LOG_DISCARD:
            lines.append(f"  seat {seat} discards {type_name(a)}" + (" (as drawn)" if b else ""))
        elif kind == LOG_NODISCARD:
            lines.append(f"  seat {seat} has no legal discard")
        elif kind == LOG_WIN:
            lines.append(f"seat {seat} wins on {type_name(a)} ({TAKE_NAMES[c]}) with {b} points")
        elif kind == LOG_END:
            lines.append(f"stock exhausted ({a} left): draw")
    pts = ", ".join(f"seat {s}: {row[f'points_{s}']}" for s in range(players))
    lines.append(f"turns {row['turns']}, stock left {row['stock_left']}, mulligans {row['mulligans']}")
    if row["winner"] >= 0:
        kinds = ", ".join(f"{k[4:]} {row[k]}" for k in KIND_COLS if row[k])
        lines.append(f"winner seat {row['winner']}: {row['winner_points']} points ({kinds})")
    else:
        lines.append("no winner")
    lines.append(f"points: {pts}")
    return lines


def replay_game(seed: int, index: int, rules: TuSacRules, policies) -> list[str]:
    """The text of game ``index`` exactly as :func:`play_chunk` plays it: redeals, the
    deal, every draw, claim, take, meld and discard, the win and the points."""
    cols, log, nlog, fin = play_logged(seed, index, 1, rules, policies)
    row = {k: v[0].item() for k, v in cols.items()}
    head = [f"game {index}, seed {seed}, policies {', '.join(POLICIES[c] for c in policy_codes(policies, rules.players))}"]
    return head + format_log(log[0], int(nlog[0]), row, rules.players)


@njit(cache=True)
def _claim_case_kernel(c, src, is_draw, prm, pol, state, hands, locked, exp_pts, trash_tab, score_tab,
                       win_tab, log):
    P = prm[P_PLAYERS]
    table = np.zeros((4, N_TYPES), np.int8)
    discards = np.zeros(N_TYPES, np.int8)
    if not is_draw:
        discards[c] = 1
    exp_kinds = np.zeros((4, N_KINDS), np.int64)
    okind = np.zeros(MAX_OPTS, np.int64)
    opts = np.zeros(MAX_OPTS, np.int64)
    orev = np.zeros((MAX_OPTS, 3), np.int64)
    seat = np.zeros((N_SEAT, P), np.int16)
    code, who, how, ws, nwin, dt, state, nl = claim_step(
        c, src, is_draw, prm, pol, state, hands, table, discards, locked, exp_pts, exp_kinds,
        okind, opts, orev, seat, trash_tab, score_tab, win_tab, log, 0, True)
    return code, who, how, ws, nwin, nl


CLAIM_CODES = ("win", "taken", "rediscard", "pass")


def claim_case(hands, card, src: int, is_draw: bool, rules: TuSacRules, policies="heuristic",
               locked=None, exposed_points=None, state: int = 0) -> dict:
    """Run the kernel's claim step on a hand-built situation (for tests and what-ifs).

    ``hands``: one hand per seat (card text like ``"RG 2YS"`` or 28 counts); ``card``: the
    exposed card (``"RG"`` or a type id), drawn by or discarded by ``src``. Returns
    ``{"result": "win" | "taken" | "rediscard" | "pass", "seat", "how" ("draw" / "eat" /
    "steal" / None), "meld" (kind laid, or None), "win_score" (hidden part), "n_winners",
    "hands" (after), "lines" (the kernel's log as text)}``.
    """
    from cardsim.simcore.tusac.cards import parse_hand, parse_type

    P = rules.players
    hs = np.zeros((4, N_TYPES), np.int8)
    for s, h in enumerate(hands):
        hs[s] = parse_hand(h) if isinstance(h, str) else np.asarray(h, np.int8)
    c = parse_type(card) if isinstance(card, str) else int(card)
    lk = np.zeros(4, np.int64)
    if locked is not None:
        lk[:P] = locked
    ex = np.zeros(4, np.int64)
    if exposed_points is not None:
        ex[:P] = exposed_points
    tt, st, wt, kt = tables(rules)
    log = np.zeros((64, LOG_W), np.int64)
    code, who, how, ws, nwin, nl = _claim_case_kernel(
        np.int64(c), np.int64(src), bool(is_draw), kernel_params(rules), policy_codes(policies, P),
        np.uint64(state), hs, lk, ex, tt, st, wt, log)
    meld = None
    for row in log[:nl]:
        if row[0] == LOG_MELD:
            meld = MELD_NAMES[int(row[3])]
    row = {f"points_{s}": 0 for s in range(P)}
    row.update(turns=0, stock_left=0, mulligans=0, winner=-1)
    return {"result": CLAIM_CODES[code], "seat": int(who), "how": TAKE_NAMES[how] if how >= 0 else None,
            "meld": meld, "win_score": int(ws), "n_winners": int(nwin), "hands": hs[:P].copy(),
            "lines": format_log(log, int(nl), row, P)[:-3]}
