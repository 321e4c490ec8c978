"""Tiến Lên whole games, matches and chunks: the ``play`` kernels and their Python API.

Game ``i`` of a run is a pure function of ``(seed, i)`` and of the previous games of
its match (the previous winner leads): the deal comes from :func:`.deal.deal_into`,
the random policy keeps drawing from the same stream, and search seats draw from their
own stream ``search_key(seed, i)`` (so a seat's policy never shifts the deal or the
other seats' random choices). Any chunking, thread count or :func:`replay_game`
reproduces a game. Games ``i`` with the same ``i // games_per_match`` form a match;
chunks must start on a match boundary.

Output columns of :func:`play_chunk` (one row per game)
-------------------------------------------------------
``game`` int64, ``match`` int64, ``leader`` int8 (seat that led the first trick; for
an instant win the seat that would have led), ``three_spades_seat`` int8 (-1 if the 3♠
was not dealt), ``instant_kind`` int8 (index into ``INSTANT_WIN_KINDS``, -1 none; the ``games`` table
stores the name, see :mod:`.tasks`),
``instant_winner`` int8 (-1 none), ``tricks`` int16 (tricks led; 0 for an instant
win), ``plays`` int16 (total plays, passes excluded), ``winner`` int8 (the seat in 1st
place, instant winners included), and for each seat ``s < players``:
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

import functools

import numpy as np
from numba import njit

from cardsim.simcore.primitives.blocks import run_blocks
from cardsim.simcore.primitives.movelog import LOG_WIDTH
from cardsim.simcore.primitives.rng import search_key
from cardsim.simcore.framework.tasks import seat_budgets
from cardsim.simcore.framework.tasks import policy_codes as _policy_codes
from cardsim.simcore.tienlen.deal import deal_into, deal_plan, hand_flags, hand_flags_colour
from cardsim.simcore.tienlen.engine import (META_DTYPES, META_NAMES, N_META, N_SEAT, RUN_DONE, SEAT_DTYPES,
                                            SEAT_NAMES, ST_SIZE, ST_WINNER, finish_game, run_turns, start_game)
from cardsim.simcore.tienlen.rules import P_K, P_PLAYERS, kernel_params, profile_arg
from cardsim.simcore.tienlen.log import LOG_CAP, format_log
from cardsim.simcore.tienlen.moves import N_CLASSES
from cardsim.simcore.tienlen.policies import N_FEATURES, POL_SEARCH, POLICIES
from cardsim.simcore.tienlen.rules import TienLenRules
from cardsim.simcore.tienlen.search import N_MODELS, any_fitted, decide_pending

#: Scratch for the heuristic's candidate plays (the most canonical plays of one hand).
CAND_CAP = 512


@njit(cache=True)
def play_dealt(hands, rng, srng, first, prev_winner, prm, pol, budgets, wts, st, flags, acls, amin, counts, cand, ccls,
               meta, seat, log, log_on, five):
    """Play a game from ``hands[:players]`` (consumed) with game RNG ``rng`` and search RNG
    ``srng``; fill ``meta[N_META]`` and ``seat[N_SEAT, players]``. ``five``: the engine's
    profile (:func:`.rules.profile_arg`: ``None`` for Tiến Lên). Returns
    ``(winner, log rows used, srng)``."""
    P = prm[P_PLAYERS]
    nl = start_game(hands, first, prev_winner, prm, st, flags, meta, seat, log, log_on)
    if budgets is None:
        # No search seat (numba prunes the search at compile time, so a run without
        # one never compiles it); run_turns only stops early for a search seat.
        outcome, rng, nl = run_turns(st, hands, prm, pol, wts, rng, seat, log, nl, log_on, acls, amin, counts, cand,
                                     ccls, np.int64(-1), np.bool_(False), five)
    else:
        observe = any_fitted(pol, budgets)
        opp_ll = np.zeros((P, P, N_MODELS))
        while True:
            outcome, rng, nl = run_turns(st, hands, prm, pol, wts, rng, seat, log, nl, log_on, acls, amin, counts,
                                         cand, ccls, np.int64(-1), observe, five)
            if outcome == RUN_DONE:
                break
            rng, srng, nl = decide_pending(st, hands, prm, pol, budgets, wts, rng, srng, opp_ll, observe, seat, log,
                                           nl, log_on, acls, amin, counts, cand, ccls, five)
    finish_game(st, hands, prm, meta, seat)
    return st[ST_WINNER], nl, srng


@njit(cache=True, nogil=True)
def deal_game(seed, index, plan, leaf, slots, hands):
    """:func:`.deal.deal_into` as a kernel of its own (the deal kernels inline it): a game
    deals once, so the call costs nothing here, and the game loop compiles without the
    deal's code while the helper process compiles the deal (a first run's critical path)."""
    return deal_into(seed, index, plan, leaf, slots, hands)


@njit(cache=True, nogil=True)
def play_block(seed, start, count, prm, pol, budgets, wts, plan, leaf, meta, seat, log, nlog, log_on, five):
    """Games ``start..start+count-1`` (``start`` on a match boundary), serially."""
    K = prm[P_K]
    slots = np.zeros(16, np.uint64)
    hands = np.zeros(8, np.uint64)
    st = np.zeros(ST_SIZE, np.int64)
    flags = np.zeros(8, np.int64)
    acls = np.zeros(N_CLASSES, np.int64)
    amin = np.zeros(N_CLASSES, np.int64)
    counts = np.zeros(N_CLASSES, np.int64)
    cand = np.zeros(CAND_CAP, np.uint64)
    ccls = np.zeros(CAND_CAP, np.int64)
    winner = np.int64(-1)  # typed, not a literal: one compiled signature for play_dealt
    for j in range(count):
        i = start + j
        first = (i % K) == 0
        li = j if log_on else 0
        rng = deal_game(seed, i, plan, leaf, slots, hands)
        winner, nl, srng = play_dealt(hands, rng, search_key(seed, i), first, winner, prm, pol, budgets, wts, st,
                                      flags, acls, amin, counts, cand, ccls, meta[j], seat[j], log[li], log_on, five)
        if log_on:
            nlog[j] = nl


@njit(cache=True)
def _deal_state(seed, index, players, plan, leaf):
    slots = np.zeros(16, np.uint64)
    hands = np.zeros(8, np.uint64)
    state = deal_game(seed, index, plan, leaf, slots, hands)
    return hands[:players].copy(), state


# ----------------------------------------------------------------------------------
# Python API
# ----------------------------------------------------------------------------------

def policy_codes(policies, players: int) -> np.ndarray:
    """Policies as int64 codes per seat (see :func:`simcore.framework.tasks.policy_codes`)."""
    return _policy_codes(policies, players, POLICIES)


def policy_arrays(policies, players: int):
    """Policy codes and search budgets per seat; budgets are ``None`` when no seat
    searches, so that the kernels compiled for such runs leave the search out."""
    pol = policy_codes(policies, players)
    return pol, seat_budgets(pol, policies, players, POL_SEARCH)


def seat_weights(weights, players: int, policies=None, game: str = "tienlen") -> np.ndarray:
    """Each seat's ``learned`` weights as the kernels take them, float64[players,
    N_FEATURES]: ``weights`` for every seat (one row) or per seat; None: the shipped
    model of ``game`` (the engine's profile: ``rules.GAME``, :data:`LEARNED_MODULES`),
    except for seats whose policy is ``learned:FILE`` (that file's weights)."""
    w = policy_weights(game) if weights is None else np.asarray(weights, np.float64)
    if w.ndim == 1:
        w = np.tile(w, (players, 1))
    if isinstance(policies, str):
        policies = [policies] * players
    if weights is None and isinstance(policies, (list, tuple)):
        for s, p in enumerate(policies):
            if isinstance(p, str) and p.startswith("learned:"):
                w[s] = model_weights(p.partition(":")[2])
    if w.shape != (players, N_FEATURES):
        raise ValueError(f"learned weights must have shape ({N_FEATURES},) or ({players}, {N_FEATURES}), got {w.shape}")
    return np.ascontiguousarray(w)


@functools.lru_cache(maxsize=8)
def model_weights(path: str) -> np.ndarray:
    """The weights of the model file ``path`` (``learned:FILE``), float64[N_FEATURES]."""
    from cardsim.simcore.tienlen.learned import read_weights

    return read_weights(path)


#: The module of each profile's shipped ``learned`` model (``WEIGHTS_FILE``), by ``rules.GAME``.
LEARNED_MODULES = {"tienlen": "cardsim.simcore.tienlen.learned", "bigtwo": "cardsim.simcore.bigtwo.learned"}


@functools.lru_cache(maxsize=len(LEARNED_MODULES))
def policy_weights(game: str = "tienlen") -> np.ndarray:
    """The learned policy's weights, float64[N_FEATURES], from the shipped model file of
    ``game`` (read once per process; do not modify the array)."""
    import importlib

    from cardsim.simcore.tienlen.learned import read_weights

    return read_weights(importlib.import_module(LEARNED_MODULES[game]).WEIGHTS_FILE)


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
               games_per_match: int = 1, n_blocks: int | None = None, weights=None) -> dict[str, np.ndarray]:
    """Play games ``start .. start+count-1`` of run ``seed``; one row per game.

    ``start`` must be a multiple of ``games_per_match`` (a match boundary); the last match
    may be cut by ``count``. ``policies``: a policy name/code for every seat or one per
    seat (``random``, ``greedy``, ``heuristic``, ``search`` / ``search:N``). Matches run
    in parallel (:func:`.blocks.run_blocks` over ``n_blocks`` blocks of whole matches); results do not
    depend on the blocks or threads. Columns and dtypes: see the module docstring.
    ``weights``: the ``learned`` seats' weights, float64[N_FEATURES] for every seat or
    float64[players, N_FEATURES] per seat (default: the shipped model).
    """
    K = int(games_per_match)
    if start % K:
        raise ValueError(f"chunk start {start} is not a match boundary (games_per_match={K})")
    prm = kernel_params(rules, K)
    pol, budgets = policy_arrays(policies, rules.players)
    wts = seat_weights(weights, rules.players, policies, rules.GAME)
    plan, leaf = deal_plan(rules.players, rules.cards_per_player)
    n_matches = -(-count // K)
    meta = np.zeros((count, N_META), np.int16)
    seat = np.zeros((count, N_SEAT, rules.players), np.int16)
    log = np.zeros((1, 1, LOG_WIDTH), np.int64)
    nlog = np.zeros(1, np.int64)

    def run_block(m0, m1):
        g0, g1 = m0 * K, min(m1 * K, count)
        play_block(np.uint64(seed), np.int64(start + g0), np.int64(g1 - g0), prm, pol, budgets, wts, plan, leaf,
                   meta[g0:g1], seat[g0:g1], log, nlog, False, profile_arg(prm))

    run_blocks(run_block, n_matches, n_blocks)
    return _columns(start, count, K, rules.players, meta, seat)


def play_logged(seed: int, start: int, count: int, rules: TienLenRules, policies,
                games_per_match: int = 1):
    """Like :func:`play_chunk` (serial) plus the kernel's move log of every game:
    ``(columns, log int64[count, LOG_CAP, LOG_WIDTH], nlog int64[count])``."""
    K = int(games_per_match)
    if start % K:
        raise ValueError("start must be a match boundary")
    prm = kernel_params(rules, K)
    pol, budgets = policy_arrays(policies, rules.players)
    wts = seat_weights(None, rules.players, policies, rules.GAME)
    plan, leaf = deal_plan(rules.players, rules.cards_per_player)
    meta = np.zeros((count, N_META), np.int16)
    seat = np.zeros((count, N_SEAT, rules.players), np.int16)
    log = np.zeros((count, LOG_CAP, LOG_WIDTH), np.int64)
    nlog = np.zeros(count, np.int64)
    play_block(np.uint64(seed), np.int64(start), np.int64(count), prm, pol, budgets, wts, plan, leaf, meta, seat,
               log, nlog, True, profile_arg(prm))
    return _columns(start, count, K, rules.players, meta, seat), log, nlog


@njit(cache=True)
def _play_hands_kernel(given, state, search_state, first, prev_winner, prm, pol, budgets, wts, meta, seat, log, five):
    hands = np.zeros(8, np.uint64)
    hands[:given.shape[0]] = given
    st = np.zeros(ST_SIZE, np.int64)
    flags = np.zeros(8, np.int64)
    acls = np.zeros(N_CLASSES, np.int64)
    amin = np.zeros(N_CLASSES, np.int64)
    counts = np.zeros(N_CLASSES, np.int64)
    cand = np.zeros(CAND_CAP, np.uint64)
    ccls = np.zeros(CAND_CAP, np.int64)
    winner, nl, srng = play_dealt(hands, np.uint64(state), np.uint64(search_state), first, prev_winner, prm, pol,
                                  budgets, wts, st, flags, acls, amin, counts, cand, ccls, meta, seat, log,
                                  np.bool_(True), five)
    return nl


def play_hands(hands, rules: TienLenRules, policies, first: bool = True, prev_winner: int = -1,
               state: int = 0, search_state: int = 0):
    """Play one game from given hands (masks or card text like ``"3S 4H"``), for tests and
    what-if studies. ``first``: a match's first game (lowest card leads and must be played);
    otherwise ``prev_winner`` leads. ``state``: RNG state for random seats;
    ``search_state``: RNG state of the search seats. Returns ``(row dict, text lines)``."""
    from cardsim.simcore.tienlen.cards import parse_cards

    masks = np.array([parse_cards(h, rules.suit_order) if isinstance(h, str) else int(h) for h in hands], np.uint64)
    if len(masks) != rules.players:
        raise ValueError(f"need {rules.players} hands")
    prm = kernel_params(rules, 1)
    pol, budgets = policy_arrays(policies, rules.players)
    wts = seat_weights(None, rules.players, policies, rules.GAME)
    meta = np.zeros((1, N_META), np.int16)
    seat = np.zeros((1, N_SEAT, rules.players), np.int16)
    log = np.zeros((LOG_CAP, LOG_WIDTH), np.int64)
    nl = _play_hands_kernel(masks, np.uint64(state), np.uint64(search_state), bool(first), np.int64(prev_winner),
                            prm, pol, budgets, wts, meta[0], seat[0], log, profile_arg(prm))
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
