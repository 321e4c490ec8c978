"""The rummy turn loop and play entry points: a round driven by the seats' policies, whole games, chunks of games.

One shared game core; the two games differ only by a parameter vector (built by
:func:`cardsim.simcore.rummy.state.kernel_params` from
:class:`~cardsim.simcore.rummy.rules.LobaRules` or
:class:`~cardsim.simcore.rummy.rules.ContinentalRules`) and the meld rules ``mp`` of
:mod:`cardsim.simcore.rummy.melds`. The state and its steps are in
:mod:`cardsim.simcore.rummy.engine`, the policies in :mod:`cardsim.simcore.rummy.policies`
and :mod:`cardsim.simcore.rummy.search`.

Randomness
----------
Round ``r`` (of ``R``) of game ``i`` is a pure function of ``(seed, i, r)``: the pack is
fully shuffled (:func:`simcore.primitives.rng.shuffle_prefix_planned`) from the stream
``game_key(seed, i * R + r)`` (the stream the deal statistics use) and the random
policy, stock reshuffles and everything else of that round keep drawing from the same
stream. Rounds are independent, so a game or a round can be replayed alone and results
do not depend on chunking or threads.

Round flow (shared core)
------------------------
Seat ``s`` gets ``deck[s*H:(s+1)*H]``, ``deck[P*H]`` starts the discard pile, the rest
is the stock. Seat ``r % P`` plays first in round ``r``; play goes ``s -> s+1``.
A turn: **take** the live top of the pile or the top of the stock; if the player took
from the stock and claims are on, the refused pile card may be **claimed** (the seats
after the player in turn are asked in turn order, the first that wants it gets it plus
the penalty card(s) from the stock; Loba: the discarder may not buy back, Continental:
the discarder may); then **lay down** (exactly the contract: Loba melds of 3/4 cards via
``best_laydown(extend=0)``; Continental the contract's combinations lengthened by the
extra cards they can take, the lay-down leaving the fewest cards, then points:
:func:`cardsim.simcore.rummy.laydown.exact_laydown`, or the old greedy
``best_laydown(extend=1)`` with ``exact_laydown=off``; Loba's final round, whose contract
uses every dealt card, see below); **lay off** on any table meld (Loba: only on turns
after the lay-down turn; Continental: the same turn too, and a natural may replace a
joker of an escalera when the released joker is laid off at once on an escalera);
**discard**. A player without cards (after lay-offs or the discard) goes out and ends
the round. Only the most recent discard (or the up-card) is live: a card exposed after
a take or a claim and a covered card can never be taken. When the stock is empty the
pile minus its top is shuffled into a new stock. A round that reaches ``max_turns``
turns (or where no card can be drawn) is *capped*: nobody went out, everyone scores
their hand.

Loba's final round (any round whose contract uses every dealt card: 2E1T with 11 cards,
3E with 12) ends at the first lay-down: a hand of contract + 1 cards lays down exactly the
contract and discards the last card; a hand with more cards (buys) may lay down only
when some lay-down lengthened by same-turn lay-offs leaves at most one card (the exact
search of :mod:`cardsim.simcore.rummy.laydown`; ``exact_go_out=off``: the old greedy
extend mode): the exact contract melds go on the table, then the extra cards as same-turn
lay-offs on them (:func:`cardsim.simcore.rummy.engine.laydown_out`), and the player goes out.

Entry points: :func:`play_chunk` (bulk, parallel), :func:`play_logged` (serial, plus the
move log), :func:`round_state` (final state of one round, for checks),
:func:`play_round_from_deck` (a round from a given pack, for hand-built cases). Tables
and columns: see :mod:`cardsim.simcore.rummy.tasks`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.primitives.blocks import run_blocks
from cardsim.simcore.primitives.compile_parts import compile_parts
from cardsim.simcore.primitives.rng import game_key, search_key, shuffle_plan_host, shuffle_prefix_planned
from cardsim.simcore.rummy.cards import make_deck
from cardsim.simcore.rummy.engine import advance, apply_decision, deal_round, finish_round, reach_markers
from cardsim.simcore.rummy.log import L_ROUND, LOG_CAP, _log, format_log
from cardsim.simcore.rummy.luck import LUCK_NAMES, N_LUCK
from cardsim.simcore.rummy.policies import N_FEATURES, POL_HEURISTIC, POL_LEARNED, POL_SEARCH, POLICIES, choose
from cardsim.simcore.rummy.search import search_choose
from cardsim.simcore.rummy.state import (DEFAULT_MAX_TURNS, I_CAPPED, I_CLOSED1, I_RESHUFFLES, I_TURNS,  # noqa: F401
                                         I_WENT_OUT, N_INFO, N_SEAT, P_CLAIMS, P_EXACT, P_EXTEND, P_PLAYERS, P_ROUNDS,
                                         S_CLAIMS, S_DOWN, S_POINTS, V_NM, V_NPILE, V_ROUNDS_LEFT, V_SP, F_TOTAL,
                                         clear_state, kernel_params, new_state)
from cardsim.simcore.framework.tasks import learned_seat_weights, policy_budgets, seat_budgets
from cardsim.simcore.framework.tasks import policy_codes as _policy_codes


# ----------------------------------------------------------------------------- kernels
@njit(cache=True, _nrt=False, inline="always")
def play_round(st, state, sstate, first, k, m, H, prm, mp, pol, bud, cseat, reach, wts, seatout, info, log, nl,
               log_on, luck):
    """Play one round from the shuffled pack in ``st``'s ``deck``: the seats' policies decide
    (:func:`cardsim.simcore.rummy.policies.choose`, or the search), the engine applies.
    ``bud``: search budgets per seat, or None when no seat searches; ``cseat`` (claim seats):
    None when the rules have no claims; ``reach``: the code the rules and policies can reach
    (:func:`cardsim.simcore.rummy.engine.reach_markers`); ``wts``: the learned seats' weights
    (float64[P, N_FEATURES]) or None when no seat is learned (the learned policy is then not
    compiled); ``luck``: the draws' luck, float64[P, N_LUCK] added to (:mod:`.luck`; no rows: not
    recorded). Fills
    ``seatout[N_SEAT, P]`` and ``info[N_INFO]``. Returns ``(state, search state, log rows)``."""
    nl = deal_round(st, first, k, m, H, prm, mp, pol, np.int64(POL_HEURISTIC), log, nl, log_on)
    while True:
        state, nl, q = advance(st, prm, mp, cseat, state, log, nl, log_on, luck)
        if q < 0:
            break
        if bud is None:
            # No search seat: numba prunes the other branch at compile time (tested on the
            # argument itself), so runs without search never compile the search.
            state, d = choose(pol[q], st, q, prm, mp, state, reach[3], wts)
        elif pol[q] == POL_SEARCH:
            sstate, d = search_choose(st, q, prm, mp, cseat, reach, bud[q], sstate)
        else:
            state, d = choose(pol[q], st, q, prm, mp, state, reach[3], wts)
        state, nl = apply_decision(st, d, prm, mp, cseat, reach, state, log, nl, log_on, luck)
    nl = finish_round(st, prm, seatout, info, log, nl, log_on)
    return state, sstate, nl


@njit(cache=True)
def _shuffle(seed, index, r, R, deck, deck_base, sizes, products):
    for i in range(deck.shape[0]):  # a loop: an array-to-array slice assignment compiles its error messages
        deck[i] = deck_base[i]
    state = game_key(seed, index * R + r)
    return shuffle_prefix_planned(state, deck, sizes, products)


@njit(cache=True, nogil=True, _nrt=False)
def _play_block(st, seed, start, g0, count, prm, mp, rk, rm, rh, pol, bud, cseat, reach, wts, deck_base, sizes,
                products, info, seatout, log, log_on, luck):
    """Games ``start + g0 .. start + g0 + count - 1`` serially, game ``g`` into rows
    ``g*R .. g*R+R-1`` of ``info[:, N_INFO]`` / ``seatout[:, N_SEAT, P]`` and, when ``luck``
    (float64[games, P, N_LUCK] or [1, 0, N_LUCK]: not recorded) has seats, its draws' luck
    into ``luck[g]``; returns the move
    log's row count (one game when ``log_on``). ``st``: a round state of the block's own
    (:func:`new_state`), cleared for every game. GIL released:
    :func:`cardsim.simcore.primitives.blocks.run_blocks` runs blocks on threads. The game loop is
    written out here rather than in a kernel of its own: every kernel level compiles the
    whole engine again (see docs/architecture.md); no reference counting in the loop (the
    caller allocates)."""
    P = prm[P_PLAYERS]
    R = prm[P_ROUNDS]
    nl = np.int64(0)
    for g in range(g0, g0 + count):
        index = start + g
        row0 = g * R
        nl = np.int64(0)
        clear_state(st)
        lk = luck[min(g, luck.shape[0] - 1)]  # one row per game, or the empty one
        for r in range(R):
            # the match context the search plays for (the deal keeps it): totals so far, rounds left
            for q in range(P):
                st[3][F_TOTAL, q] = 0
                for r0 in range(r):
                    st[3][F_TOTAL, q] += seatout[row0 + r0, S_POINTS, q]
            st[11][V_ROUNDS_LEFT] = R - 1 - r
            state = _shuffle(seed, index, r, R, st[10], deck_base, sizes, products)
            sstate = search_key(seed, index * R + r)
            nl = _log(log, nl, log_on, L_ROUND, r % P, r, 0, 0, 0)
            res = play_round(st, state, sstate, r % P, rk[r], rm[r], rh[r], prm, mp, pol, bud, cseat, reach, wts,
                             seatout[row0 + r], info[row0 + r], log, nl, log_on, lk)
            nl = res[2]
    return nl


@njit(cache=True)
def _round_kernel(state, sstate, deck, first, k, m, H, prm, mp, pol, bud, cseat, reach, wts, log, log_on, totals,
                  left):
    P = prm[P_PLAYERS]
    st = new_state(P, deck.shape[0])
    st[10][:] = deck
    for q in range(P):
        st[3][F_TOTAL, q] = totals[q]
    st[11][V_ROUNDS_LEFT] = left
    seatout = np.zeros((N_SEAT, P), np.int64)
    info = np.zeros(N_INFO, np.int64)
    state, sstate, nl = play_round(st, state, sstate, first, k, m, H, prm, mp, pol, bud, cseat, reach, wts, seatout,
                                   info, log, np.int64(0), log_on, np.zeros((0, N_LUCK)))
    return st, seatout, info, nl


@njit(cache=True)
def _round_deck(seed, index, r, R, deck_base, sizes, products):
    deck = deck_base.copy()
    state = _shuffle(seed, index, r, R, deck, deck_base, sizes, products)
    return deck, state


# ----------------------------------------------------------------------------- Python side
def is_continental(rules) -> bool:
    return getattr(rules, "GAME", "") == "continental"


def rounds_of(rules):
    """``[(label, k, m, cards dealt)]`` of the game's rounds."""
    return list(rules.rounds())


