"""Tiến Lên full games and matches in numba: the ``play`` kernel.

Game ``i`` of a run is a pure function of ``(seed, i)`` and of the previous games of
its match (the previous winner leads): the deal comes from :func:`deal_into` and the
random policy keeps drawing from the same stream, so any chunking, thread count or
:func:`replay_game` reproduces it. Games ``i`` with the same ``i // games_per_match``
form a match; chunks must start on a match boundary.

Game flow (spec ``shared/rules/tienlen.md``; legal moves in :mod:`.moves`)
------------------------------------------------------------------------
* First game of a match: the holder of the lowest dealt card (3♠ when dealt) leads and
  the lead must contain that card (be that card alone with ``three_spades_alone``).
  Later games: the previous game's winner (1st place, instant winners included) leads
  anything.
* Instant wins (enabled kinds) are checked right after the deal with
  :func:`resolve_instant_win` (leader = the seat that would lead): the instant winner
  is 1st, the others are ranked by cards left, ties by play order after the winner.
* A pass is final for the trick unless ``pass_resets``. A player who passed and may not
  play again is skipped without a decision; under ``bombs_after_pass`` a passed player
  who holds an allowed bomb that beats the table gets a decision (bomb or pass again).
* When the turn comes back to the last player to play, the trick is cleared and that
  player leads; if they have gone out, the next seat in play order still holding cards
  leads. The game ends when one player holds cards; finishing order gives places.

Scoring (``points_s``, per game; sums over a match are left to the analysis)
---------------------------------------------------------------------------
* ``3-2-1-0`` / ``4-3-2-1``: place ``p`` gets the ``p``-th value of the ladder; with
  fewer players the top of the ladder is used (2 players: 3-2 or 4-3; 3 players:
  3-2-1 or 4-3-2).
* ``per_card``: each player not 1st pays one point per card left plus one more per 2
  left (a 2 counts double); 1st receives the total. Points sum to zero.

Policies (per seat: 0 random, 1 greedy, 2 heuristic)
----------------------------------------------------
* random: uniform over all legal plays plus the pass when passing is allowed (leaders
  cannot pass). A forced choice (one option) draws nothing.
* greedy: on a lead, its lowest card as a single (the required card in a match's first
  lead, which is the lowest card); following, the lowest play (lowest top card, then
  lowest cards) of the table's class, else the lowest allowed bomb; it never passes
  when it can play.
* heuristic: scores a few candidate plays (the lowest-suit play of each class and top
  rank) by how they change a hand-structure value: the number of "units" left (each
  non-2 rank is one unit; runs of >= 3 ranks count as one sequence plus the ranks
  holding >= 2 cards, when that is fewer), 2s, fours and aces held; it prefers low
  and long plays, keeps pairs/sequences intact, holds 2s and bombs (their value is
  lost when played) unless they win the control needed to go out, chops 2s, and stops
  passing when an opponent is close to going out (1, 2 or <= 4 cards). Passing is
  valued ``HEUR_PASS`` (``HEUR_PASS_HEADS_UP`` with one opponent left, where a pass
  hands over the lead). Deterministic: it draws no random numbers.

Entry points: :func:`play_chunk` (bulk, parallel), :func:`replay_game` (text of one
game), :func:`play_logged` (rows plus the kernel's move log, serial; for checks) and
:func:`play_hands` (a game from given hands, for hand-built cases).

Output columns of :func:`play_chunk` (one row per game)
-------------------------------------------------------
``game`` int64, ``match`` int64, ``leader`` int8 (seat that led the first trick; for
an instant win the seat that would have led), ``three_spades_seat`` int8 (-1 if the 3♠
was not dealt), ``instant_kind`` int8 (index into ``INSTANT_WIN_KINDS``, -1 none),
``instant_winner`` int8 (-1 none), ``tricks`` int16 (tricks led), ``plays`` int16
(total plays, passes excluded), and for each seat ``s < players``:
``place_s`` int8 (1 = first out), ``points_s`` int16, ``cards_left_s`` int8 (at the
end), ``twos_dealt_s`` int8, ``bombs_dealt_s`` int8 (ranks dealt as four of a kind plus
maximal runs of >= 3 consecutive ranks 3..A with >= 2 cards each, i.e. places a
double-sequence bomb can be cut from), ``plays_s`` int16, ``passes_s`` int16 (pass
decisions; skipped turns of a passed player are not counted), ``bombs_played_s``
int16 (plays of a four of a kind or a double sequence of any length, leads included),
``chops_s`` int16 (plays by ``s`` that beat the table across classes through a bomb
rule: on 2s, or a bomb on another bomb class under ``southern``), ``twos_chopped_s``
int16 (number of ``s``'s own 2s that were chopped: the 2s of a play of ``s`` on which
another player chopped directly).
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from cardsim.simcore.tasks import policy_codes as _policy_codes
from cardsim.simcore.bits import highest_bit, lowest_bit, popcount
from cardsim.simcore.rng import randbelow as randbelow_
from cardsim.simcore.tienlen.cards import hand_str
from cardsim.simcore.tienlen.deal import (deal_into, deal_plan, first_leader, hand_flags, hand_flags_colour, rank_planes,
                                  resolve_instant_win)
from cardsim.simcore.tienlen.moves import (CLS_DSEQ3, CLS_SEQ3, CLS_SINGLE, N_CLASSES, _choices, _pick, _windows,
                                   allowed_classes, class_k, class_len, class_name,
                                   count_moves, is_bomb_class, unrank_class, unrank_move)
from cardsim.simcore.tienlen.rules import INSTANT_WIN_KINDS, TienLenRules

POLICIES = ("random", "greedy", "heuristic")
POL_RANDOM, POL_GREEDY, POL_HEURISTIC = 0, 1, 2

# kernel parameters (int64 array)
P_PLAYERS, P_CARDS, P_INSTANT, P_CHOP, P_BAP, P_RESETS, P_ALONE, P_SCORING, P_K, P_BLACK = range(10)
N_PARAMS = 10
# per-game columns (int16 matrix meta[count, N_META])
M_LEADER, M_THREE, M_KIND, M_WINNER, M_TRICKS, M_PLAYS = range(6)
N_META = 6
META_NAMES = ("leader", "three_spades_seat", "instant_kind", "instant_winner", "tricks", "plays")
META_DTYPES = (np.int8, np.int8, np.int8, np.int8, np.int16, np.int16)
# per-seat columns (int16 tensor seat[count, N_SEAT, players])
(S_PLACE, S_POINTS, S_LEFT, S_TWOS, S_BOMBS_DEALT, S_PLAYS, S_PASSES, S_BOMBS_PLAYED,
 S_CHOPS, S_TWOS_CHOPPED) = range(10)
N_SEAT = 10
SEAT_NAMES = ("place", "points", "cards_left", "twos_dealt", "bombs_dealt", "plays", "passes",
              "bombs_played", "chops", "twos_chopped")
SEAT_DTYPES = (np.int8, np.int16, np.int8, np.int8, np.int8, np.int16, np.int16, np.int16,
               np.int16, np.int16)
# move log rows (seat, mask, code); code = kind | (class + 1) << 4 | chop << 12
LOG_DEAL, LOG_PLAY, LOG_PASS, LOG_LEAD, LOG_OUT, LOG_INSTANT = range(6)
LOG_CAP = 1024

_R3A = np.uint64(0x111111111111)
_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U4 = np.uint64(4)
_U8 = np.uint64(8)
_U15 = np.uint64(15)
_U44 = np.uint64(44)
_U48 = np.uint64(48)
HEUR_PASS = -3.0  # value of passing (relative to the hand's value)
HEUR_PASS_HEADS_UP = -6.0  # ... when one opponent is left: a pass hands them the lead
_SCORING_CODES = {"3-2-1-0": 0, "4-3-2-1": 1, "per_card": 2}
_LADDERS = np.array([[3, 2, 1, 0], [4, 3, 2, 1]], np.int64)


# ----------------------------------------------------------------------------------
# heuristic policy
# ----------------------------------------------------------------------------------

@njit(cache=True)
def _units(h):
    """Approximate number of plays needed for the non-2 cards of ``h``."""
    ge1, ge2, ge3, eq4 = rank_planes(h)
    p = ge1 & _R3A
    multi = ge2 & _R3A
    units = 0
    while p != _U0:
        s = lowest_bit(p)
        run = _U0
        length = 0
        b = np.uint64(s)
        while (p >> b) & _U1:
            run |= _U1 << b
            length += 1
            b += _U4
        p &= ~run
        if length >= 3:
            alt = 1 + popcount(multi & run)
            units += alt if alt < length else length
        else:
            units += length
    return units


@njit(cache=True)
def _eval(h):
    ge1, ge2, ge3, eq4 = rank_planes(h)
    return (-10.0 * _units(h) + 3.0 * popcount(h >> _U48) + 6.0 * popcount(eq4 & _R3A)
            + 1.0 * popcount((h >> _U44) & _U15))


@njit(cache=True)
def _canon(h, cls, min_top, req, cand, ccls, nc):
    """Append the lowest-suit play of each top rank of class ``cls`` (top >= min_top)."""
    if min_top >= 52:
        return nc
    rt = min_top >> 2
    ms = min_top & 3
    k = class_k(cls)
    if cls < 4:
        for r in range(rt, 13):
            if req >= 0 and r != (req >> 2):
                continue
            mr = ms if r == rt else 0
            if _choices(h, r, k, mr, req) > 0:
                cand[nc] = _pick(h, r, k, mr, req, 0)
                ccls[nc] = cls
                nc += 1
        return nc
    L = class_len(cls)
    run = _windows(h, k, L, rt, req)
    while run != _U0:
        s = lowest_bit(run) >> 2
        run &= run - _U1
        top = s + L - 1
        mt = ms if top == rt else 0
        if _choices(h, top, k, mt, req) == 0:
            continue
        m = _U0
        for r in range(s, top + 1):
            m |= _pick(h, r, k, mt if r == top else 0, req, 0)
        cand[nc] = m
        ccls[nc] = cls
        nc += 1
    return nc


@njit(cache=True)
def _heuristic(h, n_acl, acls, amin, req, can_pass, table_cls, opp_min, heads_up, cand, ccls):
    nc = 0
    no_seq = False  # no sequence of some length: none longer either (same for pairs)
    no_dseq = False
    for a in range(n_acl):
        cls = acls[a]
        if (no_seq and CLS_SEQ3 <= cls < CLS_DSEQ3) or (no_dseq and cls >= CLS_DSEQ3):
            continue
        before = nc
        nc = _canon(h, cls, amin[a], req, cand, ccls, nc)
        if nc == before and amin[a] == 0:
            if CLS_SEQ3 <= cls < CLS_DSEQ3:
                no_seq = True
            elif cls >= CLS_DSEQ3:
                no_dseq = True
    best_m = _U0
    best_c = -1
    if nc == 0:
        return best_m, best_c
    base = _eval(h)
    best_v = -1e18
    if can_pass:
        best_v = HEUR_PASS_HEADS_UP if heads_up else HEUR_PASS
        if opp_min <= 1:
            best_v = -40.0
        elif opp_min <= 2:
            best_v = -20.0
        elif opp_min <= 4:
            best_v = -6.0
    for i in range(nc):
        m = cand[i]
        c = ccls[i]
        after = h & ~m
        if after == _U0:
            return m, c
        top = highest_bit(m) >> 2
        v = _eval(after) - base - 0.4 * top + 0.3 * popcount(m)
        if table_cls >= 0 and c != table_cls:
            v += 6.0  # a chop wins the control and costs the victim a 2
        if (top == 12 or is_bomb_class(c)) and _units(after) <= 1:
            v += 15.0  # control needed to go out
        if table_cls < 0 and opp_min <= 1 and c == CLS_SINGLE:
            v -= 2.0 * (12 - top)  # do not feed a player on one card
        if v > best_v:
            best_v = v
            best_m = m
            best_c = c
    return best_m, best_c


# ----------------------------------------------------------------------------------
# one game
# ----------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _log(log, n, on, seat, mask, code):
    if on and n < log.shape[0]:
        log[n, 0] = seat
        log[n, 1] = np.int64(mask)
        log[n, 2] = code
        return n + 1
    return n


@njit(cache=True)
def _play_game(seed, index, first, prev_winner, prm, pol, plan, leaf, slots, groups, flags,
               ncards, acls, amin, counts, cand, ccls, meta, seat, log, log_on):
    """Play game ``index``; fill ``meta[N_META]``, ``seat[N_SEAT, players]``; returns
    ``(winner, log rows used)``."""
    state = deal_into(seed, index, plan, leaf, slots, groups)
    return _play_dealt(state, first, prev_winner, prm, pol, groups, flags, ncards, acls, amin,
                       counts, cand, ccls, meta, seat, log, log_on)


@njit(cache=True)
def _play_dealt(state, first, prev_winner, prm, pol, groups, flags, ncards, acls, amin, counts,
                cand, ccls, meta, seat, log, log_on):
    """Play a game from the hands ``groups[:players]`` and RNG ``state`` (consumed)."""
    P = prm[P_PLAYERS]
    chop = prm[P_CHOP]
    bap = prm[P_BAP]
    resets = prm[P_RESETS] != 0
    nl = 0
    three = -1
    for s in range(P):
        h = groups[s]
        ge1, ge2, ge3, eq4 = rank_planes(h)
        pr = ge2 & _R3A
        run3 = pr & (pr >> _U4) & (pr >> _U8)
        ncards[s] = popcount(h)
        flags[s] = hand_flags_colour(h, np.uint64(prm[P_BLACK]))
        for f in range(N_SEAT):
            seat[f, s] = 0
        seat[S_TWOS, s] = popcount(h >> _U48)
        seat[S_BOMBS_DEALT, s] = popcount(eq4) + popcount(run3 & ~(pr << _U4))
        if h & _U1:
            three = s
        nl = _log(log, nl, log_on, s, h, LOG_DEAL)
    if first:
        leader = first_leader(groups, P)
        req = lowest_bit(groups[leader])
    else:
        leader = prev_winner
        req = -1
    alone = prm[P_ALONE] != 0
    meta[M_LEADER] = leader
    meta[M_THREE] = three
    meta[M_KIND] = -1
    meta[M_WINNER] = -1
    meta[M_TRICKS] = 0
    meta[M_PLAYS] = 0
    winner = -1
    if prm[P_INSTANT] != 0:
        w, kind = resolve_instant_win(flags, P, leader, prm[P_INSTANT])
        if w >= 0:
            winner = w
            meta[M_KIND] = kind
            meta[M_WINNER] = w
            nl = _log(log, nl, log_on, w, 0, LOG_INSTANT | (kind << 4))
            seat[S_PLACE, w] = 1
            for s in range(P):
                if s != w:
                    place = 2
                    ds = (s - w + P) % P
                    for o in range(P):
                        if o != w and o != s:
                            do = (o - w + P) % P
                            if ncards[o] < ncards[s] or (ncards[o] == ncards[s] and do < ds):
                                place += 1
                    seat[S_PLACE, s] = place
    if winner < 0:
        active = P
        next_place = 1
        turn = leader
        last = leader
        table_cls = -1
        table_top = -1
        table_mask = _U0
        passed = 0
        tricks = 1
        plays = 0
        nl = _log(log, nl, log_on, leader, 0, LOG_LEAD)
        while True:
            h = groups[turn]
            move = _U0
            mcls = -1
            decided = True
            if table_cls < 0:
                can_pass = False
                n_acl = allowed_classes(-1, -1, chop, False, bap, acls, amin)
                if req >= 0 and alone:
                    n_acl = 1
            else:
                can_pass = True
                is_passed = (not resets) and ((passed >> turn) & 1) != 0
                if is_passed and bap == 0:
                    n_acl = 0
                    decided = False
                else:
                    n_acl = allowed_classes(table_cls, table_top, chop, is_passed, bap, acls, amin)
            if decided:
                p = pol[turn]
                if p == POL_RANDOM:
                    n_play = count_moves(h, n_acl, acls, amin, req, counts)
                    n_opt = n_play + (1 if can_pass else 0)
                    if n_play == 0 and table_cls >= 0 and ((passed >> turn) & 1) != 0 and not resets:
                        decided = False  # passed player without an allowed bomb: skipped
                    else:
                        idx = 0
                        if n_opt > 1:
                            state, idx = randbelow_(state, n_opt)
                        if idx < n_play:
                            move, mcls = unrank_move(h, n_acl, acls, amin, req, counts, idx)
                elif p == POL_GREEDY:
                    if table_cls < 0:
                        move = (_U1 << np.uint64(req)) if req >= 0 else (h & (~h + _U1))
                        mcls = CLS_SINGLE
                    else:
                        n_play = count_moves(h, n_acl, acls, amin, req, counts)
                        if n_play == 0 and ((passed >> turn) & 1) != 0 and not resets:
                            decided = False
                        else:
                            for a in range(n_acl):  # the table's class first
                                if acls[a] == table_cls and counts[a] > 0:
                                    move = unrank_class(h, acls[a], amin[a], req, 0)
                                    mcls = acls[a]
                            if mcls < 0:
                                for a in range(n_acl):
                                    if counts[a] > 0:
                                        move = unrank_class(h, acls[a], amin[a], req, 0)
                                        mcls = acls[a]
                                        break
                else:
                    opp_min = 99
                    for o in range(P):
                        if o != turn and ncards[o] > 0 and ncards[o] < opp_min:
                            opp_min = ncards[o]
                    move, mcls = _heuristic(h, n_acl, acls, amin, req, can_pass, table_cls,
                                            opp_min, active == 2, cand, ccls)
                    if mcls < 0 and table_cls >= 0 and ((passed >> turn) & 1) != 0 and not resets:
                        decided = False
            if decided:
                if mcls < 0:
                    seat[S_PASSES, turn] += 1
                    passed |= 1 << turn
                    nl = _log(log, nl, log_on, turn, 0, LOG_PASS)
                else:
                    chopped = table_cls >= 0 and mcls != table_cls
                    nl = _log(log, nl, log_on, turn, move,
                              LOG_PLAY | ((mcls + 1) << 4) | ((1 if chopped else 0) << 12))
                    if chopped:
                        seat[S_CHOPS, turn] += 1
                        if (table_top >> 2) == 12 and table_cls < 4:
                            seat[S_TWOS_CHOPPED, last] += popcount(table_mask)
                    req = -1
                    groups[turn] = h & ~move
                    ncards[turn] -= popcount(move)
                    seat[S_PLAYS, turn] += 1
                    if is_bomb_class(mcls):
                        seat[S_BOMBS_PLAYED, turn] += 1
                    plays += 1
                    table_cls = mcls
                    table_top = highest_bit(move)
                    table_mask = move
                    last = turn
                    if ncards[turn] == 0:
                        seat[S_PLACE, turn] = next_place
                        nl = _log(log, nl, log_on, turn, next_place, LOG_OUT)
                        if next_place == 1:
                            winner = turn
                        next_place += 1
                        active -= 1
                        if active == 1:
                            for s in range(P):
                                if ncards[s] > 0:
                                    seat[S_PLACE, s] = next_place
                            break
            # advance; coming back to the last player to play ends the trick
            t = turn
            while True:
                t += 1
                if t == P:
                    t = 0
                if t == last:
                    table_cls = -1
                    table_top = -1
                    table_mask = _U0
                    passed = 0
                    tricks += 1
                    while ncards[t] == 0:
                        t += 1
                        if t == P:
                            t = 0
                    turn = t
                    nl = _log(log, nl, log_on, t, 0, LOG_LEAD)
                    break
                if ncards[t] > 0:
                    turn = t
                    break
        meta[M_TRICKS] = tricks
        meta[M_PLAYS] = plays
    # scoring
    sc = prm[P_SCORING]
    total = 0
    for s in range(P):
        seat[S_LEFT, s] = ncards[s]
        if sc == 2:
            pay = 0
            if seat[S_PLACE, s] != 1:
                pay = ncards[s] + popcount(groups[s] >> _U48)
            seat[S_POINTS, s] = -pay
            total += pay
        else:
            seat[S_POINTS, s] = _LADDERS[sc, seat[S_PLACE, s] - 1]
    if sc == 2:
        seat[S_POINTS, winner] = total
    return winner, nl



@njit(cache=True)
def _play_block(seed, start, count, prm, pol, plan, leaf, meta, seat, log, nlog, log_on):
    """Games ``start..start+count-1`` (``start`` on a match boundary), serially."""
    P = prm[P_PLAYERS]
    K = prm[P_K]
    slots = np.zeros(16, np.uint64)
    groups = np.zeros(8, np.uint64)
    flags = np.zeros(8, np.int64)
    ncards = np.zeros(8, np.int64)
    acls = np.zeros(N_CLASSES, np.int64)
    amin = np.zeros(N_CLASSES, np.int64)
    counts = np.zeros(N_CLASSES, np.int64)
    cand = np.zeros(512, np.uint64)
    ccls = np.zeros(512, np.int64)
    winner = -1
    for j in range(count):
        i = start + j
        first = (i % K) == 0
        li = j if log_on else 0
        winner, nl = _play_game(seed, i, first, winner, prm, pol, plan, leaf, slots, groups, flags,
                                ncards, acls, amin, counts, cand, ccls, meta[j], seat[j], log[li],
                                log_on)
        if log_on:
            nlog[j] = nl
    return P


@njit(cache=True, parallel=True)
def _play_chunk_kernel(seed, start, count, prm, pol, plan, leaf, n_blocks, meta, seat):
    K = prm[P_K]
    n_matches = (count + K - 1) // K
    log = np.zeros((1, 1, 3), np.int64)
    nlog = np.zeros(1, np.int64)
    for b in prange(n_blocks):
        m0 = (n_matches * b) // n_blocks
        m1 = (n_matches * (b + 1)) // n_blocks
        g0 = m0 * K
        g1 = min(m1 * K, count)
        if g1 > g0:
            _play_block(seed, start + g0, g1 - g0, prm, pol, plan, leaf, meta[g0:g1],
                        seat[g0:g1], log, nlog, False)


@njit(cache=True)
def _deal_state(seed, index, players, plan, leaf):
    slots = np.zeros(16, np.uint64)
    groups = np.zeros(8, np.uint64)
    state = deal_into(seed, index, plan, leaf, slots, groups)
    return groups[:players].copy(), state


# ----------------------------------------------------------------------------------
# Python API
# ----------------------------------------------------------------------------------

def kernel_params(rules: TienLenRules, games_per_match: int = 1) -> np.ndarray:
    """Rules as the kernel's int64 parameter vector."""
    if games_per_match < 1:
        raise ValueError("games_per_match must be >= 1")
    prm = np.zeros(N_PARAMS, np.int64)
    prm[P_PLAYERS] = rules.players
    prm[P_CARDS] = rules.cards_per_player
    prm[P_INSTANT] = rules.instant_win_mask()
    prm[P_CHOP] = ("seed", "southern").index(rules.chop_rules)
    prm[P_BAP] = ("none", "all", "four_pairs").index(rules.bombs_after_pass)
    prm[P_RESETS] = int(bool(rules.pass_resets))
    prm[P_ALONE] = int(bool(rules.three_spades_alone))
    prm[P_SCORING] = _SCORING_CODES[rules.scoring]
    prm[P_K] = games_per_match
    prm[P_BLACK] = rules.black_mask()
    return prm


