"""Tiến Lên engine: the game state as plain arrays, legal decisions, apply, the turn loop.

Real play (:mod:`.play`) and the search policy's rollouts (:mod:`.search`) run the same
functions here: :func:`start_game`, :func:`turn_options`, :func:`apply_decision`,
:func:`advance_turn` and the turn loop :func:`run_turns`, which asks
:func:`.policies.choose` for every decision and pauses at the decisions of ``search``
seats (the caller searches, applies and resumes).

Game flow (spec ``docs/rules/tienlen.md``; legal moves in :mod:`.moves`)
-----------------------------------------------------------------------
* First game of a match: the holder of the lowest dealt card (3♠ when dealt) leads and
  the lead must contain that card (be that card alone with ``three_spades_alone``).
  Later games: the previous game's winner (1st place, instant winners included) leads
  anything.
* Instant wins (enabled kinds) are checked right after the deal with
  :func:`.deal.resolve_instant_win` (leader = the seat that would lead): the instant
  winner is 1st, the others are ranked by cards left, ties by play order after the winner.
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

Big Two profile (``prm[P_FIVE] != 0``, rules in ``simcore/bigtwo``)
--------------------------------------------------------------------
The same engine plays Big Two: suits ordered ♦ ♣ ♥ ♠ (3♦ = card 0), the allowed classes
from :func:`.moves.bigtwo_classes` (singles, pairs, triples, a four alone as a switch and
the five-card hands of :mod:`.fives`, no bombs; a five-card table's key read from its
mask), passes not final (``pass_resets``) unless the lock-out switch, the game over at
the first player out (``ST_END_FIRST``: the others placed by cards left, ties by play
order after the winner) and ``per_card`` payments of ``card_pay``: cards left, x2 from
``double_at`` and x3 from ``triple_at`` cards. Tiến Lên's parameters are all 0 there.

State
-----
``st`` int64[ST_SIZE] (fields ``ST_*``) and ``hands`` uint64[8] (a 52-bit card mask per
seat). Per-game statistics go to ``seat`` int16[N_SEAT, players] (fields ``S_*``) and
``meta`` int16[N_META] (fields ``M_*``); the move log to ``log`` (:mod:`.log`).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.primitives.bits import highest_bit, lowest_bit, popcount
from cardsim.simcore.primitives.movelog import log_record
from cardsim.simcore.tienlen.deal import first_leader, hand_flags_colour, rank_planes, resolve_instant_win
from cardsim.simcore.tienlen.log import LOG_DEAL, LOG_DECLINE, LOG_INSTANT, LOG_LEAD, LOG_OUT, LOG_PASS, LOG_PLAY
from cardsim.simcore.tienlen.fives import FIVE_BASE, five_key
from cardsim.simcore.tienlen.moves import allowed_classes, bigtwo_classes, count_moves, is_bomb_class
from cardsim.simcore.tienlen.policies import POL_RANDOM, POL_SEARCH, choose, choose_bigtwo
from cardsim.simcore.tienlen.rules import (P_ALONE, P_BAP, P_BLACK, P_CARD_PAY, P_CHOP, P_CHOP_LEN, P_DOUBLE_AT,
                                           P_END_FIRST, P_FIVE, P_INSTANT, P_PLAYERS, P_QUADS, P_RESETS, P_SCORING,
                                           P_TRIPLE_AT, SCORING_LADDERS, SCORING_PER_CARD)

# game state st[ST_SIZE]
(ST_TURN, ST_LAST, ST_LEADER, ST_TABLE_CLS, ST_TABLE_TOP, ST_TABLE_MASK, ST_PASSED, ST_REQ, ST_FLOOR,
 ST_PLAYED, ST_ACTIVE, ST_NEXT_PLACE, ST_TRICKS, ST_PLAYS, ST_WINNER, ST_DONE) = range(16)
ST_NCARDS = 16  # + seat: cards held
ST_PLACE = 24  # + seat: place (0 while playing)
ST_END_FIRST = 32  # the game ends at the first player out (Big Two: prm[P_END_FIRST])
ST_SIZE = 33

# per-game columns (int16 vector meta[N_META])
M_LEADER, M_THREE, M_KIND, M_WINNER, M_TRICKS, M_PLAYS, M_GAME_WINNER = range(7)
N_META = 7
META_NAMES = ("leader", "three_spades_seat", "instant_kind", "instant_winner", "tricks", "plays", "winner")
META_DTYPES = (np.int8, np.int8, np.int8, np.int8, np.int16, np.int16, np.int8)
# per-seat columns (int16 matrix seat[N_SEAT, players])
(S_PLACE, S_POINTS, S_LEFT, S_TWOS, S_BOMBS_DEALT, S_PLAYS, S_PASSES, S_BOMBS_PLAYED,
 S_CHOPS, S_TWOS_CHOPPED) = range(10)
N_SEAT = 10
SEAT_NAMES = ("place", "points", "cards_left", "twos_dealt", "bombs_dealt", "plays", "passes",
              "bombs_played", "chops", "twos_chopped")
SEAT_DTYPES = (np.int8, np.int16, np.int8, np.int8, np.int8, np.int16, np.int16, np.int16,
               np.int16, np.int16)
#: run_turns outcomes
RUN_DONE, RUN_STOPPED, RUN_SEARCH = 0, 1, 2

_R3A = np.uint64(0x111111111111)
_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U4 = np.uint64(4)
_U8 = np.uint64(8)
_U48 = np.uint64(48)
_LADDERS = np.array(SCORING_LADDERS, np.int64)


@njit(cache=True)
def start_game(hands, first, prev_winner, prm, st, flags, meta, seat, log, log_on):
    """Set up ``st`` for the dealt ``hands``: statistics, leader, instant win.

    ``first``: a match's first game (the lowest dealt card leads and must be played),
    else ``prev_winner`` leads. Returns the log rows used.
    """
    P = prm[P_PLAYERS]
    nl = 0
    three = -1
    for s in range(8):
        st[ST_NCARDS + s] = 0
        st[ST_PLACE + s] = 0
    for s in range(P):
        h = hands[s]
        ge1, ge2, ge3, eq4 = rank_planes(h)
        pr = ge2 & _R3A
        run3 = pr & (pr >> _U4) & (pr >> _U8)
        st[ST_NCARDS + s] = popcount(h)
        flags[s] = hand_flags_colour(h, np.uint64(prm[P_BLACK]))
        for f in range(N_SEAT):
            seat[f, s] = 0
        seat[S_TWOS, s] = popcount(h >> _U48)
        seat[S_BOMBS_DEALT, s] = popcount(eq4) + popcount(run3 & ~(pr << _U4))
        if h & _U1:
            three = s
        nl = log_record(log, nl, log_on, LOG_DEAL, s, np.int64(h), 0, 0, 0)
    if first:
        leader = first_leader(hands, P)
        req = lowest_bit(hands[leader])
    else:
        leader = prev_winner
        req = -1
    st[ST_TURN] = leader
    st[ST_LAST] = leader
    st[ST_LEADER] = leader
    st[ST_TABLE_CLS] = -1
    st[ST_TABLE_TOP] = -1
    st[ST_TABLE_MASK] = 0
    st[ST_PASSED] = 0
    st[ST_REQ] = req
    st[ST_FLOOR] = req if req > 0 else 0  # cards below the first lead's card were not dealt
    st[ST_PLAYED] = 0
    st[ST_ACTIVE] = P
    st[ST_NEXT_PLACE] = 1
    st[ST_TRICKS] = 1
    st[ST_PLAYS] = 0
    st[ST_WINNER] = -1
    st[ST_DONE] = 0
    st[ST_END_FIRST] = prm[P_END_FIRST]
    meta[M_LEADER] = leader
    meta[M_THREE] = three
    meta[M_KIND] = -1
    meta[M_WINNER] = -1
    if prm[P_INSTANT] != 0:
        w, kind = resolve_instant_win(flags, P, leader, prm[P_INSTANT])
        if w >= 0:
            st[ST_WINNER] = w
            st[ST_DONE] = 1
            st[ST_TRICKS] = 0
            meta[M_KIND] = kind
            meta[M_WINNER] = w
            nl = log_record(log, nl, log_on, LOG_INSTANT, w, kind, 0, 0, 0)
            st[ST_PLACE + w] = 1
            for s in range(P):
                if s != w:
                    place = 2
                    ds = (s - w + P) % P
                    for o in range(P):
                        if o != w and o != s:
                            do = (o - w + P) % P
                            if (st[ST_NCARDS + o] < st[ST_NCARDS + s]
                                    or (st[ST_NCARDS + o] == st[ST_NCARDS + s] and do < ds)):
                                place += 1
                    st[ST_PLACE + s] = place
            return nl
    nl = log_record(log, nl, log_on, LOG_LEAD, leader, 0, 0, 0, 0)
    return nl


@njit(cache=True, inline="always")
def turn_options(st, prm, acls, amin):
    """The decision facing the player to move: ``(n_acl, can_pass, is_passed)`` with the
    allowed classes in ``acls[:n_acl], amin[:n_acl]``. ``is_passed``: the player already
    passed this trick (pass final); then they act only if they hold an allowed bomb
    (``n_acl == 0`` when ``bombs_after_pass`` allows none). Tiến Lên's decisions;
    :func:`decision_options` is the engine's entry for any profile."""
    chop = prm[P_CHOP]
    bap = prm[P_BAP]
    table_cls = st[ST_TABLE_CLS]
    if table_cls < 0:
        n_acl = allowed_classes(np.int64(-1), np.int64(-1), chop, np.bool_(False), bap, acls, amin, prm[P_CHOP_LEN])
        if st[ST_REQ] >= 0 and prm[P_ALONE] != 0:
            n_acl = 1  # class 0 = single
        return n_acl, False, False
    is_passed = prm[P_RESETS] == 0 and ((st[ST_PASSED] >> st[ST_TURN]) & 1) != 0
    if is_passed and bap == 0:
        return 0, True, True
    n_acl = allowed_classes(table_cls, st[ST_TABLE_TOP], chop, is_passed, bap, acls, amin, prm[P_CHOP_LEN])
    return n_acl, True, is_passed