def policy_codes(policies, players: int) -> np.ndarray:
    """Policies as int64 codes per seat (see :func:`simcore.framework.tasks.policy_codes`)."""
    return _policy_codes(policies, players, POLICIES)


def claim_mask(claim_seats, players: int) -> np.ndarray:
    """``claim_seats``: None (all seats), or an iterable of seats allowed to claim."""
    if claim_seats is None:
        return np.ones(players, np.int64)
    m = np.zeros(players, np.int64)
    for s in claim_seats:
        s = int(s)
        if not 0 <= s < players:
            raise ValueError(f"claim seat {s} out of range 0..{players - 1}")
        m[s] = 1
    return m


def seat_weights(codes, policies, rules, weights=None):
    """The ``learned`` seats' weights as the kernels take them, float64[players, N_FEATURES],
    or None when no seat is learned (see :func:`cardsim.simcore.framework.tasks.learned_seat_weights`;
    the shipped model is the game's own)."""
    from cardsim.simcore.rummy.learned import read_weights, weights_file

    return learned_seat_weights(np.asarray(codes) == POL_LEARNED, policies, N_FEATURES, read_weights,
                                weights_file(rules.GAME), weights)


class _Setup:
    def __init__(self, rules, policies, claim_seats, max_turns=DEFAULT_MAX_TURNS, weights=None):
        self.rules = rules
        self.P = rules.players
        self.rounds = rounds_of(rules)
        self.R = len(self.rounds)
        self.prm = kernel_params(rules, max_turns)
        self.mp = tuple(int(x) for x in rules.meld_params())
        self.rk = np.array([k for _, k, _, _ in self.rounds], np.int64)
        self.rm = np.array([m for _, _, m, _ in self.rounds], np.int64)
        self.rh = np.array([h for _, _, _, h in self.rounds], np.int64)
        self.pol = policy_codes(policies, self.P)
        self.bud = seat_budgets(self.pol, policies, self.P, POL_SEARCH)
        self.cseat = claim_mask(claim_seats, self.P)
        # None when the rules have no claims; markers of the code the rules and policies can
        # reach: the kernels compiled for a run leave the rest out (results do not depend on it)
        if not self.prm[P_CLAIMS]:
            self.cseat = None
        self.reach = reach_markers(self.prm, self.pol)
        self.wts = seat_weights(self.pol, policies, rules, weights)
        self.deck_base = make_deck(rules.deck_jokers()).astype(np.int64)
        D = self.deck_base.shape[0]
        self.sizes, self.products = shuffle_plan_host(D, D - 1)
        self.labels = [self.contract_label(lab) for lab, *_ in self.rounds]

    def contract_label(self, label: str) -> str:
        return label.split("_", 1)[1] if label.startswith("r") and "_" in label else label

    def round_state(self):
        """A new, zeroed round state for these rules (:func:`new_state`)."""
        return new_state.py_func(self.P, self.deck_base.shape[0])  # NumPy: no kernel to load

    def kernel_parts(self):
        """The play kernels' independent parts for a first run's two processes
        (:func:`cardsim.simcore.primitives.compile_parts.compile_parts`), argument types as
        :func:`play_round` calls them. The other process compiles the lay-down (the largest
        piece of the decision step), then the rest of the decision step and the search's own
        step. This one compiles first what the other meets next, so that it finds them cached
        (with a search seat the search's pieces, else the decision step's small ones), then
        the deal, the turn and the block kernel's small pieces, so that the block kernel's
        own compile (last, alone) has less to do. A first search run takes about 15% less
        wall-clock than with the decision step and search alone there (`python
        benchmarks/bench_cold_start.py --only play --games loba,continental`)."""
        from numba import typeof, types

        from cardsim.simcore.rummy.claims import apply_claim
        from cardsim.simcore.rummy.decisions import apply_layoff_decision, apply_take
        from cardsim.simcore.rummy.laydown_apply import apply_laydown
        from cardsim.simcore.rummy.policies import choose_heuristic
        from cardsim.simcore.rummy.search import _sample_world, candidates, match_win_chance, peek_world

        st = self.round_state()
        S, i64, u64, yes = typeof(st), types.int64, types.uint64, types.boolean
        A, MP, LOG, CS = typeof(self.prm), typeof(self.mp), typeof(np.zeros((1, 6), np.int64)), typeof(self.cseat)
        RE = typeof(self.reach)
        LK = typeof(np.zeros((1, N_LUCK)))
        deal = (deal_round, (S, i64, i64, i64, i64, A, MP, A, i64, LOG, i64, yes))
        turn = (advance, (S, A, MP, CS, u64, LOG, i64, yes, LK))
        heuristic = (choose_heuristic, (S, i64, A, MP))
        decide = (apply_decision, (S, i64, A, MP, CS, RE, u64, LOG, i64, yes, LK))
        laydown = (apply_laydown, (S, i64, A, MP, CS, RE, LOG, i64, yes))
        take = (apply_take, (S, i64, A, MP, u64, LOG, i64, yes, LK))
        claim = [(apply_claim, (S, i64, A, MP, u64, LOG, i64, yes))] if self.cseat is not None else []  # else unused
        layoff = (apply_layoff_decision, (S, i64, A, MP, LOG, i64, yes))
        block = [(clear_state, (S,)),
                 (_shuffle, (u64, i64, i64, i64, typeof(st[10]), typeof(self.deck_base), typeof(self.sizes),
                             typeof(self.products))),
                 (finish_round, (S, A, typeof(np.zeros((1, 1), np.int64)), typeof(np.zeros(1, np.int64)), LOG, i64,
                                 yes))]
        # Continental's exact lay-down falls back on the greedy solver when its work budget runs
        # out (switch laydown_budget): compiled here first, the other process finds it cached
        # (a first `play continental` about 4 s shorter: performance.md, "First runs")
        greedy = []
        if is_continental(self.rules) and self.rules.exact_laydown:
            from cardsim.simcore.rummy.melds import best_laydown

            greedy = [(best_laydown, (u64, u64, i64, i64, i64, types.UniTuple(i64, 4), i64))]
        if self.bud is None:
            return [[*greedy, take, *claim, layoff, deal, turn, heuristic, *block], [laydown, decide]]
        search = [(candidates, (S, i64, A, MP, A)), (_sample_world, (S, i64, A, MP, S, u64, i64)),
                  (match_win_chance, (S, A, i64)), (peek_world, (S, S, u64))]
        return [greedy + search + [turn, deal, heuristic, *block],
                [laydown, take, *claim, layoff, decide, (search_choose, (S, i64, A, MP, CS, RE, i64, u64))]]

    def args(self):
        return (self.prm, self.mp, self.rk, self.rm, self.rh, self.pol, self.bud, self.cseat, self.reach, self.wts,
                self.deck_base,
                self.sizes, self.products)


