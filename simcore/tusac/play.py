"""Tứ Sắc whole games: the play kernel (deal, turn loop, the search seats' decisions),
:func:`play_chunk` (bulk, parallel) and :func:`play_logged` (with move logs, for checks).

Game ``i`` of a run is a pure function of ``(seed, i)``: the deal comes from
:func:`cardsim.simcore.tusac.deal.deal_into`; redeals (mulligans), stock draws and the
random policy keep drawing from the same SplitMix64 stream; a search seat draws from the
game's separate search stream (:func:`cardsim.simcore.primitives.rng.search_key`), so the deal, the
stock and the other seats' random choices are the same whatever the seats' policies. Any
chunking, thread count or replay reproduces a game exactly.

Game flow (spec ``docs/rules/tusac.md``; details in :mod:`.engine` and :mod:`.claims`)
----------------------------------------------------------------------------------------
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
  or a discard) then goes through the claims. A taker lays the taken card with exactly
  one meld containing it (0-3 hand cards revealed) and, unless it won, discards one hand
  card (never a General; with ``trio_lock`` never a card of a locked triple). A drawer who
  does not (or cannot) meld the drawn card discards it as is, which exposes it again (a
  drawn General must be melded). A take that is not a win must leave the taker a legal
  discard (hand size: 20 cards between turns, 21 at a win): below ``win_threshold`` a
  fully melded hand of Generals or locked cards may not take, and a drawn General its
  drawer cannot keep is discarded as drawn; a dealer with no legal opening discard
  discards its lowest non-General card, else its lowest General. After a steal, play
  continues from the stealer.
* Win: a claim of the exposed card such that the taken card's meld plus a full
  decomposition of the hidden hand exist (:func:`cardsim.simcore.tusac.melds.win_score`)
  and the total score (exposed melds + that) is ``>= win_threshold``.

Scoring: the winner's score = points of all their melds (laid during the game, dealt
quadruples 8, the winning meld, the best decomposition of the hidden cards). Each loser
pays the score: ``points_w = score * (players - 1)``, ``points_s = -score``; zeros in a
drawn game.

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
``dealt_quads_s`` int8 (types held exactly 3 / 4 times in the played deal). A table with
a search seat also gets ``draw_luck_NAME_s`` float64 for NAME in
:data:`.luck.LUCK_NAMES` (the draws' luck for seat ``s``; expectation exactly 0).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.primitives.blocks import run_blocks
from cardsim.simcore.primitives.movelog import LOG_WIDTH
from cardsim.simcore.primitives.rng import search_key
from cardsim.simcore.framework.tasks import DEFAULT_SEARCH_BUDGET, PLAIN_FLAG, learned_seat_weights, seat_budgets
from cardsim.simcore.framework.tasks import policy_codes as _policy_codes
from cardsim.simcore.tusac.cards import N_TYPES
from cardsim.simcore.tusac.claims import MAX_OPTS, N_KINDS
from cardsim.simcore.tusac.deal import BASE_DECK, deal_plan
from cardsim.simcore.tusac.engine import (C_WHO, M_MULL, META_DTYPES, META_NAMES, N_CUR, N_META, N_SEAT,
                                          NO_FORCE, SEAT_DTYPES, SEAT_NAMES, advance, finish_game, start_game)
from cardsim.simcore.tusac.log import LOG_CAP
from cardsim.simcore.tusac.luck import LUCK_NAMES, N_LUCK
from cardsim.simcore.tusac.melds import kind_tables, meld_tables
from cardsim.simcore.tusac.policies import N_FEATURES, POL_LEARNED, POL_SEARCH, POLICIES
from cardsim.simcore.tusac.rules import P_PLAYERS, TuSacRules, kernel_params
from cardsim.simcore.tusac.search import search_choose

#: Final-state rows of logged mode: hidden hands of seats 0..3, tables of seats 0..3, discards, stock.
FIN_ROWS = 10


@njit(cache=True)
def play_game(seed, index, prm, pol, budgets, g_sizes, g_products, trash_tab, score_tab, win_tab, kind_tab, wts,
              model, cur, deck, hands, table, discards, locked, exp_pts, exp_kinds, okind, opts, orev, meta, seat, log,
              log_on, fin, luck):
    """Play game ``index``; fill ``meta[N_META]``, ``seat[N_SEAT, P]`` and, unless None,
    ``luck[P, N_LUCK]`` (the draws' luck, :mod:`.luck`); returns log rows used."""
    for f in range(N_META):
        meta[f] = 0
    if luck is not None:
        luck[:] = 0.0
    state, mull = start_game(seed, index, prm, g_sizes, g_products, cur, deck, hands, table, discards, locked,
                             exp_pts, exp_kinds, seat, log, log_on)
    meta[M_MULL] = mull
    search_state = search_key(seed, index)
    # The flags are constants, so numba compiles their branches out of the turn loop
    # (faster). ``forced`` is a plain int64 from the start: a literal NO_FORCE made a run
    # with a search seat compile ``advance`` twice (once while still typing ``forced``).
    forced = np.int64(NO_FORCE)
    while True:
        state, stopped = advance(prm, pol, forced, True, False, cur, deck, hands, table, discards, locked, exp_pts,
                                 exp_kinds, seat, okind, opts, orev, trash_tab, score_tab, win_tab, state, log,
                                 log_on, wts, luck)
        if not stopped:
            break
        if budgets is None:
            # No search seat (numba prunes the search at compile time, so a run without
            # one never compiles it); advance only stops for a search seat.
            break
        forced, search_state = search_choose(prm, budgets[cur[C_WHO]], search_state, cur, deck, hands, table,
                                             discards, locked, exp_pts, exp_kinds, trash_tab, score_tab, win_tab,
                                             wts, model)
    return finish_game(prm, cur, deck, hands, table, discards, locked, exp_pts, exp_kinds, meta, seat, okind, opts,
                       orev, trash_tab, score_tab, kind_tab, log, log_on, fin)


@njit(cache=True, nogil=True)
def _play_block(seed, start, count, prm, pol, budgets, g_sizes, g_products, trash_tab, score_tab, win_tab,
                kind_tab, wts, model, meta, seat, log, nlog, fin, log_on, luck):
    cur = np.zeros(N_CUR, np.int64)
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
        if luck is None:
            nl = play_game(seed, start + j, prm, pol, budgets, g_sizes, g_products, trash_tab, score_tab, win_tab,
                           kind_tab, wts, model, cur, deck, hands, table, discards, locked, exp_pts, exp_kinds, okind,
                           opts, orev, meta[j], seat[j], log[li], log_on, fin[li], None)
        else:
            nl = play_game(seed, start + j, prm, pol, budgets, g_sizes, g_products, trash_tab, score_tab, win_tab,
                           kind_tab, wts, model, cur, deck, hands, table, discards, locked, exp_pts, exp_kinds, okind,
                           opts, orev, meta[j], seat[j], log[li], log_on, fin[li], luck[j])
        if log_on:
            nlog[j] = nl


@njit(cache=True, nogil=True)
def _play_block_unlogged(seed, start, count, prm, pol, budgets, g_sizes, g_products, trash_tab, score_tab, win_tab,
                         kind_tab, wts, model, meta, seat, luck):
    """:func:`_play_block` without a move log, for :func:`play_chunk`'s threads. The flag is the
    literal ``False`` here, so Numba compiles the turn loop with the logging pruned, as the
    parallel kernel this replaces did (:func:`play_logged` compiles the logging variant)."""
    log = np.zeros((1, 1, LOG_WIDTH), np.int64)
    nlog = np.zeros(1, np.int64)
    fin = np.zeros((1, FIN_ROWS, N_TYPES), np.int8)
    _play_block(seed, start, count, prm, pol, budgets, g_sizes, g_products, trash_tab, score_tab, win_tab, kind_tab,
                wts, model, meta, seat, log, nlog, fin, False, luck)


# ----------------------------------------------------------------------------------
# Python API
# ----------------------------------------------------------------------------------

def policy_codes(policies, players: int) -> np.ndarray:
    """Policies as int64 codes per seat (see :func:`cardsim.simcore.framework.tasks.policy_codes`)."""
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


def _kernel_args(rules: TuSacRules, policies, weights=None):
    _, g, p = deal_plan(rules.players)
    codes = policy_codes(policies, rules.players)
    budgets = seat_budgets(codes, policies, rules.players, POL_SEARCH)
    model = search_model(budgets)
    wts = seat_weights(codes, policies, weights, model is not None)
    return (kernel_params(rules), codes, budgets, g, p, *tables(rules), wts, model)


def search_model(budgets):
    """The learned model a search seat rolls out with (the shipped weights,
    float64[N_FEATURES]), or None when no seat searches with it (no search seat, or only
    ``search-plain`` seats)."""
    if budgets is None or not ((budgets < 0) | ((budgets > 0) & (budgets < PLAIN_FLAG))).any():
        return None
    from cardsim.simcore.tusac.learned import read_weights

    return read_weights()


def seat_weights(codes, policies, weights=None, always=False):
    """The ``learned`` seats' weights as the kernels take them, float64[players, N_FEATURES],
    or None (see :func:`cardsim.simcore.framework.tasks.learned_seat_weights`; ``always``: a
    searching seat rolls out with the learned policy, one compiled turn loop for play and
    rollouts)."""
    from cardsim.simcore.tusac.learned import WEIGHTS_FILE, read_weights

    return learned_seat_weights(np.asarray(codes) == POL_LEARNED, policies, N_FEATURES, read_weights, WEIGHTS_FILE,
                                weights, always)


def play_chunk(seed: int, start: int, count: int, rules: TuSacRules, policies,
               n_blocks: int | None = None, weights=None, draw_luck: bool | None = None) -> dict[str, np.ndarray]:
    """Play games ``start .. start+count-1`` of run ``seed``; one row per game.

    ``policies``: a policy name/code for every seat or one per seat (``random``,
    ``heuristic``, ``search`` or ``search:N``, ``learned`` or ``learned:FILE``). Games run in
    parallel (:func:`.blocks.run_blocks` over ``n_blocks`` blocks); results do not depend on
    the blocks or threads. ``weights``: the ``learned`` seats' weights (see
    :func:`seat_weights`). ``draw_luck``: record the draws' luck columns (default: when a
    seat searches; the games are the same either way). Columns: see the module docstring.
    """
    args = _kernel_args(rules, policies, weights)
    meta = np.zeros((count, N_META), np.int16)
    seat = np.zeros((count, N_SEAT, rules.players), np.int16)
    # a table with a search seat also records the draws' luck (a control variate; cheap beside the search)
    if draw_luck is None:
        draw_luck = args[2] is not None
    luck = np.zeros((count, rules.players, N_LUCK)) if draw_luck else None

    def run_block(g0: int, g1: int) -> None:
        _play_block_unlogged(np.uint64(seed), np.int64(start + g0), np.int64(g1 - g0), *args, meta[g0:g1],
                             seat[g0:g1], None if luck is None else luck[g0:g1])

    run_blocks(run_block, count, n_blocks)
    out = _columns(start, count, rules.players, meta, seat)
    if luck is not None:
        for f, name in enumerate(LUCK_NAMES):
            for s in range(rules.players):
                out[f"draw_luck_{name}_{s}"] = luck[:, s, f]
    return out


def play_logged(seed: int, start: int, count: int, rules: TuSacRules, policies):
    """Like :func:`play_chunk` (serial) plus the kernel's move log and final card state of
    every game: ``(columns, log int64[count, LOG_CAP, LOG_WIDTH], nlog int64[count],
    fin int8[count, 10, 28])``; ``fin`` rows: hidden hands of seats 0..3, table cards of
    seats 0..3 (the winning card included), discards, stock."""
    args = _kernel_args(rules, policies)
    meta = np.zeros((count, N_META), np.int16)
    seat = np.zeros((count, N_SEAT, rules.players), np.int16)
    log = np.zeros((count, LOG_CAP, LOG_WIDTH), np.int64)
    nlog = np.zeros(count, np.int64)
    fin = np.zeros((count, FIN_ROWS, N_TYPES), np.int8)
    _play_block(np.uint64(seed), np.int64(start), np.int64(count), *args, meta, seat, log, nlog, fin, True, None)
    return _columns(start, count, rules.players, meta, seat), log, nlog, fin


# ----------------------------------------------------------------------------------
# a search decision on its own (tests, what-ifs)
# ----------------------------------------------------------------------------------

@njit(cache=True)
def _run_to_decision(seed, index, prm, pol, budgets, g_sizes, g_products, trash_tab, score_tab, win_tab, wts, model,
                     nth, cur, deck, hands, table, discards, locked, exp_pts, exp_kinds):
    """Play game ``index`` up to the ``nth`` (0-based) decision of a search seat; returns
    ``(found, search RNG state there)`` with the state arrays at that decision."""
    seat = np.zeros((N_SEAT, prm[P_PLAYERS]), np.int16)
    okind = np.zeros(MAX_OPTS, np.int64)
    opts = np.zeros(MAX_OPTS, np.int64)
    orev = np.zeros((MAX_OPTS, 3), np.int64)
    log = np.zeros((1, LOG_WIDTH), np.int64)
    state, mull = start_game(seed, index, prm, g_sizes, g_products, cur, deck, hands, table, discards, locked,
                             exp_pts, exp_kinds, seat, log, np.bool_(False))
    search_state = search_key(seed, index)
    forced = np.int64(NO_FORCE)  # as in play_game, so that both call the same compiled advance
    k = 0
    while True:
        state, stopped = advance(prm, pol, forced, True, False, cur, deck, hands, table, discards, locked, exp_pts,
                                 exp_kinds, seat, okind, opts, orev, trash_tab, score_tab, win_tab, state, log,
                                 np.bool_(False), wts, None)
        if not stopped:
            return False, search_state
        if k == nth:
            return True, search_state
        k += 1
        forced, search_state = search_choose(prm, budgets[cur[C_WHO]], search_state, cur, deck, hands, table,
                                             discards, locked, exp_pts, exp_kinds, trash_tab, score_tab, win_tab,
                                             wts, model)


STATE_FIELDS = ("cur", "deck", "hands", "table", "discards", "locked", "exp_pts", "exp_kinds")


def decision_state(seed: int, index: int, rules: TuSacRules, policies, nth: int = 0) -> dict | None:
    """The state arrays (``STATE_FIELDS``) and ``search_state`` at the ``nth`` decision of
    a search seat in game ``index``, as real play reaches it; None if the game has fewer."""
    prm, pol, budgets, g, p, tt, st, wt, _, wts, model = _kernel_args(rules, policies)
    if budgets is None:  # no search seat, so no search decision
        return None
    arrays = {"cur": np.zeros(N_CUR, np.int64), "deck": BASE_DECK.copy(),
              "hands": np.zeros((4, N_TYPES), np.int8), "table": np.zeros((4, N_TYPES), np.int8),
              "discards": np.zeros(N_TYPES, np.int8), "locked": np.zeros(4, np.int64),
              "exp_pts": np.zeros(4, np.int64), "exp_kinds": np.zeros((4, N_KINDS), np.int64)}
    found, search_state = _run_to_decision(np.uint64(seed), np.int64(index), prm, pol, budgets, g, p, tt, st, wt, wts,
                                           model, np.int64(nth), *(arrays[k] for k in STATE_FIELDS))
    if not found:
        return None
    arrays["search_state"] = search_state
    return arrays


def search_decision(rules: TuSacRules, state: dict, budget: int = DEFAULT_SEARCH_BUDGET) -> tuple[int, int]:
    """The search's choice at a :func:`decision_state` (copied, not changed): ``(choice,
    search RNG state after)``; a take choice is an option index or -1, a discard a type.
    ``budget``: as the kernels take it (negative: the oracle; with ``PLAIN_FLAG``:
    ``search-plain``)."""
    tt, st, wt, _ = tables(rules)
    arrays = [state[k].copy() for k in STATE_FIELDS]
    cur, deck, hands, table, discards, locked, exp_pts, exp_kinds = arrays
    model = search_model(np.array([budget], np.int64))
    wts = None if model is None else np.tile(model, (4, 1))
    choice, after = search_choose(kernel_params(rules), np.int64(budget), np.uint64(state["search_state"]), cur, deck,
                                  hands, table, discards, locked, exp_pts, exp_kinds, tt, st, wt, wts, model)
    return int(choice), int(after)