@njit(cache=True, _nrt=False)
def decision_options(st, prm, acls, amin, five):
    """:func:`turn_options` of the engine's profile: ``five`` is ``None`` for Tiến Lên (the
    Big Two code is then left out at compile time, like the search when no seat searches)
    or the Big Two profile (``prm[P_FIVE]``, :func:`_bigtwo_options`)."""
    if five is None:
        return turn_options(st, prm, acls, amin)
    return _bigtwo_options(st, prm, acls, amin)


@njit(cache=True, _nrt=False)
def _bigtwo_options(st, prm, acls, amin):
    """:func:`turn_options` under the Big Two profile (:func:`.moves.bigtwo_classes`: no bombs)."""
    table_cls = st[ST_TABLE_CLS]
    if table_cls < 0:
        n_acl = bigtwo_classes(np.int64(-1), np.int64(-1), prm[P_FIVE], prm[P_QUADS], acls, amin)
        if st[ST_REQ] >= 0 and prm[P_ALONE] != 0:
            n_acl = 1  # class 0 = single
        return n_acl, False, False
    if prm[P_RESETS] == 0 and ((st[ST_PASSED] >> st[ST_TURN]) & 1) != 0:
        return np.int64(0), True, True
    top = st[ST_TABLE_TOP] if table_cls < FIVE_BASE else five_key(np.uint64(st[ST_TABLE_MASK]), table_cls)
    return bigtwo_classes(table_cls, top, prm[P_FIVE], prm[P_QUADS], acls, amin), True, False