def _match_results(info, seatout, count, R, P, continental):
    """Per-game totals, winner (lowest total; ties: most recent round won, then lowest seat)."""
    pts = seatout[:, S_POINTS, :].reshape(count, R, P)
    totals = pts.sum(axis=1)
    went = info[:, I_WENT_OUT].reshape(count, R)
    winner = np.zeros(count, np.int64)
    for g in range(count):
        t = totals[g]
        best = np.flatnonzero(t == t.min())
        w = int(best[0])
        if len(best) > 1:
            for r in range(R - 1, -1, -1):
                if went[g, r] in best:
                    w = int(went[g, r])
                    break
        winner[g] = w
    return totals, winner


def build_tables(start, count, setup, info, seatout) -> dict[str, dict[str, np.ndarray]]:
    """Column dicts of the ``hands`` and ``matches`` tables."""
    R, P = setup.R, setup.P
    cont = is_continental(setup.rules)
    games = np.arange(start, start + count, dtype=np.int64)
    hands = {
        "game": np.repeat(games, R),
        "round": np.tile(np.arange(1, R + 1, dtype=np.int8), count),  # 1-based, as the deal events (contract_r1_...)
        "contract": np.tile(np.array(setup.labels, dtype=object), count),
        "went_out": info[:, I_WENT_OUT].astype(np.int8),
        "turns": info[:, I_TURNS].astype(np.int16),
        "reshuffles": np.minimum(info[:, I_RESHUFFLES], 127).astype(np.int8),
        "capped": info[:, I_CAPPED].astype(bool),
    }
    hands["closed_in_one_turn"] = info[:, I_CLOSED1].astype(bool)
    for s in range(P):
        hands[f"claims_{s}"] = seatout[:, S_CLAIMS, s].astype(np.int8)
    for s in range(P):
        hands[f"laid_down_{s}"] = seatout[:, S_DOWN, s].astype(bool)
    for s in range(P):
        hands[f"points_{s}"] = seatout[:, S_POINTS, s].astype(np.int16)
    totals, winner = _match_results(info, seatout, count, R, P, cont)
    matches = {"game": games}
    for s in range(P):
        matches[f"total_{s}"] = totals[:, s].astype(np.int32)
    matches["winner"] = winner.astype(np.int8)
    claims = seatout[:, S_CLAIMS, :].reshape(count, R, P).sum(axis=1)
    for s in range(P):
        matches[f"claims_{s}"] = claims[:, s].astype(np.int16)
    went = info[:, I_WENT_OUT].reshape(count, R)
    if cont:
        closed = info[:, I_CLOSED1].reshape(count, R)
        for s in range(P):
            matches[f"minus10_{s}"] = ((went == s) & (closed == 1)).sum(axis=1).astype(np.int8)
    for s in range(P):
        matches[f"rounds_won_{s}"] = (went == s).sum(axis=1).astype(np.int8)
    return {"hands": hands, "matches": matches}


