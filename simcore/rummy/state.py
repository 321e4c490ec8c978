"""The round state of the rummy kernels: kernel parameters, the state's arrays and scalar fields, phases.

See :mod:`cardsim.simcore.rummy.engine` for what the fields mean and how a round steps
through its phases.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.framework.config import Rules, param_layout

# ----------------------------------------------------------------------------- parameters
#: The kernel parameter vector (shared by both games; values per game in :func:`kernel_params`).
PARAMS = param_layout(Rules, (), extras=("players", "game", "rounds", "claims", "penalty", "max_claims",
                                          "discarder_claims", "joker_swap", "same_turn_layoff", "minus10",
                                          "extend", "max_turns", "deck", "exact_laydown", "laydown_table",
                                          "exact_close", "laydown_budget"))
(P_PLAYERS, P_GAME, P_ROUNDS, P_CLAIMS, P_PENALTY, P_MAXCLAIMS, P_DISC_CLAIM, P_SWAP, P_SAME_TURN,
 P_MINUS10, P_EXTEND, P_MAXTURNS, P_DECK, P_EXACT, P_TABLE, P_CLOSE, P_BUDGET) = (PARAMS[n] for n in PARAMS)
GAME_LOBA, GAME_CONTINENTAL = 0, 1
DEFAULT_MAX_TURNS = 400

MAXM = 16  # melds on the table (<= 5 players x 3)
MAXC = 32  # cards in one meld

# per-seat fields, scalars, phases
F_DOWN, F_DIST, F_NCLAIMS = range(3)
N_SEATF = 3  # the round's per-seat fields (the deal clears them)
#: the match context, set before each round and kept by the deal: the seat's match total before the round
F_TOTAL = N_SEATF
N_SEAT_ROWS = N_SEATF + 1
(V_P, V_PHASE, V_NPILE, V_LIVE, V_LAST_DISC, V_SP, V_NM, V_TURNS, V_RESH, V_CAPPED, V_WENT_OUT, V_LAID_NOW,
 V_TOP, V_ASK, V_K, V_M, V_H, V_OUT_AT_ONCE) = range(18)
N_SV = 18  # the round's scalars (the deal clears them)
#: match context kept by the deal: the rounds still to play after this one
V_ROUNDS_LEFT = N_SV
N_SV_ROWS = N_SV + 1
PH_TAKE, PH_CLAIM, PH_LAYDOWN, PH_LAYOFF, PH_DISCARD, PH_END = range(6)
LO_STOP, LO_GREEDY = -1, -2



def kernel_params(rules, max_turns: int = DEFAULT_MAX_TURNS) -> np.ndarray:
    """The int64 parameter vector (layout :data:`PARAMS`) of a Loba or Continental rules object."""
    cont = getattr(rules, "GAME", "") == "continental"
    extras = {"rounds": len(rules.rounds()), "deck": 104 + rules.deck_jokers(), "max_turns": max_turns}
    if cont:
        extras.update(game=GAME_CONTINENTAL, penalty=rules.claim_penalty_cards, max_claims=rules.max_claims_per_hand,
                      discarder_claims=1, joker_swap=int(bool(rules.joker_swap)), same_turn_layoff=1, minus10=1,
                      extend=1)
    else:
        extras.update(game=GAME_LOBA, penalty=1, max_claims=rules.max_claims_per_round, discarder_claims=0,
                      joker_swap=0, same_turn_layoff=0, minus10=0, extend=0,
                      exact_laydown=int(bool(rules.exact_go_out)), laydown_table=0, exact_close=0)
    # parameters named like a switch of the game (players, claims, Continental's joker_swap) come from it
    return rules.encode_params(PARAMS, {k: v for k, v in extras.items() if k not in rules.SWITCHES})


# ----------------------------------------------------------------------------- state
@njit(cache=True, _nrt=True)
def new_state(P, D):
    """An empty round state for ``P`` seats and a pack of ``D`` cards (see the module docstring)."""
    return (np.zeros(P, np.uint64), np.zeros(P, np.uint64), np.zeros(P, np.int64), np.zeros((N_SEAT_ROWS, P), np.int64),
            np.zeros((P, 53), np.int64), np.zeros((MAXM, 6), np.int64), np.zeros((MAXM, MAXC), np.int64),
            np.zeros(MAXM, np.int64), np.zeros(MAXM, np.int64), np.zeros(D + 1, np.int64), np.zeros(D, np.int64),
            np.zeros(N_SV_ROWS, np.int64))


@njit(cache=True, _nrt=False)
def copy_state(dst, src):
    """Copy state ``src`` into ``dst`` (same shapes; element loops: an array-to-array slice
    assignment needs numba's reference counting, which these kernels leave out)."""
    for i in range(src[0].shape[0]):
        dst[0][i] = src[0][i]
        dst[1][i] = src[1][i]
        dst[2][i] = src[2][i]
    for a, b in ((dst[3], src[3]), (dst[4], src[4])):
        for i in range(b.shape[0]):
            for j in range(b.shape[1]):
                a[i, j] = b[i, j]
    nm = src[11][V_NM]
    for i in range(nm):
        for j in range(src[5].shape[1]):
            dst[5][i, j] = src[5][i, j]
        for j in range(src[6].shape[1]):
            dst[6][i, j] = src[6][i, j]
        dst[7][i] = src[7][i]
        dst[8][i] = src[8][i]
    for a, b in ((dst[9], src[9]), (dst[10], src[10]), (dst[11], src[11])):
        for i in range(b.shape[0]):
            a[i] = b[i]


@njit(cache=True, _nrt=False)
def clear_state(st):
    """Zero every array of state ``st`` in place: :func:`new_state` without allocating."""
    for a in (st[0], st[1]):
        for i in range(a.shape[0]):
            a[i] = 0
    for a in (st[2], st[7], st[8], st[9], st[10], st[11]):
        for i in range(a.shape[0]):
            a[i] = 0
    for a in (st[3], st[4], st[5], st[6]):
        for i in range(a.shape[0]):
            for j in range(a.shape[1]):
                a[i, j] = 0


# per-round info columns (``info``) and per-seat result rows (``seatout``)
I_WENT_OUT, I_TURNS, I_RESHUFFLES, I_CAPPED, I_CLOSED1 = range(5)
N_INFO = 5
S_CLAIMS, S_DOWN, S_POINTS = range(3)
N_SEAT = 3