@njit(cache=True, inline="always")
def has_decision(h, st, n_acl, is_passed, acls, amin, counts):
    """Whether the player to move decides (a passed player only with a playable bomb)."""
    if not is_passed:
        return True
    return n_acl > 0 and count_moves(h, n_acl, acls, amin, st[ST_REQ], counts) > 0


@njit(cache=True, inline="always")
def opponents_min(st, P, turn):
    """Fewest cards held by an opponent of ``turn`` still playing (99 if none)."""
    opp_min = np.int64(99)  # typed: a literal would compile its users twice
    for o in range(P):
        n = st[ST_NCARDS + o]
        if o != turn and n > 0 and n < opp_min:
            opp_min = n
    return opp_min


@njit(cache=True, inline="always")
def apply_decision(st, hands, seat, turn, move, mcls, log, nl, log_on):
    """Apply ``turn``'s decision (``mcls < 0``: pass); returns the log rows used.
    Sets ``st[ST_DONE]`` when only one player holds cards."""
    if mcls < 0:
        seat[S_PASSES, turn] += 1
        st[ST_PASSED] |= np.int64(1) << turn
        return log_record(log, nl, log_on, LOG_PASS, turn, 0, 0, 0, 0)
    table_cls = st[ST_TABLE_CLS]
    chopped = table_cls >= 0 and mcls != table_cls  # (Big Two: a stronger five-card kind, counted, never shown)
    nl = log_record(log, nl, log_on, LOG_PLAY, turn, np.int64(move), mcls, 1 if chopped else 0, 0)
    if chopped:
        seat[S_CHOPS, turn] += 1
        if (st[ST_TABLE_TOP] >> 2) == 12 and table_cls < 4:
            seat[S_TWOS_CHOPPED, st[ST_LAST]] += popcount(np.uint64(st[ST_TABLE_MASK]))
    st[ST_REQ] = -1
    hands[turn] = hands[turn] & ~move
    st[ST_NCARDS + turn] -= popcount(move)
    st[ST_PLAYED] |= np.int64(move)
    seat[S_PLAYS, turn] += 1
    if is_bomb_class(mcls):  # (Big Two: five-card hands)
        seat[S_BOMBS_PLAYED, turn] += 1
    st[ST_PLAYS] += 1
    st[ST_TABLE_CLS] = mcls
    st[ST_TABLE_TOP] = highest_bit(move)  # (Big Two: a five-card hand's key is read from the mask)
    st[ST_TABLE_MASK] = np.int64(move)
    st[ST_LAST] = turn
    if st[ST_NCARDS + turn] == 0:
        place = st[ST_NEXT_PLACE]
        st[ST_PLACE + turn] = place
        nl = log_record(log, nl, log_on, LOG_OUT, turn, place, 0, 0, 0)
        if place == 1:
            st[ST_WINNER] = turn
            if st[ST_END_FIRST] != 0:
                _place_by_cards(st, turn)
                return nl
        st[ST_NEXT_PLACE] = place + 1
        st[ST_ACTIVE] -= 1
        if st[ST_ACTIVE] == 1:
            for s in range(8):
                if st[ST_NCARDS + s] > 0:
                    st[ST_PLACE + s] = place + 1
            st[ST_DONE] = 1
    return nl