def play_chunk(seed: int, start: int, count: int, rules, policies="heuristic", claim_seats=None,
               n_blocks: int | None = None, max_turns: int = DEFAULT_MAX_TURNS, weights=None,
               draw_luck: bool | None = None):
    """Play games ``start .. start+count-1`` of run ``seed``.

    Returns ``{"hands": columns, "matches": columns}`` (numpy arrays; see
    :mod:`cardsim.simcore.rummy.tasks`). Games run in parallel over ``n_blocks`` blocks;
    results do not depend on blocks or threads. ``weights``: the ``learned`` seats' weights
    (see :func:`seat_weights`; None: the shipped model or the seat's ``learned:FILE``).
    ``draw_luck``: record the draws' luck (``draw_luck_NAME_s`` columns of ``matches``,
    :mod:`.luck`; default: when a seat searches; the games are the same either way).
    """
    st = _Setup(rules, policies, claim_seats, max_turns, weights)
    compile_parts(st.kernel_parts())
    info = np.zeros((count * st.R, N_INFO), np.int64)
    seatout = np.zeros((count * st.R, N_SEAT, st.P), np.int64)
    no_log = np.zeros((1, 6), np.int64)
    args = st.args()
    if draw_luck is None:
        draw_luck = st.bud is not None
    luck = np.zeros((count, st.P, N_LUCK)) if draw_luck else np.zeros((1, 0, N_LUCK))

    def run_block(g0, g1):
        _play_block(st.round_state(), np.uint64(seed), np.int64(start), np.int64(g0), np.int64(g1 - g0), *args, info,
                    seatout, no_log,
                    False, luck)

    run_blocks(run_block, count, n_blocks)
    tables = build_tables(start, count, st, info, seatout)
    if draw_luck:
        for f, name in enumerate(LUCK_NAMES):
            for s in range(st.P):
                tables["matches"][f"draw_luck_{name}_{s}"] = luck[:, s, f].copy()
    return tables


