"""Tiến Lên search positions for tests and benchmarks: the game at a search seat's n-th
decision, the search's decision there and the opponent models' update (probes, kept out
of the kernel modules: they call :mod:`.play` and :mod:`.search`, which never call them)."""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.primitives.movelog import LOG_WIDTH
from cardsim.simcore.tienlen.cards import parse_cards
from cardsim.simcore.tienlen.engine import (N_META, N_SEAT, RUN_DONE, ST_SIZE, ST_TURN, decision_options, run_turns,
                                            start_game)
from cardsim.simcore.tienlen.rules import P_PLAYERS
from cardsim.simcore.tienlen.moves import N_CLASSES
from cardsim.simcore.tienlen.play import policy_arrays, seat_weights
from cardsim.simcore.tienlen.rules import kernel_params, profile_arg
from cardsim.simcore.tienlen.policies import POL_SEARCH
from cardsim.simcore.tienlen.search import (N_MODELS, any_fitted, decide_pending, observe_decision,
                                            search_decision)

_U0 = np.uint64(0)


@njit(cache=True)
def position_kernel(given, first, prev_winner, prm, pol, budgets, wts, seat, nth, srng, st, hands, opp_ll, five=None):
    """Play from ``given`` hands until the ``nth`` (0-based) decision of ``seat`` (a
    ``search`` seat; the search decides the earlier ones). Fills ``st``/``hands`` and
    the seats' model log-likelihoods ``opp_ll``; returns whether the position was
    reached and the search stream's state there."""
    P = prm[P_PLAYERS]
    hands[:] = 0
    hands[:given.shape[0]] = given
    flags = np.zeros(8, np.int64)
    meta = np.zeros(N_META, np.int16)
    seat_stats = np.zeros((N_SEAT, P), np.int16)
    log = np.zeros((1, LOG_WIDTH), np.int64)
    acls = np.zeros(N_CLASSES, np.int64)
    amin = np.zeros(N_CLASSES, np.int64)
    counts = np.zeros(N_CLASSES, np.int64)
    cand = np.zeros(512, np.uint64)
    ccls = np.zeros(512, np.int64)
    start_game(hands, first, prev_winner, prm, st, flags, meta, seat_stats, log, np.bool_(False))
    k = 0
    rng = _U0
    observe = any_fitted(pol, budgets)
    while True:
        outcome, rng, nl = run_turns(st, hands, prm, pol, wts, rng, seat_stats, log, np.int64(0), np.bool_(False),
                                     acls, amin, counts, cand, ccls, np.int64(-1), observe, five)
        if outcome == RUN_DONE:
            return False, srng
        turn = st[ST_TURN]
        if turn == seat and pol[turn] == POL_SEARCH:
            if k == nth:
                return True, srng
            k += 1
        rng, srng, nl = decide_pending(st, hands, prm, pol, budgets, wts, rng, srng, opp_ll, observe, seat_stats,
                                       log, np.int64(0), np.bool_(False), acls, amin, counts, cand, ccls, five)


@njit(cache=True)
def decide_kernel(st, hands, prm, budget, srng, opp_ll, wts, five=None):
    acls = np.zeros(N_CLASSES, np.int64)
    amin = np.zeros(N_CLASSES, np.int64)
    counts = np.zeros(N_CLASSES, np.int64)
    cand = np.zeros(512, np.uint64)
    ccls = np.zeros(512, np.int64)
    return search_decision(st, hands, prm, budget, srng, acls, amin, counts, cand, ccls, opp_ll, wts, five)


def search_position(hands, rules, policies, seat: int, nth: int, search_state: int = 0, first: bool = True,
                    prev_winner: int = -1):
    """The game state at the ``nth`` decision of ``seat`` (a ``search`` seat), playing
    from ``hands`` (masks or card text) with ``policies``: ``(st, hands, search_state)``
    as arrays (``st`` int64[ST_SIZE], ``hands`` uint64[8]), or ``None`` if the game
    ends first."""
    given = np.array([parse_cards(h, rules.suit_order) if isinstance(h, str) else int(h) for h in hands], np.uint64)
    prm = kernel_params(rules)
    pol, budgets = policy_arrays(policies, rules.players)
    st = np.zeros(ST_SIZE, np.int64)
    out = np.zeros(8, np.uint64)
    opp_ll = np.zeros((rules.players, rules.players, N_MODELS))
    ok, srng = position_kernel(given, bool(first), np.int64(prev_winner), prm, pol, budgets,
                               seat_weights(None, rules.players, policies, rules.GAME), np.int64(seat), np.int64(nth),
                               np.uint64(search_state), st, out, opp_ll, profile_arg(prm))
    return (st, out, int(srng), opp_ll) if ok else None


def decide(st, hands, rules, budget: int, search_state: int, opp_ll=None):
    """The search's decision at state ``(st, hands)``: ``(mask, class, rollouts)``
    (class -1 = pass); the state is not changed. ``budget``: the budget word (see
    :func:`search_decision`); ``opp_ll``: the seats' model log-likelihoods (default:
    no evidence: the models at their prior, :data:`MODEL_PRIOR`)."""
    if opp_ll is None:
        opp_ll = np.zeros((rules.players, rules.players, N_MODELS))
    prm = kernel_params(rules)
    wts = seat_weights(None, rules.players, None, rules.GAME)
    move, mcls, _, used = decide_kernel(st.copy(), hands.copy(), prm, np.int64(budget), np.uint64(search_state),
                                        np.asarray(opp_ll, np.float64).copy(), wts, profile_arg(prm))
    return int(move), int(mcls), int(used)


@njit(cache=True)
def observe_kernel(st, hands, prm, pol, budgets, move, mcls, srng, opp_ll, five=None):
    acls = np.zeros(N_CLASSES, np.int64)
    amin = np.zeros(N_CLASSES, np.int64)
    counts = np.zeros(N_CLASSES, np.int64)
    cand = np.zeros(512, np.uint64)
    ccls = np.zeros(512, np.int64)
    n_acl, can_pass, is_passed = decision_options(st, prm, acls, amin, five)
    return observe_decision(st, hands, prm, pol, budgets, move, mcls, n_acl, can_pass, acls, amin, counts, cand, ccls,
                            srng, opp_ll, five)


def observe(st, hands, rules, policies, move: int, mcls: int, search_state: int, opp_ll=None):
    """The model log-likelihoods after the seat to move at ``(st, hands)`` decides
    ``(move, mcls)`` (class -1 = pass), as every fitted search seat of ``policies``
    scores it: ``(opp_ll, search_state)``; the inputs are not changed."""
    P = rules.players
    pol, budgets = policy_arrays(policies, P)
    ll = np.zeros((P, P, N_MODELS)) if opp_ll is None else np.asarray(opp_ll, np.float64).copy()
    prm = kernel_params(rules)
    srng = observe_kernel(st.copy(), hands.copy(), prm, pol, budgets, np.uint64(move), np.int64(mcls),
                          np.uint64(search_state), ll, profile_arg(prm))
    return ll, int(srng)