@njit(cache=True, _nrt=False)
def _place_by_cards(st, w):
    """The game ends with ``w`` out first: the others are placed by cards left, ties by
    play order after ``w``."""
    for s in range(8):
        if s == w or st[ST_NCARDS + s] == 0:
            continue
        place = 2
        ds = s + 8 if s < w else s
        for o in range(8):
            if o == w or o == s or st[ST_NCARDS + o] == 0:
                continue
            do = o + 8 if o < w else o
            if st[ST_NCARDS + o] < st[ST_NCARDS + s] or (st[ST_NCARDS + o] == st[ST_NCARDS + s] and do < ds):
                place += 1
        st[ST_PLACE + s] = place
    st[ST_ACTIVE] = 1
    st[ST_DONE] = 1


@njit(cache=True, inline="always")
def advance_turn(st, P, log, nl, log_on):
    """Move the turn on; coming back to the last player to play ends the trick."""
    t = st[ST_TURN]
    last = st[ST_LAST]
    while True:
        t += 1
        if t == P:
            t = 0
        if t == last:
            st[ST_TABLE_CLS] = -1
            st[ST_TABLE_TOP] = -1
            st[ST_TABLE_MASK] = 0
            st[ST_PASSED] = 0
            st[ST_TRICKS] += 1
            while st[ST_NCARDS + t] == 0:
                t += 1
                if t == P:
                    t = 0
            st[ST_TURN] = t
            return log_record(log, nl, log_on, LOG_LEAD, t, 0, 0, 0, 0)
        if st[ST_NCARDS + t] > 0:
            st[ST_TURN] = t
            return nl


@njit(cache=True)
def decide_and_apply(st, hands, P, seat, policy, move, mcls, is_passed, log, nl, log_on):
    """Apply a policy's decision and move the turn on. A repeated pass (a passed player
    offered a bomb under ``bombs_after_pass`` passes again) is a skipped turn, logged as
    ``LOG_DECLINE`` (the replay shows the decision), except for the random policy, whose
    pass counts have always included it."""
    if mcls < 0 and is_passed and policy != POL_RANDOM:
        nl = log_record(log, nl, log_on, LOG_DECLINE, st[ST_TURN], 0, 0, 0, 0)
    else:
        nl = apply_decision(st, hands, seat, st[ST_TURN], move, mcls, log, nl, log_on)
    if st[ST_DONE] == 0:
        nl = advance_turn(st, P, log, nl, log_on)
    return nl