def play_logged(seed: int, index: int, rules, policies="heuristic", claim_seats=None,
                max_turns: int = DEFAULT_MAX_TURNS):
    """Game ``index`` (serial) with its move log: ``(tables, log rows int64[n, 6])``."""
    st = _Setup(rules, policies, claim_seats, max_turns)
    compile_parts(st.kernel_parts())
    info = np.zeros((st.R, N_INFO), np.int64)
    seatout = np.zeros((st.R, N_SEAT, st.P), np.int64)
    log = np.zeros((LOG_CAP, 6), np.int64)
    nl = _play_block(st.round_state(), np.uint64(seed), np.int64(index), np.int64(0), np.int64(1), *st.args(), info,
                     seatout, log, True, np.zeros((1, 0, N_LUCK)))
    if nl >= LOG_CAP:
        raise RuntimeError("move log overflow")
    return build_tables(index, 1, st, info, seatout), log[:nl].copy()


def _state_dict(res, log):
    st, seatout, info, nl = res
    from cardsim.simcore.rummy.cards import planes_cards
    h1, h2, hj, mrow, mcards, mlen, mown, pile, deck, sv = st[0], st[1], st[2], st[5], st[6], st[7], st[8], st[9], \
        st[10], st[11]
    nm, npile, sp = int(sv[V_NM]), int(sv[V_NPILE]), int(sv[V_SP])
    return {
        "hands": [planes_cards(int(h1[s]), int(h2[s]), int(hj[s])) for s in range(len(h1))],
        "melds": [[int(c) for c in mcards[i, :mlen[i]]] for i in range(nm)],
        "meld_rows": mrow[:nm].copy(), "meld_owner": mown[:nm].tolist(),
        "pile": [int(c) for c in pile[:npile]],
        "stock": [int(c) for c in deck[sp:]],
        "points": seatout[S_POINTS].tolist(), "claims": seatout[S_CLAIMS].tolist(),
        "laid_down": seatout[S_DOWN].tolist(),
        "went_out": int(info[I_WENT_OUT]), "turns": int(info[I_TURNS]),
        "reshuffles": int(info[I_RESHUFFLES]), "capped": bool(info[I_CAPPED]),
        "closed_in_one_turn": bool(info[I_CLOSED1]),
        "log": log[:nl].copy(),
    }


