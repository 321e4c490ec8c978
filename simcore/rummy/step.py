"""Loba and Continental one decision at a time (:class:`~cardsim.simcore.framework.step.StepGame`).

A step game is one whole match (every round of the rules' contract list) of game ``index``
of run ``seed``, exactly as :func:`.play.play_chunk` plays it. The state is the play
kernel's own round state (:func:`.state.new_state`), the game's random stream and the
search stream of the round, the per-round result rows (``seatout``, ``info``) and the move
log. :func:`.engine.advance` stops at every decision; a decision is applied by
:func:`.engine.apply_decision`; the built-in seats decide through :func:`.policies.choose`
or :func:`.search.search_choose`; a round ends with :func:`.engine.finish_round` and the next
one is dealt by :func:`.engine.deal_round` with the match context (totals so far, rounds
left) set as :func:`.play._play_block` sets it. No rule is written here a second time.

Action ids
----------
====================  ===========================================================
``0`` / ``1``         take the stock / take the live pile top
``2`` / ``3``         decline / claim the refused card (Loba buy, Continental *robar*)
``4`` / ``5``         do not lay down / lay down (the engine's solver picks the melds)
``6``                 stop laying off
``7``                 every lay-off the heuristic would make (``LO_GREEDY``: naturals,
                      then joker swaps when the rules allow them, then jokers)
``8 + c``             discard card ``c`` (``c`` in ``0..52``, 52 = joker)
``61 + L``            one lay-off, ``L = (meld * 64 + card) * 4 + where`` (the engine's code)
====================  ===========================================================

``num_actions = 61 + MAXM * 256``. Legal: take 0, 1; claim 2, 3; lay down 4 and, when the
hand holds the contract (:func:`.laydown_apply.can_lay_down`), 5; lay-offs: 6 always, 7 and
every single lay-off (as :func:`.policies.choose_random` lists them: a card of the hand on a
table meld, joker swaps not single) when at least one exists (7 also when only a joker swap
does); discard: every card held.

Explicit deal (:meth:`RummyStep.deal`)
--------------------------------------
``{"game": "loba", "players": P, "rounds": [{"pack": [card codes], "rng": int,
"search_rng": int}, ...]}``: per round the whole shuffled pack (seat ``s`` gets
``pack[s*H:(s+1)*H]``, then the up-card, then the stock), the game stream the round goes on
with after its shuffle (stock reshuffles, the random policy) and its search stream.

Observation vector (:meth:`RummyStep.observation_layout`)
----------------------------------------------------------
Card blocks are counts per card code ``0..52``; seat blocks are indexed by absolute seat:
``hand`` 53, ``pile_top`` 53 (one-hot of the live top, zeros when none), ``pile_size`` 1,
``stock_size`` 1, ``table`` P x 53 (table meld cards per meld owner), ``seen`` P x 53 (cards
each seat is known to hold), ``hand_sizes`` P, ``down`` P, ``claims`` P (this round),
``totals`` P (match totals before this round), ``phase`` 5 (take, claim, laydown, layoff,
discard), ``to_move`` P, ``seat`` P, ``round`` R (one-hot), ``turns`` 1.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from cardsim.simcore.framework.step import StepGame
from cardsim.simcore.primitives.rng import search_key
from cardsim.simcore.rummy.cards import JOKER, RANKS, planes_cards
from cardsim.simcore.rummy.engine import (
    advance,
    apply_decision,
    count_of,
    deal_round,
    finish_round,
)
from cardsim.simcore.rummy.luck import LUCK_NAMES, N_LUCK
from cardsim.simcore.rummy.laydown_apply import can_lay_down
from cardsim.simcore.rummy.log import (
    L_DEAL,
    L_PENALTY,
    L_ROUND,
    L_TAKE_STOCK,
    LOG_KINDS,
    _log,
    format_log,
)
from cardsim.simcore.rummy.melds import LAY_HIGH, LAY_LOW, LAY_NO, lay_off
from cardsim.simcore.rummy.play import _Setup, _shuffle, build_tables
from cardsim.simcore.rummy.policies import (
    MAX_LAYOFF_OPTIONS,
    POL_HEURISTIC,
    POL_RANDOM,
    POL_SEARCH,
    choose,
)
from cardsim.simcore.rummy.search import _sample_world, refresh_distance, search_choose
from cardsim.simcore.rummy.state import (
    F_DIST,
    F_DOWN,
    F_NCLAIMS,
    F_TOTAL,
    LO_GREEDY,
    LO_STOP,
    MAXM,
    N_INFO,
    N_SEAT,
    P_BUDGET,
    P_PLAYERS,
    P_SWAP,
    PH_CLAIM,
    PH_DISCARD,
    PH_LAYDOWN,
    PH_LAYOFF,
    PH_TAKE,
    S_POINTS,
    V_LIVE,
    V_NM,
    V_NPILE,
    V_P,
    V_PHASE,
    V_ROUNDS_LEFT,
    V_SP,
    V_TOP,
    V_TURNS,
    new_state,
)
from cardsim.simcore.rummy.table import swap_target
from numba import njit

N_CODES = 53  # card codes 0..51 and the joker 52


def _popcount(x: int) -> int:
    return bin(x).count("1")


_NATURALS = (1 << (N_CODES - 1)) - 1


def _n_cards(a1: int, a2: int, jokers: int) -> int:
    """``len(planes_cards(a1, a2, jokers))`` without the list."""
    return _popcount(int(a1) & _NATURALS) + _popcount(int(a2) & _NATURALS) + int(jokers)
A_STOCK, A_PILE, A_DECLINE, A_CLAIM, A_PASS, A_LAYDOWN, A_STOP, A_GREEDY = range(8)
A_DISCARD = 8
A_LAYOFF = A_DISCARD + N_CODES
NUM_ACTIONS = A_LAYOFF + MAXM * 256
KINDS = {PH_TAKE: "take", PH_CLAIM: "claim", PH_LAYDOWN: "laydown", PH_LAYOFF: "layoff", PH_DISCARD: "discard"}
_PHASES = (PH_TAKE, PH_CLAIM, PH_LAYDOWN, PH_LAYOFF, PH_DISCARD)
_SUIT_SYMBOLS = "♠♥♦♣"  # the suits S H D C of :mod:`.cards`
_LEGAL_CAP = 2 + MAXM * N_CODES + N_CODES
_LOG_ROWS = 4096
_LOG_MARGIN = 2048
_MASK64 = (1 << 64) - 1


def card_str(code: int) -> str:
    """``7♥``, ``10♠``, ``JK``."""
    code = int(code)
    if code >= JOKER:
        return "JK"
    r = RANKS[code % 13]
    return ("10" if r == "T" else r) + _SUIT_SYMBOLS[code // 13]


# ----------------------------------------------------------------------------- kernels
@njit(cache=True)
def _begin_round(st, r, first, k, m, H, prm, mp, pol, cseat, reach, state, log, nl, luck):
    """Deal round ``r`` from the pack in ``st`` (as :func:`.play._play_block`) and advance to
    its first decision. Returns ``(state, log rows, seat or -1)``."""
    on = np.bool_(True)
    nl = _log(log, nl, on, L_ROUND, first, r, 0, 0, 0)
    nl = deal_round(st, first, k, m, H, prm, mp, pol, np.int64(POL_HEURISTIC), log, nl, on)
    return advance(st, prm, mp, cseat, state, log, nl, on, luck)


@njit(cache=True)
def _step(st, d, fix, prm, mp, cseat, reach, state, log, nl, luck):
    """Apply decision ``d`` and advance to the next decision. ``fix``: the decision did not
    come from the seat's own policy: the heuristic's distance memory of the mover (when it
    keeps one) is recomputed from its hand after a take or a discard (the policy keeps it
    exact itself). Returns ``(state, log rows, seat or -1 at the round's end)``."""
    on = np.bool_(True)
    sv = st[11]
    ph = sv[V_PHASE]
    p = sv[V_P]
    state, nl = apply_decision(st, d, prm, mp, cseat, reach, state, log, nl, on, luck)
    if fix and (ph == PH_TAKE or ph == PH_DISCARD) and st[3][F_DIST, p] >= 0:
        refresh_distance(st, p, mp)
    return advance(st, prm, mp, cseat, state, log, nl, on, luck)


@njit(cache=True)
def _finish(st, prm, seatout, info, log, nl):
    return finish_round(st, prm, seatout, info, log, nl, np.bool_(True))


@njit(cache=True)
def _policy(code, st, q, prm, mp, state, random_seat, wts):
    """The random / heuristic / learned policy's decision: ``(state, decision)``."""
    return choose(code, st, q, prm, mp, state, random_seat, wts)


@njit(cache=True, _nrt=False)
def _playout(st, q, prm, mp, cseat, reach, pol, state, r0, packs, rk, rm, rh, seatout, info, log, no_luck):
    """Play the match in ``st`` to its end in one call: round ``r0`` from the decision of seat
    ``q`` due now, then every later round ``r`` dealt from ``packs[r]``, each with its match
    context (totals so far, rounds left) as :func:`.play._play_block` sets it; every decision
    by the seat's policy ``pol`` (random or heuristic, through :func:`.policies.choose`), the
    engine applying it (:func:`.engine.apply_decision`, :func:`.engine.advance`). The random
    choices and stock reshuffles of every round draw from the one stream ``state``. Fills
    ``seatout[r0:]`` and ``info[r0:]`` (the arrays are the caller's copies); no log, no luck
    (``no_luck`` has no rows). Returns the stream's state."""
    P = prm[P_PLAYERS]
    R = packs.shape[0]
    on = np.bool_(False)
    nl = np.int64(0)
    r = r0
    while True:
        while q >= 0:
            state, d = choose(pol[q], st, q, prm, mp, state, reach[3], None)
            state, nl = apply_decision(st, d, prm, mp, cseat, reach, state, log, nl, on, no_luck)
            state, nl, q = advance(st, prm, mp, cseat, state, log, nl, on, no_luck)
        nl = finish_round(st, prm, seatout[r], info[r], log, nl, on)
        r += 1
        if r >= R:
            return state
        for s in range(P):
            total = np.int64(0)
            for r1 in range(r):
                total += seatout[r1, S_POINTS, s]
            st[3][F_TOTAL, s] = total
        st[11][V_ROUNDS_LEFT] = R - 1 - r
        deck = st[10]
        for i in range(deck.shape[0]):
            deck[i] = packs[r, i]
        nl = deal_round(st, r % P, rk[r], rm[r], rh[r], prm, mp, pol, np.int64(POL_HEURISTIC), log, nl, on)
        state, nl, q = advance(st, prm, mp, cseat, state, log, nl, on, no_luck)


@njit(cache=True)
def _legal(st, q, prm, mp, out):
    """The legal action ids of seat ``q``'s decision due into ``out`` (ascending); returns the count."""
    h1, h2, hj, mrow, sv = st[0], st[1], st[2], st[5], st[11]
    ph = sv[V_PHASE]
    if ph == PH_TAKE:
        out[0] = A_STOCK
        out[1] = A_PILE
        return 2
    if ph == PH_CLAIM:
        out[0] = A_DECLINE
        out[1] = A_CLAIM
        return 2
    if ph == PH_LAYDOWN:
        out[0] = A_PASS
        if can_lay_down(st, q, mp):
            out[1] = A_LAYDOWN
            return 2
        return 1
    if ph == PH_LAYOFF:
        nm = sv[V_NM]
        n = 2
        for c in range(N_CODES):  # the lay-offs the random policy chooses from
            if count_of(h1[q], h2[q], hj[q], c) == 0:
                continue
            for i in range(nm):
                w = lay_off(mrow[i], c, mp, np.bool_(False))
                if w != LAY_NO and n - 2 < MAX_LAYOFF_OPTIONS:
                    out[n] = A_LAYOFF + (i * 64 + c) * 4 + w
                    n += 1
        some = n > 2
        if not some and prm[P_SWAP]:
            for c in range(52):
                if count_of(h1[q], h2[q], hj[q], c) > 0 and swap_target(mrow, nm, c, mp)[0] >= 0:
                    some = True
                    break
        out[0] = A_STOP
        if not some:
            return 1
        out[1] = A_GREEDY
        out[2:n].sort()
        return n
    if ph == PH_DISCARD:
        n = 0
        for c in range(N_CODES):
            if count_of(h1[q], h2[q], hj[q], c) > 0:
                out[n] = A_DISCARD + c
                n += 1
        return n
    return 0


def table_rows(columns: dict) -> list[dict]:
    """Column arrays (as :func:`.play.build_tables` returns them) as a list of row dicts of Python values."""
    n = len(next(iter(columns.values())))
    return [{k: (v[i].item() if hasattr(v[i], "item") else v[i]) for k, v in columns.items()} for i in range(n)]


def _copy_state(st):
    return tuple(a.copy() for a in st)


class RummyStep(StepGame):
    """One Loba or Continental match stepped decision by decision (see the module docstring)."""

    num_actions = NUM_ACTIONS

    def __init__(self, rules, policies):
        self.rules = rules
        self.game = rules.GAME
        self.policies = [str(p) for p in policies] if not isinstance(policies, str) else [policies] * rules.players
        self.setup = _Setup(rules, self.policies, None)
        self.players = self.setup.P
        self.obs_size = sum(n for _, n in self.observation_layout(rules))
        s = self.setup
        r = s.reach
        self._reach_step = (r[0], r[1], r[2], None)  # the policies' marker is not read by the engine step
        self._reach_random = (r[0], r[1], r[2], 1)  # :meth:`playout`: every seat plays the random policy
        self._pol_random = np.full(self.players, POL_RANDOM, np.int64)
        self._nolog = np.zeros((1, 6), np.int64)
        self._no_luck = np.zeros((0, N_LUCK))
        self._out = np.zeros(_LEGAL_CAP, np.int64)

    # ------------------------------------------------------------------ construction
    @classmethod
    def new(cls, rules, policies, seed, index, deal=None):
        g = cls(rules, policies)
        s = g.setup
        g.seed, g.index = int(seed), int(index)
        if deal is None:
            packs, states, sstates = [], [], []
            for r in range(s.R):
                deck = np.empty(s.deck_base.shape[0], np.int64)
                state = _shuffle(np.uint64(seed), np.int64(index), np.int64(r), np.int64(s.R), deck, s.deck_base,
                                 s.sizes, s.products)
                packs.append(deck)
                states.append(int(state))
                sstates.append(int(search_key(np.uint64(seed), np.int64(index * s.R + r))))
        else:
            packs, states, sstates = g._read_deal(deal)
        g.packs, g.states0, g.sstates0 = packs, states, sstates
        g.st = s.round_state()
        g.seatout = np.zeros((s.R, N_SEAT, s.P), np.int64)
        g.info = np.zeros((s.R, N_INFO), np.int64)
        # the draws' luck, recorded as play_chunk records it (a table with a search seat)
        g.luck = np.zeros((s.P, N_LUCK)) if s.bud is not None else np.zeros((0, N_LUCK))
        g.log = np.zeros((_LOG_ROWS, 6), np.int64)
        g.nl = 0
        g.r = 0
        g.q = -1
        g._ver = 0
        g._legal_ids = None
        g._stash = None
        g._lines = []
        g._public = {}
        g._keys = {}
        g._begin(0)
        return g

    def _read_deal(self, deal):
        s = self.setup
        try:
            if "players" in deal and int(deal["players"]) != s.P:
                raise ValueError(f"the deal is for {deal['players']} players, the rules have {s.P}")
            rounds = deal["rounds"]
            if len(rounds) != s.R:
                raise ValueError(f"the rules play {s.R} rounds, the deal has {len(rounds)}")
            want = np.sort(s.deck_base)
            packs, states, sstates = [], [], []
            for i, rd in enumerate(rounds):
                pack = np.asarray(rd["pack"], np.int64)
                if pack.shape != want.shape or not np.array_equal(np.sort(pack), want):
                    raise ValueError(f"round {i + 1}: the pack is not a permutation of the {want.shape[0]}-card deck")
                a, b = int(rd["rng"]), int(rd["search_rng"])
                if not (0 <= a <= _MASK64 and 0 <= b <= _MASK64):
                    raise ValueError(f"round {i + 1}: random states must be 64-bit unsigned integers")
                packs.append(pack)
                states.append(a)
                sstates.append(b)
        except KeyError as e:
            raise ValueError(f"bad rummy deal: no {e} entry") from None
        except TypeError as e:
            raise ValueError(f"bad rummy deal: {e}") from None
        return packs, states, sstates

    def _grow_log(self):
        if self.log.shape[0] - self.nl < _LOG_MARGIN:
            self.log = np.concatenate([self.log, np.zeros_like(self.log)])

    def _begin(self, r):
        """Set up round ``r`` (match context, pack, streams), deal it and play on to a decision
        (rounds that end without one are finished too)."""
        s = self.setup
        while True:
            self.r = r
            if r >= s.R:
                self.q = -1
                return
            st = self.st
            st[3][F_TOTAL, :] = self.seatout[:r, S_POINTS, :].sum(axis=0)
            st[11][V_ROUNDS_LEFT] = s.R - 1 - r
            st[10][:] = self.packs[r]
            self.srng = np.uint64(self.sstates0[r])
            self._grow_log()
            _, k, m, H = s.rounds[r]
            state, nl, q = _begin_round(st, np.int64(r), np.int64(r % s.P), np.int64(k), np.int64(m), np.int64(H),
                                        s.prm, s.mp, s.pol, s.cseat, self._reach_step, np.uint64(self.states0[r]),
                                        self.log, np.int64(self.nl), self.luck)
            self.rng, self.nl, self.q = np.uint64(state), int(nl), int(q)
            if self.q >= 0:
                return
            self._end_round()
            r += 1

    def _end_round(self):
        s = self.setup
        self._grow_log()
        self.nl = int(_finish(self.st, s.prm, self.seatout[self.r], self.info[self.r], self.log, np.int64(self.nl)))

    def clone(self):
        g = object.__new__(type(self))
        g.__dict__.update(self.__dict__)
        g.st = _copy_state(self.st)
        g.seatout = self.seatout.copy()
        g.info = self.info.copy()
        g.luck = self.luck.copy()
        g.log = self.log.copy()
        g.packs = list(self.packs)
        g.states0 = list(self.states0)
        g.sstates0 = list(self.sstates0)
        g._lines = list(self._lines)
        g._public = {seat: list(lines) for seat, lines in self._public.items()}
        g._keys = dict(self._keys)
        g._out = np.zeros(_LEGAL_CAP, np.int64)
        g._stash = None
        g._legal_ids = None
        return g

    # ------------------------------------------------------------------ the decision due
    def to_move(self) -> int:
        return self.q

    def _phase(self) -> int:
        return int(self.st[11][V_PHASE])

    def legal_actions(self) -> list[int]:
        if self.q < 0:
            return []
        if self._legal_ids is None:
            n = _legal(self.st, np.int64(self.q), self.setup.prm, self.setup.mp, self._out)
            self._legal_ids = self._out[:n].tolist()
        return self._legal_ids

    def decision_kind(self) -> str:
        return KINDS.get(self._phase(), "end") if self.q >= 0 else "end"

    def _live_top(self):
        sv, pile = self.st[11], self.st[9]
        if sv[V_NPILE] > 0 and sv[V_LIVE]:
            return int(pile[sv[V_NPILE] - 1])
        return -1

    def action_text(self, action: int) -> str:
        a = int(action)
        if a == A_STOCK:
            return "take stock"
        if a == A_PILE:
            return f"take pile {card_str(self._live_top())}"
        if a in (A_DECLINE, A_CLAIM):
            top = card_str(int(self.st[11][V_TOP])) if self._phase() == PH_CLAIM else "the card"
            return f"{'buy' if a == A_CLAIM else 'decline'} {top}"
        if a == A_PASS:
            return "do not lay down"
        if a == A_LAYDOWN:
            return "lay down"
        if a == A_STOP:
            return "stop laying off"
        if a == A_GREEDY:
            return "lay off every card the heuristic would"
        if A_DISCARD <= a < A_LAYOFF:
            return f"discard {card_str(a - A_DISCARD)}"
        if A_LAYOFF <= a < NUM_ACTIONS:
            L = a - A_LAYOFF
            w, c, i = L % 4, (L // 4) % 64, L // 256
            end = {LAY_HIGH: " (high end)", LAY_LOW: " (low end)"}.get(w, "") if self.st[5][i, 0] != 0 else ""
            return f"lay off {card_str(c)} on meld {i}{end}"
        raise ValueError(f"bad action {action}")

    def _decision(self, a: int) -> int:
        """The engine's decision code of action ``a`` in the phase due."""
        if a < A_STOP:
            return a % 2
        if a == A_STOP:
            return LO_STOP
        if a == A_GREEDY:
            return LO_GREEDY
        if a < A_LAYOFF:
            return a - A_DISCARD
        return a - A_LAYOFF

    def _action_of(self, d: int) -> int:
        """The action id of the engine decision ``d`` in the phase due."""
        ph = self._phase()
        if ph == PH_TAKE:
            return A_PILE if d else A_STOCK
        if ph == PH_CLAIM:
            return A_CLAIM if d else A_DECLINE
        if ph == PH_LAYDOWN:
            return A_LAYDOWN if d else A_PASS
        if ph == PH_LAYOFF:
            if d == LO_STOP:
                return A_STOP
            if d == LO_GREEDY:  # with nothing to lay off the heuristic's "every lay-off" is the stop
                return A_GREEDY if A_GREEDY in self.legal_actions() else A_STOP
            return A_LAYOFF + d
        return A_DISCARD + d

    def policy_action(self) -> int:
        if self.q < 0:
            raise ValueError("the game is over")
        if self._stash is not None and self._stash[0] == self._ver:
            return self._stash[1]
        s = self.setup
        st2 = _copy_state(self.st)  # the policies may update their memory (the heuristic's distance)
        q = self.q
        if s.pol[q] == POL_SEARCH:
            srng, d = search_choose(st2, np.int64(q), s.prm, s.mp, s.cseat, s.reach, np.int64(s.bud[q]), self.srng)
            rng = self.rng
        else:
            rng, d = _policy(np.int64(s.pol[q]), st2, np.int64(q), s.prm, s.mp, self.rng, s.reach[3], s.wts)
            srng = self.srng
        d = int(d)
        a = self._action_of(d)
        self._stash = (self._ver, a, d, np.uint64(rng), np.uint64(srng), st2)
        return a

    def apply(self, action: int) -> None:
        a = int(action)
        s = self.setup
        stash = self._stash
        if stash is not None and stash[0] == self._ver and stash[1] == a:
            _, _, d, rng, srng, st2 = stash
            self.st, self.rng, self.srng = st2, rng, srng
            fix = False
        else:
            d = self._decision(a)
            fix = True
        self._stash = None
        self._legal_ids = None
        self._keys = {}
        self._ver += 1
        self._grow_log()
        state, nl, q = _step(self.st, np.int64(d), np.bool_(fix), s.prm, s.mp, s.cseat, self._reach_step, self.rng,
                             self.log, np.int64(self.nl), self.luck)
        self.rng, self.nl, self.q = np.uint64(state), int(nl), int(q)
        if self.q < 0:
            self._end_round()
            self._begin(self.r + 1)

    # ------------------------------------------------------------------ what a seat sees
    @classmethod
    def observation_layout(cls, rules) -> list[tuple[str, int]]:
        P, R = rules.players, len(rules.rounds())
        return [("hand", N_CODES), ("pile_top", N_CODES), ("pile_size", 1), ("stock_size", 1),
                ("table", P * N_CODES), ("seen", P * N_CODES), ("hand_sizes", P), ("down", P), ("claims", P),
                ("totals", P), ("phase", len(_PHASES)), ("to_move", P), ("seat", P), ("round", R), ("turns", 1)]

    def _hand(self, s):
        st = self.st
        return planes_cards(int(st[0][s]), int(st[1][s]), int(st[2][s]))

    def _hand_counts(self, s) -> np.ndarray:
        """Copies of each card code in seat ``s``'s hand, float32[N_CODES] (the planes' bits)."""
        st = self.st
        planes = np.array([st[0][s], st[1][s]], "<u8").view(np.uint8)
        bits = np.unpackbits(planes, bitorder="little").reshape(2, 64)[:, :N_CODES - 1]
        out = np.zeros(N_CODES, np.float32)
        out[:N_CODES - 1] = bits[0] + bits[1]
        out[N_CODES - 1] = st[2][s]
        return out

    def _totals(self):
        return self.seatout[:self.r, S_POINTS, :].sum(axis=0) if self.r < self.setup.R else \
            self.seatout[:, S_POINTS, :].sum(axis=0)

    def _all_lines(self):
        if len(self._lines) < self.nl:
            self._lines += format_log(self.log[len(self._lines):self.nl], self.rules)
        return self._lines

    def _public_lines(self, seat: int) -> list[str]:
        """The move log as ``seat`` saw it: other seats' dealt hands, stock draws and penalty cards hidden
        (a new list; the lines so far are kept per seat, the log only grows)."""
        lines = self._all_lines()
        rows = self.log[:self.nl]
        out = self._public.setdefault(seat, [])
        for i in range(len(out), len(lines)):
            line = lines[i]
            kind, who = int(rows[i, 0]), int(rows[i, 1])
            if who != seat:
                if kind == L_DEAL:
                    a1 = int(rows[i, 2]) | (int(rows[i, 3]) << 26)
                    a2 = int(rows[i, 4]) | ((int(rows[i, 5]) & 0xFFFFFFFF) << 26)
                    line = f"deal seat {who}: {_n_cards(a1, a2, int(rows[i, 5]) >> 32)} cards"
                elif kind == L_TAKE_STOCK:
                    line = f"seat {who}: takes a card from the stock"
                elif kind == L_PENALTY:
                    line = f"seat {who}: penalty card from the stock"
            out.append(line)
        return list(out)

    def information_key(self, seat: int) -> str:
        """:meth:`StepGame.information_key`, kept until the game changes (OpenSpiel's ISMCTS asks
        it two or three times of every state it visits)."""
        key = self._keys.get(seat)
        if key is None:
            key = self._keys[seat] = super().information_key(seat)
        return key

    def observation(self, seat: int) -> dict[str, Any]:
        st, s = self.st, self.setup
        sv = st[11]
        P = s.P
        done = self.q < 0
        rr = min(self.r, s.R - 1)
        top = self._live_top()
        melds = [{"cards": [card_str(c) for c in st[6][i, :st[7][i]]], "owner": int(st[8][i])}
                 for i in range(int(sv[V_NM]))]
        seen = [[card_str(c) for c in range(N_CODES) for _ in range(row[c])] for row in st[4][:P].tolist()]
        return {
            "seat": int(seat),
            "to_move": self.q,
            "round": rr + 1,
            "contract": s.labels[rr],
            "decision": self.decision_kind(),
            "hand": [card_str(c) for c in self._hand(seat)],
            "pile_top": card_str(top) if top >= 0 else None,
            "pile_size": int(sv[V_NPILE]),
            "claimed_card": card_str(int(sv[V_TOP])) if (not done and self._phase() == PH_CLAIM) else None,
            "melds": melds,
            "down": [bool(st[3][F_DOWN, q]) for q in range(P)],
            "hand_sizes": [_n_cards(st[0][q], st[1][q], st[2][q]) for q in range(P)],
            "seen": seen,
            "claims": [int(st[3][F_NCLAIMS, q]) for q in range(P)],
            "totals": [int(t) for t in self._totals()],
            "stock": int(st[10].shape[0] - sv[V_SP]),
            "turns": int(sv[V_TURNS]),
            "history": self._public_lines(seat),
            "legal_actions": list(self.legal_actions()) if seat == self.q else [],
        }

    def observation_vector(self, seat: int) -> np.ndarray:
        st, s = self.st, self.setup
        sv = st[11]
        P = s.P
        v = np.zeros(self.obs_size, np.float32)
        o = 0
        v[o:o + N_CODES] = self._hand_counts(seat)
        o += N_CODES
        top = self._live_top()
        if top >= 0:
            v[o + min(top, JOKER)] = 1
        o += N_CODES
        v[o] = sv[V_NPILE]
        v[o + 1] = st[10].shape[0] - sv[V_SP]
        o += 2
        for i in range(int(sv[V_NM])):
            own = int(st[8][i])
            for c in st[6][i, :st[7][i]]:
                v[o + own * N_CODES + min(int(c), JOKER)] += 1
        o += P * N_CODES
        v[o:o + P * N_CODES] = st[4].reshape(-1)
        o += P * N_CODES
        for q in range(P):
            v[o + q] = _popcount(int(st[0][q])) + _popcount(int(st[1][q])) + int(st[2][q])
            v[o + P + q] = st[3][F_DOWN, q]
            v[o + 2 * P + q] = st[3][F_NCLAIMS, q]
        o += 3 * P
        v[o:o + P] = self._totals()
        o += P
        if self.q >= 0:
            v[o + _PHASES.index(self._phase())] = 1
        o += len(_PHASES)
        if self.q >= 0:
            v[o + self.q] = 1
        o += P
        v[o + seat] = 1
        o += P
        v[o + min(self.r, s.R - 1)] = 1
        o += s.R
        v[o] = sv[V_TURNS]
        return v

    def resample(self, seat: int, rng: np.random.Generator) -> RummyStep:
        """A copy where the cards ``seat`` cannot see (the other hands minus their known cards,
        the stock order, and the packs of the rounds still to deal) are dealt again at random,
        by the search's own world sampler (:func:`.search._sample_world`: an opponent keeps the
        cards that serve its contract), and the game stream is drawn again from ``rng``; the
        search stream is kept. The distance memories of the other seats are recomputed from their
        new hands. The move log keeps its original (hidden) lines: :meth:`log_lines` of a
        resampled copy is not a record of it."""
        g = self.clone()
        g._keys = {}  # the other seats' hands change
        s = self.setup
        def seed():
            return int(rng.integers(0, 1 << 64, dtype=np.uint64))
        for r in range(self.r + 1, s.R):
            g.packs[r] = rng.permutation(self.packs[r])
            g.states0[r] = seed()
        if self.q < 0:
            return g
        st = self.st
        dist0 = st[3][F_DIST].copy()
        me_dist = int(dist0[seat]) if (not st[3][F_DOWN, seat] and dist0[seat] >= 0) else -1
        world = new_state.py_func(s.P, st[10].shape[0])
        _sample_world(st, np.int64(seat), s.prm, s.mp, world, np.uint64(seed()), np.int64(me_dist))
        dist = world[3][F_DIST]
        dist[dist0 < 0] = -1  # seats that keep no memory keep none
        dist[seat] = dist0[seat]
        g.st = world
        g.rng = np.uint64(seed())
        return g

    def playout(self, stream: int, laydown_budget: int | None = None) -> list[float]:
        """:meth:`returns` of the match played on from here to its end with the random policy
        at every seat, in one compiled call (:func:`_playout`, the play kernels' engine and
        random policy); the random choices and stock reshuffles of the rest of the match draw
        from the 64-bit stream ``stream``, the later rounds are dealt from this game's packs
        (a resampled copy's are dealt again). ``laydown_budget``: the rules' ``laydown_budget``
        for this play-out only (None: the game's own). The game itself is not changed."""
        if self.q < 0:
            return self.returns()
        s = self.setup
        prm = s.prm
        if laydown_budget is not None and int(laydown_budget) != int(prm[P_BUDGET]):
            prm = prm.copy()
            prm[P_BUDGET] = int(laydown_budget)
        st = _copy_state(self.st)
        seatout = self.seatout.copy()
        info = self.info.copy()
        _playout(st, np.int64(self.q), prm, s.mp, s.cseat, self._reach_random, self._pol_random,
                 np.uint64(int(stream) & _MASK64), np.int64(self.r), np.stack(self.packs), s.rk, s.rm, s.rh, seatout,
                 info, self._nolog, self._no_luck)
        return [-float(t) for t in seatout[:, S_POINTS, :].sum(axis=0)]

    # ------------------------------------------------------------------ the end
    def result(self) -> dict[str, Any]:
        if self.q >= 0:
            raise ValueError("the match is not over")
        tables = build_tables(self.index, 1, self.setup, self.info, self.seatout)
        if self.luck.shape[0]:
            for f, name in enumerate(LUCK_NAMES):
                for s in range(self.players):
                    tables["matches"][f"draw_luck_{name}_{s}"] = self.luck[None, s, f].copy()
        return {"hands": table_rows(tables["hands"]), "matches": table_rows(tables["matches"])[0]}

    def returns(self) -> list[float]:
        return [-float(t) for t in self._totals()]

    def deal(self) -> dict[str, Any]:
        return {"game": self.game, "players": self.players,
                "rounds": [{"pack": [int(c) for c in p], "rng": int(a), "search_rng": int(b)}
                           for p, a, b in zip(self.packs, self.states0, self.sstates0, strict=True)]}

    def log_lines(self) -> list[str]:
        """The moves as ``cardsim replay`` prints them (without its ``game i, seed s`` header: an
        explicit deal replays the same lines), the totals and the winner once the match is over."""
        tail = []
        if self.q < 0:
            m = self.result()["matches"]
            tail = ["totals: " + ", ".join(f"seat {s}: {m[f'total_{s}']}" for s in range(self.players)),
                    f"winner: seat {m['winner']}"]
        return list(self._all_lines()) + tail


__all__ = ["LOG_KINDS", "NUM_ACTIONS", "RummyStep", "card_str"]