@njit(cache=True, _nrt=False)
def run_turns(st, hands, prm, pol, wts, rng, seat, log, nl, log_on, acls, amin, counts, cand, ccls, stop_seat,
              pause_each, five):
    """Play turns until the game ends (``RUN_DONE``), ``stop_seat`` (>= 0) has a place
    (``RUN_STOPPED``) or a ``search`` seat must decide (``RUN_SEARCH``, nothing applied;
    with ``pause_each``, any seat: the fitted search observes every decision).

    ``pol`` int64[players]: policy codes; ``wts`` float64[players, N_FEATURES]: each
    ``learned`` seat's weights.
    ``seat`` int16[N_SEAT, players] must have one column per player. ``five``: the
    engine's profile (``None``: Tiến Lên; Big Two: ``prm[P_FIVE]``, see
    :func:`decision_options`). Returns ``(outcome, rng state, log rows used)``.
    """
    P = prm[P_PLAYERS]
    while st[ST_DONE] == 0:
        if stop_seat >= 0 and st[ST_PLACE + stop_seat] != 0:
            return RUN_STOPPED, rng, nl
        turn = st[ST_TURN]
        h = hands[turn]
        # ``five is None`` (Tiến Lên) is decided at compile time: the Big Two calls are left out
        if five is None:
            n_acl, can_pass, is_passed = turn_options(st, prm, acls, amin)
        else:
            n_acl, can_pass, is_passed = _bigtwo_options(st, prm, acls, amin)
        if has_decision(h, st, n_acl, is_passed, acls, amin, counts):
            p = pol[turn]
            if p == POL_SEARCH or pause_each:
                return RUN_SEARCH, rng, nl
            opp_min = opponents_min(st, P, turn)
            if five is None:
                move, mcls, rng = choose(p, h, n_acl, acls, amin, counts, st[ST_REQ], can_pass, st[ST_TABLE_CLS],
                                         opp_min, st[ST_ACTIVE] == 2, rng, cand, ccls, wts[turn])
            else:
                move, mcls, rng = choose_bigtwo(p, h, n_acl, acls, amin, counts, st[ST_REQ], can_pass,
                                                st[ST_TABLE_CLS], opp_min, st[ST_ACTIVE] == 2, rng, cand, ccls,
                                                wts[turn])
            nl = decide_and_apply(st, hands, P, seat, p, move, mcls, is_passed, log, nl, log_on)
        else:
            nl = advance_turn(st, P, log, nl, log_on)
    return RUN_DONE, rng, nl


@njit(cache=True)
def seat_points(st, hands, prm, s):
    """Points of seat ``s`` once its place is known (``per_card``: once the game is over)."""
    sc = prm[P_SCORING]
    if sc != SCORING_PER_CARD:
        return _LADDERS[sc, st[ST_PLACE + s] - 1]
    P = prm[P_PLAYERS]
    if prm[P_CARD_PAY] != 0:
        if st[ST_PLACE + s] != 1:
            return -_card_pay(st[ST_NCARDS + s], prm)
        total = 0
        for o in range(P):
            if o != s:
                total += _card_pay(st[ST_NCARDS + o], prm)
        return total
    if st[ST_PLACE + s] != 1:
        return -(st[ST_NCARDS + s] + popcount(hands[s] >> _U48))
    total = 0
    for o in range(P):
        if o != s:
            total += st[ST_NCARDS + o] + popcount(hands[o] >> _U48)
    return total


@njit(cache=True, inline="always")
def _card_pay(n, prm):
    """Big Two's payment for ``n`` cards left: x3 from ``triple_at``, x2 from ``double_at`` cards (0: off)."""
    if prm[P_TRIPLE_AT] > 0 and n >= prm[P_TRIPLE_AT]:
        return 3 * n
    if prm[P_DOUBLE_AT] > 0 and n >= prm[P_DOUBLE_AT]:
        return 2 * n
    return n


@njit(cache=True)
def finish_game(st, hands, prm, meta, seat):
    """Places, points, cards left and the game's length into ``meta`` and ``seat``."""
    P = prm[P_PLAYERS]
    for s in range(P):
        seat[S_PLACE, s] = st[ST_PLACE + s]
        seat[S_LEFT, s] = st[ST_NCARDS + s]
    for s in range(P):
        seat[S_POINTS, s] = seat_points(st, hands, prm, s)
    meta[M_TRICKS] = st[ST_TRICKS]
    meta[M_PLAYS] = st[ST_PLAYS]
    meta[M_GAME_WINNER] = st[ST_WINNER]