def round_state(seed: int, index: int, r: int, rules, policies="heuristic", claim_seats=None,
                max_turns: int = DEFAULT_MAX_TURNS, log_on: bool = True, totals=None) -> dict:
    """Round ``r`` of game ``index`` played alone (as in :func:`play_chunk`) with its final state:
    hands, table melds (cards), discard pile, stock, per-seat results and the move log.

    ``totals``: the seats' match totals before round ``r`` (int[P]), which a search seat plays
    for; None plays the earlier rounds to find them (only when a seat searches)."""
    st = _Setup(rules, policies, claim_seats, max_turns)
    if totals is None:
        totals = _totals_before(seed, index, r, rules, policies, claim_seats, max_turns, st)
    deck, state = _round_deck(np.uint64(seed), np.int64(index), np.int64(r), np.int64(st.R), st.deck_base,
                              st.sizes, st.products)
    _, k, m, H = st.rounds[r]
    log = np.zeros((LOG_CAP if log_on else 1, 6), np.int64)
    sstate = np.uint64(search_key(np.uint64(seed), np.int64(index * st.R + r)))
    res = _round_kernel(np.uint64(state), sstate, deck, np.int64(r % st.P), np.int64(k), np.int64(m), np.int64(H),
                        st.prm, st.mp, st.pol, st.bud, st.cseat, st.reach, st.wts, log, log_on,
                        np.asarray(totals, np.int64), np.int64(st.R - 1 - r))
    return _state_dict(res, log)