def policy_codes(policies, players: int) -> np.ndarray:
    """Policies as int64 codes per seat (see :func:`simcore.tasks.policy_codes`)."""
    return _policy_codes(policies, players, POLICIES)


def _columns(start, count, K, players, meta, seat) -> dict[str, np.ndarray]:
    games = np.arange(start, start + count, dtype=np.int64)
    out = {"game": games, "match": games // K}
    for f, (name, dt) in enumerate(zip(META_NAMES, META_DTYPES)):
        out[name] = meta[:, f].astype(dt)
    for f, (name, dt) in enumerate(zip(SEAT_NAMES, SEAT_DTYPES)):
        for s in range(players):
            out[f"{name}_{s}"] = seat[:, f, s].astype(dt)
    return out


def play_chunk(seed: int, start: int, count: int, rules: TienLenRules, policies,
               games_per_match: int = 1, n_blocks: int | None = None) -> dict[str, np.ndarray]:
    """Play games ``start .. start+count-1`` of run ``seed``; one row per game.

    ``start`` must be a multiple of ``games_per_match`` (a match boundary); the last match
    may be cut by ``count``. ``policies``: a policy name/code for every seat or one per
    seat (``random``, ``greedy``, ``heuristic``). Matches run in parallel (numba prange
    over ``n_blocks`` blocks of whole matches); results do not depend on the blocks or
    threads. Columns and dtypes: see the module docstring.
    """
    K = int(games_per_match)
    if start % K:
        raise ValueError(f"chunk start {start} is not a match boundary (games_per_match={K})")
    prm = kernel_params(rules, K)
    pol = policy_codes(policies, rules.players)
    plan, leaf = deal_plan(rules.players, rules.cards_per_player)
    n_matches = -(-count // K)
    if n_blocks is None:
        n_blocks = min(n_matches, 1024)
    n_blocks = max(1, min(int(n_blocks), max(n_matches, 1)))
    meta = np.zeros((count, N_META), np.int16)
    seat = np.zeros((count, N_SEAT, rules.players), np.int16)
    if count:
        _play_chunk_kernel(np.uint64(seed), np.int64(start), np.int64(count), prm, pol, plan, leaf,
                           np.int64(n_blocks), meta, seat)
    return _columns(start, count, K, rules.players, meta, seat)


def play_logged(seed: int, start: int, count: int, rules: TienLenRules, policies,
                games_per_match: int = 1):
    """Like :func:`play_chunk` (serial) plus the kernel's move log of every game:
    ``(columns, log int64[count, LOG_CAP, 3], nlog int64[count])``."""
    K = int(games_per_match)
    if start % K:
        raise ValueError("start must be a match boundary")
    prm = kernel_params(rules, K)
    pol = policy_codes(policies, rules.players)
    plan, leaf = deal_plan(rules.players, rules.cards_per_player)
    meta = np.zeros((count, N_META), np.int16)
    seat = np.zeros((count, N_SEAT, rules.players), np.int16)
    log = np.zeros((count, LOG_CAP, 3), np.int64)
    nlog = np.zeros(count, np.int64)
    _play_block(np.uint64(seed), np.int64(start), np.int64(count), prm, pol, plan, leaf, meta, seat,
                log, nlog, True)
    return _columns(start, count, K, rules.players, meta, seat), log, nlog


@njit(cache=True)
def _play_hands_kernel(hands, state, first, prev_winner, prm, pol, meta, seat, log):
    groups = np.zeros(8, np.uint64)
    groups[:hands.shape[0]] = hands
    flags = np.zeros(8, np.int64)
    ncards = np.zeros(8, np.int64)
    acls = np.zeros(N_CLASSES, np.int64)
    amin = np.zeros(N_CLASSES, np.int64)
    counts = np.zeros(N_CLASSES, np.int64)
    cand = np.zeros(512, np.uint64)
    ccls = np.zeros(512, np.int64)
    winner, nl = _play_dealt(np.uint64(state), first, prev_winner, prm, pol, groups, flags, ncards,
                             acls, amin, counts, cand, ccls, meta, seat, log, True)
    return nl


def play_hands(hands, rules: TienLenRules, policies, first: bool = True, prev_winner: int = -1,
               state: int = 0):
    """Play one game from given hands (masks or card text like ``"3S 4H"``), for tests and
    what-if studies. ``first``: a match's first game (lowest card leads and must be played);
    otherwise ``prev_winner`` leads. ``state``: RNG state for random seats.
    Returns ``(row dict, text lines)``."""
    from cardsim.simcore.tienlen.cards import parse_cards

    masks = np.array([parse_cards(h) if isinstance(h, str) else int(h) for h in hands], np.uint64)
    if len(masks) != rules.players:
        raise ValueError(f"need {rules.players} hands")
    prm = kernel_params(rules, 1)
    pol = policy_codes(policies, rules.players)
    meta = np.zeros((1, N_META), np.int16)
    seat = np.zeros((1, N_SEAT, rules.players), np.int16)
    log = np.zeros((LOG_CAP, 3), np.int64)
    nl = _play_hands_kernel(masks, np.uint64(state), bool(first), np.int64(prev_winner), prm, pol,
                            meta[0], seat[0], log)
    cols = _columns(0, 1, 1, rules.players, meta, seat)
    row = {k: v[0].item() for k, v in cols.items() if k not in ("game", "match")}
    return row, format_log(log, int(nl), row, rules.players, rules.suit_order)


def deal_with_state(seed: int, index: int, players: int, cards_per_player: int):
    """Hands of deal ``index`` and the RNG state the game continues from."""
    plan, leaf = deal_plan(players, cards_per_player)
    hands, state = _deal_state(np.uint64(seed), np.int64(index), np.int64(players), plan, leaf)
    return hands, int(state)


def instant_flags(hands, black: int | None = None) -> list[int]:
    """:func:`hand_flags_colour` of each hand (Python ints); ``black`` defaults to ♠ ♣."""
    if black is None:
        return [int(hand_flags(np.uint64(h))) for h in hands]
    return [int(hand_flags_colour(np.uint64(h), np.uint64(black))) for h in hands]


def _suits(mask: int, suit_order: str = "SCDH") -> str:
    return hand_str(int(mask) & ((1 << 52) - 1), suit_order)


def format_log(log: np.ndarray, n: int, row: dict, players: int, suit_order: str = "SCDH") -> list[str]:
    """Human-readable lines of one game's move log and result row."""
    lines = []
    for seat, mask, code in log[:n]:
        kind = code & 15
        if kind == LOG_DEAL:
            lines.append(f"deal seat {seat}: {_suits(mask, suit_order)}")
        elif kind == LOG_INSTANT:
            lines.append(f"instant win: seat {seat} ({INSTANT_WIN_KINDS[code >> 4]})")
        elif kind == LOG_LEAD:
            lines.append(f"-- trick: seat {seat} leads")
        elif kind == LOG_PASS:
            lines.append(f"seat {seat}: pass")
        elif kind == LOG_PLAY:
            cls = ((code >> 4) & 255) - 1
            chop = " (chop)" if code >> 12 & 1 else ""
            lines.append(f"seat {seat}: {_suits(mask, suit_order)}  [{class_name(cls)}]{chop}")
        elif kind == LOG_OUT:
            lines.append(f"seat {seat} is out (place {mask})")
    places = ", ".join(f"seat {s}: {row[f'place_{s}']}" for s in range(players))
    points = ", ".join(f"seat {s}: {row[f'points_{s}']}" for s in range(players))
    lines.append(f"places: {places}")
    lines.append(f"points: {points}")
    return lines


def replay_game(seed: int, index: int, rules: TienLenRules, policies,
                games_per_match: int = 1) -> list[str]:
    """The text of game ``index`` exactly as :func:`play_chunk` plays it: the deal, every
    move, trick leads, players going out, places and points. Games of a match before
    ``index`` are replayed first (the previous winner leads)."""
    K = int(games_per_match)
    m0 = index - index % K
    cols, log, nlog = play_logged(seed, m0, index - m0 + 1, rules, policies, K)
    row = {k: v[-1].item() for k, v in cols.items()}
    head = [f"game {index} (match {index // K}, game {index - m0 + 1} of the match), seed {seed}"]
    return head + format_log(log[-1], int(nlog[-1]), row, rules.players, rules.suit_order)
