"""Tứ Sắc one decision at a time (:class:`~cardsim.simcore.framework.step.StepGame`).

The state is the play kernel's own (:func:`.play.play_game`): ``cur``, ``deck``,
``hands``, ``table``, ``discards``, ``locked``, ``exp_pts``, ``exp_kinds``, the take
options ``okind, opts, orev``, ``meta``, ``seat``, the move log, the game's random
stream and the search stream. The game is driven by :func:`.engine.advance` with every
seat *paused* (the ``search`` code and ``stop_search``): it stops before every decision
with two or more choices, and a decision with a single choice is taken inside
``advance`` (by the heuristic fallback of :func:`.policies.choose`, which for one choice
picks what every policy picks, and draws no random number, like every policy). A chosen
action goes back into :func:`.engine.advance` as its ``forced`` choice. The seats' real
policies decide through :func:`.policies.choose` (random, heuristic, learned) and
:func:`.search.search_choose` (search seats, with the search stream), as
:func:`.play.play_game` calls them; at the end :func:`.engine.finish_game` fills the
result columns.

Action ids (``num_actions = 29 + MAX_OPTS = 45``)
-------------------------------------------------
``0 .. 27``: discard a card of that type (type id ``7 * colour + character``, see
:mod:`.cards`); ``28``: decline the exposed card (do not take it, do not steal it, do not
keep it); ``29 + i``: take the exposed card with meld option ``i`` of the pending take
(:func:`.engine.level_options`: the option list depends only on the taker's own hand and
the exposed card). Decision kinds (:meth:`TuSacStep.decision_kind`): ``discard``,
``take`` (the normal taker: eat a discard or meld one's own drawn card), ``steal`` (an
out-of-turn triple/quadruple claim), ``keep`` (``priority=taiwanese``: the drawer keeps
its drawn card for a triple/quadruple). Wins are not decisions (always claimed).

Explicit deal (:meth:`TuSacStep.deal`)
--------------------------------------
``{"hands": [[type ids] per seat], "stock": [type ids], "rng": int, "search_rng": int,
"mulligans": [[weak seats] per redeal]}``: each seat's dealt cards (the dealer, seat 0, 21
cards, the others 20; dealt quadruples included, they are revealed at the start), the
stock in deck order (a draw takes a random position of it), the game's random stream
after the deal, the search stream, and the redeals that preceded the deal (their log
lines and the ``mulligans`` column; an explicit deal is played as given, never redealt).
``rng`` and ``search_rng`` are optional (0), ``mulligans`` too (none).

Observation vector (:meth:`TuSacStep.observation_layout`, float32, seats padded to 4)
--------------------------------------------------------------------------------------
``hand`` 28 own hidden counts, ``locked`` 28 own locked triples (1/0), ``table`` 4x28 laid
counts per seat, ``discards`` 28, ``exposed`` 29 one-hot exposed card (last: none),
``exposed_source`` 4 one-hot, ``exposed_drawn`` 1, ``decision`` 5 one-hot (discard, take,
steal, keep, end), ``to_move`` 4 one-hot, ``seat`` 4 one-hot (the observer),
``hand_sizes`` 4, ``laid_points`` 4, ``stock`` 1, ``legal`` 45 (the observer's legal
action mask; zeros when it is not to move).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from cardsim.simcore.framework.step import StepGame
from cardsim.simcore.primitives.movelog import LOG_WIDTH, log_record
from cardsim.simcore.primitives.rng import search_key
from cardsim.simcore.tusac.cards import N_TYPES, type_name
from cardsim.simcore.tusac.claims import MAX_OPTS, N_KINDS, steal_claimant, win_claim
from cardsim.simcore.tusac.deal import BASE_DECK
from cardsim.simcore.tusac.engine import (C_CARD, C_DRAW, C_LEVEL, C_NLOG, C_NSTOCK, C_PHASE, C_SRC, C_WINNER,
                                          LV_KEEP, LV_STEAL, M_MULL, MAX_MULLIGANS, N_CUR, N_META, N_SEAT, NO_FORCE,
                                          PH_CLAIM, PH_DISCARD, S_POINTS, advance, finish_game, hands_from_deck,
                                          pending_decision, set_up_deal, start_game, stock_start)
from cardsim.simcore.tusac.log import (LOG_CAP, LOG_DEAL, LOG_DISCARD, LOG_MELD, LOG_MULLIGAN, LOG_QUAD, format_log,
                                       rev_types)
from cardsim.simcore.tusac.melds import MELD_NAMES
from cardsim.simcore.tusac.luck import LUCK_NAMES, N_LUCK
from cardsim.simcore.tusac.play import FIN_ROWS, _columns, _kernel_args
from cardsim.simcore.tusac.policies import DEC_DISCARD, POL_SEARCH, choose, count_discards, legal_discard
from cardsim.simcore.tusac.rules import P_LOCK, P_PLAYERS
from cardsim.simcore.tusac.search import determinize

#: Action ids: a discard is its type, then the decline, then the take options.
A_DECLINE = N_TYPES
A_TAKE = N_TYPES + 1
NUM_ACTIONS = A_TAKE + MAX_OPTS
#: Decision kinds (the ``decision`` block of the observation vector).
KINDS = ("discard", "take", "steal", "keep", "end")
K_DISCARD_, K_TAKE_, K_STEAL_, K_KEEP_, K_END_ = range(5)
_PAUSE = np.full(4, POL_SEARCH, np.int64)
_LAYOUT = (("hand", N_TYPES), ("locked", N_TYPES), ("table", 4 * N_TYPES), ("discards", N_TYPES),
           ("exposed", N_TYPES + 1), ("exposed_source", 4), ("exposed_drawn", 1), ("decision", len(KINDS)),
           ("to_move", 4), ("seat", 4), ("hand_sizes", 4), ("laid_points", 4), ("stock", 1),
           ("legal", NUM_ACTIONS))
OBS_SIZE = sum(n for _, n in _LAYOUT)
_RESAMPLE_TRIES = 1000


# ----------------------------------------------------------------------------- kernels
@njit(cache=True)
def _legal(prm, cur, hands, locked, okind, opts, orev, legal):
    """The pending decision's legal action ids into ``legal`` (ascending, take options in
    ``okind, opts, orev``); returns ``(seat, number)``."""
    d, kind, n, allow = pending_decision(prm, cur, hands, locked, okind, opts, orev)
    m = 0
    if kind == DEC_DISCARD:
        for k in range(N_TYPES):
            if legal_discard(hands[d], locked[d], k):
                legal[m] = k
                m += 1
        return d, m
    if allow:
        legal[m] = A_DECLINE
        m += 1
    for i in range(n):
        legal[m] = A_TAKE + i
        m += 1
    return d, m


@njit(cache=True)
def _run(prm, forced, cur, deck, hands, table, discards, locked, exp_pts, exp_kinds, seat, okind, opts, orev,
         trash_tab, score_tab, win_tab, state, log, legal, luck):
    """Play from the cursor (``forced``: the choice of the decision due, or ``NO_FORCE``) to
    the next decision with two or more choices; returns ``(game RNG state, seat to move or
    -1 at the end, legal actions in legal[:n], n)``. ``luck``: the draws' luck, as the play
    kernel records it at a table with a search seat (or None)."""
    state, stopped = advance(prm, _PAUSE, forced, True, False, cur, deck, hands, table, discards, locked, exp_pts,
                             exp_kinds, seat, okind, opts, orev, trash_tab, score_tab, win_tab, state, log, True,
                             None, luck)
    if not stopped:
        return state, -1, 0
    d, m = _legal(prm, cur, hands, locked, okind, opts, orev, legal)
    return state, d, m


@njit(cache=True)
def _builtin_choice(prm, pol, cur, hands, table, discards, locked, okind, opts, orev, trash_tab, score_tab, state,
                    wts):
    """The choice of seat policy ``pol[seat]`` (random / heuristic / learned) at the pending
    decision, as :func:`.engine.advance` asks it: ``(choice, game RNG state after)``."""
    d, kind, n, allow = pending_decision(prm, cur, hands, locked, okind, opts, orev)
    return choose(pol[d], kind, hands[d], locked[d], n, okind, opts, orev, allow, state, trash_tab, score_tab,
                  discards, table, wts, d)


@njit(cache=True)
def _start_dealt(prm, cur, deck, hands, table, discards, locked, exp_pts, exp_kinds, seat, log, weak):
    """:func:`.engine.start_game` after its deal, on the explicit deal in ``deck`` (played
    as given): the redeals that preceded it (``weak``: each one's mask of weak seats) in the
    log, then the engine's own :func:`.engine.hands_from_deck` and :func:`.engine.set_up_deal`."""
    nl = 0
    for m in range(weak.shape[0]):
        nl = log_record(log, nl, True, LOG_MULLIGAN, -1, weak[m], 0, 0, 0)
    hands_from_deck(deck, hands, prm[P_PLAYERS])
    set_up_deal(prm, cur, hands, table, discards, locked, exp_pts, exp_kinds, seat, log, True, nl)


@njit(cache=True)
def _resample(prm, y, d, cur, deck, hands, table, discards, locked, exp_pts, whands, wlocked, wdeck, sstate,
              trash_tab, score_tab, win_tab, okind, opts, orev, tries):
    """Deal the cards seat ``y`` cannot see again (:func:`.search.determinize`) until the
    world agrees with what is public about the decision due of seat ``d``: nobody could win
    the exposed card, the steal claimant is the seat asked, the seat to move has two or
    more choices. Returns ``(ok, sstate)`` (the last world when ``tries`` run out)."""
    unseen = np.empty(4 * N_TYPES, np.int64)
    ok = False
    for _ in range(tries):
        sstate = determinize(prm, y, cur, hands, table, discards, locked, deck, whands, wlocked, wdeck, unseen,
                             sstate)
        if d < 0:
            return True, sstate
        ok = True
        if cur[C_PHASE] == PH_CLAIM:
            c = cur[C_CARD]
            src = cur[C_SRC]
            is_draw = cur[C_DRAW] != 0
            w = win_claim(c, src, is_draw, prm, whands, wlocked, exp_pts, trash_tab, score_tab, win_tab)[0]
            if w >= 0:
                ok = False  # a win is always claimed: nobody could win the exposed card
            elif cur[C_LEVEL] == LV_STEAL and steal_claimant(c, src, is_draw, prm, whands, wlocked) != d:
                ok = False
            else:
                n, allow = pending_decision(prm, cur, whands, wlocked, okind, opts, orev)[2:]
                ok = n + (1 if allow else 0) >= 2
        elif d != y:
            ok = count_discards(whands[d], wlocked[d]) >= 2
        if ok:
            return True, sstate
    return ok, sstate


# ----------------------------------------------------------------------------- the class
class TuSacStep(StepGame):
    """One Tứ Sắc game stepped decision by decision (see the module docstring)."""

    game = "tusac"
    num_actions = NUM_ACTIONS
    obs_size = OBS_SIZE

    def __init__(self, rules, policies):
        self.rules = rules
        self.players = rules.players
        self.policies = [policies] * rules.players if isinstance(policies, str) else list(policies)
        (self.prm, self.codes, self.budgets, self.g_sizes, self.g_products, self.trash_tab, self.score_tab,
         self.win_tab, self.kind_tab, self.wts, self.model) = _kernel_args(rules, self.policies)
        self.seed = None
        self.index = 0

    # ------------------------------------------------------------------ construction
    def _alloc(self):
        P = self.players
        self.cur = np.zeros(N_CUR, np.int64)
        self.deck = BASE_DECK.copy()
        self.hands = np.zeros((4, N_TYPES), np.int8)
        self.table = np.zeros((4, N_TYPES), np.int8)
        self.discards = np.zeros(N_TYPES, np.int8)
        self.locked = np.zeros(4, np.int64)
        self.exp_pts = np.zeros(4, np.int64)
        self.exp_kinds = np.zeros((4, N_KINDS), np.int64)
        self.okind = np.zeros(MAX_OPTS, np.int64)
        self.opts = np.zeros(MAX_OPTS, np.int64)
        self.orev = np.zeros((MAX_OPTS, 3), np.int64)
        self.meta = np.zeros(N_META, np.int16)
        self.seat = np.zeros((N_SEAT, P), np.int16)
        self.log = np.zeros((LOG_CAP, LOG_WIDTH), np.int64)
        self.fin = np.zeros((FIN_ROWS, N_TYPES), np.int8)
        self.legal = np.zeros(NUM_ACTIONS, np.int64)
        # the draws' luck, recorded as play_chunk records it (a table with a search seat)
        self.luck = np.zeros((P, N_LUCK)) if self.budgets is not None else None
        self.n_legal = 0
        self._to_move = -1
        self._finished = False
        self._stash = None
        self._step_no = 0
        self._lines = []  # (kind, seat, text) of the log records formatted so far
        self._resampled = False

    @classmethod
    def new(cls, rules, policies, seed, index, deal=None):
        g = cls(rules, policies)
        g._alloc()
        g.seed, g.index = int(seed), int(index)
        if deal is None:
            state, mull = start_game(np.uint64(seed), np.int64(index), g.prm, g.g_sizes, g.g_products, g.cur, g.deck,
                                     g.hands, g.table, g.discards, g.locked, g.exp_pts, g.exp_kinds, g.seat, g.log,
                                     True)
            g.state = np.uint64(state)
            g.search_state = np.uint64(search_key(np.uint64(seed), np.int64(index)))
        else:
            deck, state, sstate, weak = cls._parse_deal(rules, deal)
            g.seed = None
            g.deck[:] = deck
            _start_dealt(g.prm, g.cur, g.deck, g.hands, g.table, g.discards, g.locked, g.exp_pts, g.exp_kinds,
                         g.seat, g.log, weak)
            mull = len(weak)
            g.state, g.search_state = np.uint64(state), np.uint64(sstate)
        g.meta[M_MULL] = mull
        nl = int(g.cur[C_NLOG])
        weak = [[s for s in range(g.players) if (int(r[2]) >> s) & 1] for r in g.log[:nl] if r[0] == LOG_MULLIGAN]
        g._deal = (g.deck.copy(), int(g.state), int(g.search_state), weak)
        g._go(NO_FORCE)
        return g

    @staticmethod
    def _parse_deal(rules, deal):
        P = rules.players
        if not isinstance(deal, dict):
            raise ValueError("a Tứ Sắc deal is a dict with 'hands' and 'stock'")
        unknown = set(deal) - {"hands", "stock", "rng", "search_rng", "mulligans"}
        if unknown:
            raise ValueError(f"unknown deal field(s): {', '.join(sorted(map(str, unknown)))}")
        hands, stock = deal.get("hands"), deal.get("stock")
        if not isinstance(hands, (list, tuple)) or len(hands) != P:
            raise ValueError(f"deal 'hands' must list {P} hands (one per seat)")
        if not isinstance(stock, (list, tuple)):
            raise ValueError("deal 'stock' must be a list of type ids")
        sizes = rules.hand_sizes
        cards = []
        for s, h in enumerate(hands):
            if not isinstance(h, (list, tuple)) or len(h) != sizes[s]:
                raise ValueError(f"deal hand of seat {s} must have {sizes[s]} cards, got "
                                 f"{len(h) if isinstance(h, (list, tuple)) else type(h).__name__}")
            cards += list(h)
        if len(stock) != 112 - sum(sizes):
            raise ValueError(f"deal 'stock' must have {112 - sum(sizes)} cards, got {len(stock)}")
        cards += list(stock)
        for t in cards:
            if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or not 0 <= int(t) < N_TYPES:
                raise ValueError(f"bad card {t!r} in the deal (type ids 0..{N_TYPES - 1})")
        counts = np.bincount(np.array(cards, np.int64), minlength=N_TYPES)
        if (counts != 4).any():
            t = int(np.argmax(counts != 4))
            raise ValueError(f"the deal has {counts[t]} cards of {type_name(t)} (every type 4 times)")
        vals = []
        for key in ("rng", "search_rng"):
            v = deal.get(key, 0)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 0 <= int(v) < 2 ** 64:
                raise ValueError(f"deal '{key}' must be an integer in 0 .. 2**64-1")
            vals.append(int(v))
        mull = deal.get("mulligans", [])
        bad = f"deal 'mulligans' must list at most {MAX_MULLIGANS} redeals, each a list of the weak seats (0..{P - 1})"
        if not isinstance(mull, (list, tuple)) or len(mull) > MAX_MULLIGANS:
            raise ValueError(bad)
        weak = np.zeros(len(mull), np.int64)
        for m, seats in enumerate(mull):
            if not isinstance(seats, (list, tuple)) or not seats:
                raise ValueError(bad)
            for s in seats:
                if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or not 0 <= int(s) < P:
                    raise ValueError(bad)
                weak[m] |= 1 << int(s)
        return np.array(cards, np.uint8), vals[0], vals[1], weak

    def clone(self):
        g = object.__new__(type(self))
        g.__dict__.update(self.__dict__)
        for k in ("cur", "deck", "hands", "table", "discards", "locked", "exp_pts", "exp_kinds", "okind", "opts",
                  "orev", "meta", "seat", "log", "fin", "legal"):
            setattr(g, k, getattr(self, k).copy())
        g.luck = None if self.luck is None else self.luck.copy()
        g._lines = list(self._lines)
        return g

    # ------------------------------------------------------------------ driving
    def _go(self, forced):
        state, d, m = _run(self.prm, np.int64(forced), self.cur, self.deck, self.hands, self.table, self.discards,
                           self.locked, self.exp_pts, self.exp_kinds, self.seat, self.okind, self.opts, self.orev,
                           self.trash_tab, self.score_tab, self.win_tab, self.state, self.log, self.legal, self.luck)
        self.state = np.uint64(state)
        self._to_move = int(d)
        self.n_legal = int(m)
        self._step_no += 1
        if d < 0 and not self._finished:
            finish_game(self.prm, self.cur, self.deck, self.hands, self.table, self.discards, self.locked,
                        self.exp_pts, self.exp_kinds, self.meta, self.seat, self.okind, self.opts, self.orev,
                        self.trash_tab, self.score_tab, self.kind_tab, self.log, True, self.fin)
            self._finished = True

    def to_move(self) -> int:
        return self._to_move

    def legal_actions(self) -> list[int]:
        return self.legal[:self.n_legal].tolist() if self._to_move >= 0 else []

    def is_legal(self, action: int) -> bool:
        return self._to_move >= 0 and int(action) in self.legal[:self.n_legal]

    def _engine_choice(self, action: int) -> int:
        if self.cur[C_PHASE] == PH_DISCARD:
            return int(action)
        return -1 if action == A_DECLINE else int(action) - A_TAKE

    def _action_of(self, choice: int) -> int:
        if self.cur[C_PHASE] == PH_DISCARD:
            return int(choice)
        return A_DECLINE if choice < 0 else A_TAKE + int(choice)

    def decision_kind(self) -> str:
        return KINDS[self._kind()]

    def _kind(self) -> int:
        if self._to_move < 0:
            return K_END_
        if self.cur[C_PHASE] == PH_DISCARD:
            return K_DISCARD_
        lv = self.cur[C_LEVEL]
        return K_STEAL_ if lv == LV_STEAL else (K_KEEP_ if lv == LV_KEEP else K_TAKE_)

    def _meld_text(self, i: int) -> str:
        c = int(self.cur[C_CARD])
        rev = [int(t) for t in self.orev[i] if t >= 0]
        cards = " ".join(type_name(t) for t in rev)
        pts = int(self.opts[i])
        return f"{type_name(c)} with {cards or 'nothing'} ({MELD_NAMES[int(self.okind[i])]}, {pts} pt)"

    def action_text(self, action: int) -> str:
        action = int(action)
        if not 0 <= action < NUM_ACTIONS:
            return f"action {action} (out of range)"
        if self._to_move < 0:
            return f"action {action} (the game is over)"
        if self.cur[C_PHASE] == PH_DISCARD:
            return f"discard {type_name(action)}" if action < N_TYPES else f"action {action} (not a discard)"
        if action < N_TYPES:
            return f"action {action} (not a take)"
        c = type_name(int(self.cur[C_CARD]))
        kind = self.decision_kind()
        if action == A_DECLINE:
            return {"steal": f"do not steal {c}", "keep": f"do not keep {c}"}.get(kind, f"decline {c}")
        i = action - A_TAKE
        if not self.is_legal(action):
            return f"action {action} (no meld option {i})"
        return f"{kind} {self._meld_text(i)}"

    def apply(self, action: int) -> None:
        action = int(action)
        st = self._stash
        if st is not None and st[0] == self._step_no and st[1] == action:
            self.state, self.search_state = st[2], st[3]
        self._stash = None
        self._go(self._engine_choice(action))

    def policy_action(self) -> int:
        d = self._to_move
        if d < 0:
            raise ValueError("the game is over")
        st = self._stash
        if st is not None and st[0] == self._step_no:
            return st[1]
        if self.codes[d] == POL_SEARCH:
            from cardsim.simcore.tusac.search import search_choose

            ch, after = search_choose(self.prm, np.int64(self.budgets[d]), self.search_state, self.cur, self.deck,
                                      self.hands, self.table, self.discards, self.locked, self.exp_pts,
                                      self.exp_kinds, self.trash_tab, self.score_tab, self.win_tab, self.wts,
                                      self.model)
            state, sstate = self.state, np.uint64(after)
        else:
            ch, after = _builtin_choice(self.prm, self.codes, self.cur, self.hands, self.table, self.discards,
                                        self.locked, self.okind, self.opts, self.orev, self.trash_tab,
                                        self.score_tab, self.state, self.wts)
            state, sstate = np.uint64(after), self.search_state
        action = self._action_of(int(ch))
        self._stash = (self._step_no, action, state, sstate)
        return action

    # ------------------------------------------------------------------ what a seat sees
    @classmethod
    def observation_layout(cls, rules=None) -> list[tuple[str, int]]:
        return list(_LAYOUT)

    def _update_lines(self):
        nl = int(self.cur[C_NLOG])
        done = len(self._lines)
        if nl > done:
            rows = self.log[done:nl]
            stub = {f"points_{s}": 0 for s in range(self.players)}
            stub.update(turns=0, stock_left=0, mulligans=0, winner=-1)
            text = format_log(rows, nl - done, stub, self.players)[:-3]
            for r, t in zip(rows, text):
                self._lines.append((int(r[0]), int(r[1]), t))
        return self._lines

    def _public_lines(self, seat: int) -> list[str]:
        return [t for k, s, t in self._update_lines() if k != LOG_DEAL or s == seat]

    def _exposed(self):
        if self._to_move >= 0 and self.cur[C_PHASE] == PH_CLAIM:
            return int(self.cur[C_CARD]), int(self.cur[C_SRC]), bool(self.cur[C_DRAW])
        return None

    def observation(self, seat: int) -> dict[str, Any]:
        P = self.players
        h = self.hands[seat]
        lk = [t for t in range(N_TYPES) if (int(self.locked[seat]) >> t) & 1 and h[t] == 3]
        exp = self._exposed()
        return {
            "seat": int(seat),
            "to_move": self._to_move,
            "phase": self.decision_kind(),
            "hand": [type_name(t) for t in range(N_TYPES) for _ in range(int(h[t]))],
            "hand_counts": h.tolist(),
            "locked": [type_name(t) for t in lk],
            "tables": [[type_name(t) for t in range(N_TYPES) for _ in range(int(self.table[s, t]))]
                       for s in range(P)],
            "table_counts": self.table[:P].tolist(),
            "laid_points": self.exp_pts[:P].tolist(),
            "discards": self.discards.tolist(),
            "exposed": None if exp is None else {"card": type_name(exp[0]), "type": exp[0], "source": exp[1],
                                                  "drawn": exp[2]},
            "stock": int(self.cur[C_NSTOCK]),
            "hand_sizes": self.hands[:P].sum(axis=1).tolist(),
            "winner": int(self.cur[C_WINNER]) if self._to_move < 0 else None,
            "history": self._public_lines(seat),
            "legal_actions": self.legal_actions() if seat == self._to_move else [],
        }

    def observation_vector(self, seat: int) -> np.ndarray:
        P = self.players
        v = np.zeros(OBS_SIZE, np.float32)
        o = 0
        h = self.hands[seat]
        v[o:o + N_TYPES] = h
        o += N_TYPES
        for t in range(N_TYPES):
            if (int(self.locked[seat]) >> t) & 1 and h[t] == 3:
                v[o + t] = 1
        o += N_TYPES
        v[o:o + P * N_TYPES] = self.table[:P].reshape(-1)
        o += 4 * N_TYPES
        v[o:o + N_TYPES] = self.discards
        o += N_TYPES
        exp = self._exposed()
        v[o + (N_TYPES if exp is None else exp[0])] = 1
        o += N_TYPES + 1
        if exp is not None:
            v[o + exp[1]] = 1
            v[o + 4] = float(exp[2])
        o += 5
        v[o + self._kind()] = 1
        o += len(KINDS)
        if self._to_move >= 0:
            v[o + self._to_move] = 1
        o += 4
        v[o + seat] = 1
        o += 4
        v[o:o + P] = self.hands[:P].sum(axis=1)
        o += 4
        v[o:o + P] = self.exp_pts[:P]
        o += 4
        v[o] = self.cur[C_NSTOCK]
        o += 1
        if seat == self._to_move:
            v[o + self.legal[:self.n_legal]] = 1
        return v

    def resample(self, seat: int, rng: np.random.Generator) -> "TuSacStep":
        """A copy where the cards ``seat`` cannot see (the other seats' hidden hands, the
        stock) are dealt again at random (:func:`.search.determinize`, the search's own
        sampler: hand sizes kept; under ``trio_lock`` a hidden triple is a locked one, as
        hidden hands only shrink after the deal), conditioned by rejection on what the
        decision due shows: nobody can win the exposed card, a steal is asked of the first
        seat able to steal, the seat to move has two or more choices. The game's random
        stream is drawn from ``rng``; the search stream is kept. The other seats' deal
        records are rewritten to agree (their dealt hands = hidden + laid from the hand +
        discarded from the hand + dealt quadruples)."""
        g = self.clone()
        whands = np.empty_like(self.hands)
        wlocked = np.empty_like(self.locked)
        wdeck = np.empty_like(self.deck)
        key = rng.integers(0, 2 ** 64, dtype=np.uint64)
        ok, _ = _resample(self.prm, np.int64(seat), np.int64(self._to_move), self.cur, self.deck, self.hands,
                          self.table, self.discards, self.locked, self.exp_pts, whands, wlocked, wdeck, key,
                          self.trash_tab, self.score_tab, self.win_tab, g.okind, g.opts, g.orev,
                          np.int64(_RESAMPLE_TRIES))
        if ok:  # else (about 1 in 10,000 states, a rare constraint) the true cards: a consistent world
            g.hands[:] = whands
            g.locked[:] = wlocked
            g.deck[:] = wdeck
        g.state = rng.integers(0, 2 ** 64, dtype=np.uint64)
        g._stash = None
        g._resampled = True
        if g._to_move >= 0:
            g.n_legal = int(_legal(g.prm, g.cur, g.hands, g.locked, g.okind, g.opts, g.orev, g.legal)[1])
        g._rewrite_deal_rows(seat)
        return g

    def _rewrite_deal_rows(self, seat: int):
        """The deal records of the other seats, made to agree with their resampled hands:
        the dealt hand = the hidden hand + the hand cards it laid in melds + its discards
        from the hand + its dealt quadruples."""
        P = self.players
        nl = int(self.cur[C_NLOG])
        dealt = self.hands[:P].astype(np.int64)
        for kind, s, a, b, c, _ in self.log[:nl]:
            if s < 0 or s >= P:
                continue
            if kind == LOG_QUAD:
                dealt[s, a] += 4
            elif kind == LOG_MELD:
                for t in rev_types(c):
                    dealt[s, t] += 1
            elif kind == LOG_DISCARD and b == 0:
                dealt[s, a] += 1
        lock = self.prm[P_LOCK] != 0
        for i in range(nl):
            kind, s = int(self.log[i, 0]), int(self.log[i, 1])
            if kind == LOG_DEAL and s != seat and 0 <= s < P:
                h = dealt[s]
                lo = sum(int(h[t]) << (3 * t) for t in range(14))
                hi = sum(int(h[14 + t]) << (3 * t) for t in range(14))
                mask = sum(1 << t for t in range(N_TYPES) if h[t] == 3) if lock else 0
                self.log[i, 2:5] = (lo, hi, mask)
        self._lines = []  # formatted again on demand

    # ------------------------------------------------------------------ the end
    def result(self) -> dict[str, Any]:
        cols = _columns(self.index, 1, self.players, self.meta[None, :], self.seat[None, :, :])
        row = {k: v[0].item() for k, v in cols.items()}
        if self.luck is not None:
            row.update({f"draw_luck_{name}_{s}": float(self.luck[s, f]) for f, name in enumerate(LUCK_NAMES)
                        for s in range(self.players)})
        return {"games": row}

    def returns(self) -> list[float]:
        return [float(self.seat[S_POINTS, s]) for s in range(self.players)]

    def deal(self) -> dict[str, Any]:
        if self._resampled:
            raise ValueError("a resampled state has no deal of its own")
        deck, state, sstate, mull = self._deal
        lo = stock_start(self.players)
        hands, j = [], 0
        for n in self.rules.hand_sizes:
            hands.append(sorted(int(t) for t in deck[j:j + n]))
            j += n
        return {"hands": hands, "stock": [int(t) for t in deck[lo:]], "rng": state, "search_rng": sstate,
                "mulligans": [list(w) for w in mull]}

    def log_lines(self) -> list[str]:
        nl = int(self.cur[C_NLOG])
        cols = _columns(self.index, 1, self.players, self.meta[None, :], self.seat[None, :, :])
        row = {k: v[0].item() for k, v in cols.items()}
        lines = format_log(self.log, nl, row, self.players)
        # the moves only: ``cardsim replay`` heads them with the game, seed and policies
        return lines if self._finished else lines[:-3]