def _totals_before(seed, index, r, rules, policies, claim_seats, max_turns, setup) -> np.ndarray:
    """The seats' match totals before round ``r`` of game ``index`` (int64[P]); zeros when no
    seat searches or is learned (only they read them)."""
    totals = np.zeros(setup.P, np.int64)
    if setup.bud is not None or setup.wts is not None:
        for r0 in range(r):
            state = round_state(seed, index, r0, rules, policies, claim_seats, max_turns, False, totals)
            totals += np.asarray(state["points"], np.int64)
    return totals


def play_round_from_deck(deck, rules, r: int = 0, policies="heuristic", claim_seats=None, first: int = 0,
                         state: int = 0, max_turns: int = DEFAULT_MAX_TURNS, search_state: int = 1) -> dict:
    """Play round ``r``'s contract from a given pack order (card codes or texts; seat ``s`` gets
    ``deck[s*H:(s+1)*H]``, then the up-card, then the stock, drawn in order)."""
    from cardsim.simcore.rummy.cards import card_code
    st = _Setup(rules, policies, claim_seats, max_turns)
    codes = np.array([card_code(c) if isinstance(c, str) else int(c) for c in deck], np.int64)
    _, k, m, H = st.rounds[r]
    log = np.zeros((LOG_CAP, 6), np.int64)
    res = _round_kernel(np.uint64(state), np.uint64(search_state), codes, np.int64(first), np.int64(k), np.int64(m),
                        np.int64(H), st.prm, st.mp, st.pol, st.bud, st.cseat, st.reach, st.wts, log, True,
                        np.zeros(st.P, np.int64), np.int64(st.R - 1 - r))
    out = _state_dict(res, log)
    out["lines"] = format_log(out["log"], rules)
    return out




# ----------------------------------------------------------------------------- search checks
@njit(cache=True)
def _play_until(st, state, sstate, first, k, m, H, prm, mp, pol, bud, cseat, reach, wts, nth):
    """Play a round as :func:`play_round` (no log) and stop before the ``nth`` decision of a search
    seat. Returns ``(found, state, search state, deciding seat)``."""
    log = np.zeros((1, 6), np.int64)
    nl = np.int64(0)
    log_on = np.bool_(False)
    deal_round(st, first, k, m, H, prm, mp, pol, np.int64(POL_HEURISTIC), log, nl, log_on)
    no_luck = np.zeros((0, N_LUCK))
    seen = 0
    while True:
        state, nl, q = advance(st, prm, mp, cseat, state, log, nl, log_on, no_luck)
        if q < 0:
            return False, state, sstate, -1
        if pol[q] == POL_SEARCH:
            if seen == nth:
                return True, state, sstate, q
            seen += 1
            sstate, d = search_choose(st, q, prm, mp, cseat, reach, bud[q], sstate)
        else:
            state, d = choose(pol[q], st, q, prm, mp, state, reach[3], wts)
        state, nl = apply_decision(st, d, prm, mp, cseat, reach, state, log, nl, log_on, no_luck)


@njit(cache=True)
def _search_once(st, q, prm, mp, cseat, reach, budget, sstate):
    return search_choose(st, q, prm, mp, cseat, reach, budget, sstate)


def decision_state(seed: int, index: int, r: int, rules, policies, nth: int, claim_seats=None,
                   max_turns: int = DEFAULT_MAX_TURNS) -> dict | None:
    """The state of round ``r`` of game ``index`` just before the ``nth`` decision (0-based) of a
    search seat, as play reaches it: ``{"st": state arrays, "seat", "search_state"}``, or None when
    the round ends first."""
    s = _Setup(rules, policies, claim_seats, max_turns)
    deck, state = _round_deck(np.uint64(seed), np.int64(index), np.int64(r), np.int64(s.R), s.deck_base,
                              s.sizes, s.products)
    _, k, m, H = s.rounds[r]
    st = new_state(s.P, deck.shape[0])
    st[10][:] = deck
    st[3][F_TOTAL] = _totals_before(seed, index, r, rules, policies, claim_seats, max_turns, s)
    st[11][V_ROUNDS_LEFT] = s.R - 1 - r
    sstate = np.uint64(search_key(np.uint64(seed), np.int64(index * s.R + r)))
    budgets = s.bud if s.bud is not None else policy_budgets(policies, s.P)  # s.bud: oracle seats negative
    found, _, sstate, q = _play_until(st, np.uint64(state), sstate, np.int64(r % s.P), np.int64(k), np.int64(m),
                                      np.int64(H), s.prm, s.mp, s.pol, budgets, s.cseat, s.reach, s.wts, np.int64(nth))
    if not found:
        return None
    return {"st": tuple(a.copy() for a in st), "seat": int(q), "search_state": np.uint64(sstate)}


def search_decision(rules, dstate: dict, budget: int, claim_seats=None, max_turns: int = DEFAULT_MAX_TURNS):
    """The search's decision at a :func:`decision_state` (on a copy): ``(decision, search state after)``."""
    s = _Setup(rules, "heuristic", claim_seats, max_turns)
    st = tuple(a.copy() for a in dstate["st"])
    sstate, d = _search_once(st, np.int64(dstate["seat"]), s.prm, s.mp, s.cseat, s.reach, np.int64(budget),
                             np.uint64(dstate["search_state"]))
    return int(d), np.uint64(sstate)
