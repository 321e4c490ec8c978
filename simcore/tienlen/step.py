"""Tiến Lên one decision at a time (:class:`~cardsim.simcore.framework.step.StepGame`).

The state is the play kernel's own: ``st`` int64[ST_SIZE], ``hands`` uint64[8], the per-seat
statistics and the move log, and :func:`.engine.run_turns` with ``pause_each`` stops before
every decision (a passed player is asked only when it holds a bomb it may play under
``bombs_after_pass``). The built-in policies decide through :func:`.policies.choose` and
:func:`.search.search_decision`, every decision is applied by :func:`.engine.decide_and_apply`
and observed by the fitted search seats (:func:`.search.observe_decision`), as in
:func:`.play.play_dealt`.

Action ids
----------
``0`` is the pass; a play is the set of positions of its cards in the mover's hand sorted
from the lowest card up: bit ``j`` of the id set = the ``j``-th lowest card of the hand
(``3`` = the two lowest cards). ``num_actions = 2 ** cards_per_player``.

Explicit deal (:meth:`TienLenStep.deal`)
-----------------------------------------
``{"hands": ["3♠ 4♥ ...", ...], "rng": int, "search_rng": int, "first": bool,
"prev_winner": int}``: each seat's cards, the game's random stream after the deal (the
random policy draws from it), the search stream, whether the game opens a match (the
lowest dealt card leads and must be played) or else who won the previous game (leads).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from cardsim.simcore.primitives.movelog import LOG_WIDTH
from cardsim.simcore.tienlen.cards import card_name, hand_str, mask_cards, parse_cards
from cardsim.simcore.tienlen.engine import (N_META, N_SEAT, RUN_DONE, S_POINTS, ST_ACTIVE, ST_FLOOR, ST_LAST,
                                            ST_NCARDS, ST_PASSED, ST_PLACE, ST_PLAYED, ST_REQ, ST_SIZE, ST_TABLE_CLS,
                                            ST_TABLE_MASK, ST_TURN, decide_and_apply, finish_game, opponents_min,
                                            run_turns, start_game, decision_options)
from cardsim.simcore.tienlen.rules import P_PLAYERS, profile_arg
from cardsim.simcore.tienlen.log import LOG_CAP, LOG_DEAL, LOG_PLAY, format_log
from cardsim.simcore.tienlen.moves import N_CLASSES, class_name, count_moves, count_moves_any, unrank_move, unrank_move_any
from cardsim.simcore.tienlen.play import CAND_CAP, _columns, seat_weights
from cardsim.simcore.tienlen.rules import kernel_params
from cardsim.simcore.tienlen.policies import POL_SEARCH, choose_any
from cardsim.simcore.tienlen.search import N_MODELS, any_fitted, observe_decision, search_decision
from cardsim.simcore.framework.step import StepGame
from cardsim.simcore.framework.tasks import policy_codes, seat_budgets
from cardsim.simcore.tienlen.policies import POLICIES

_U0 = np.uint64(0)
_U1 = np.uint64(1)


# ----------------------------------------------------------------------------- kernels
@njit(cache=True)
def _to_decision(st, hands, prm, pol, wts, rng, seat, log, nl, acls, amin, counts, cand, ccls, meta, five):
    """Play forced turns (skips) up to the next decision; at the end fill ``meta`` and
    ``seat`` (:func:`.engine.finish_game`). Returns ``(done, rng, log rows)``. ``five``:
    the engine's profile (:func:`.rules.profile_arg`), in every kernel here."""
    outcome, rng, nl = run_turns(st, hands, prm, pol, wts, rng, seat, log, nl, np.bool_(True), acls, amin, counts,
                                 cand, ccls, np.int64(-1), np.bool_(True), five)
    if outcome == RUN_DONE:
        finish_game(st, hands, prm, meta, seat)
        return True, rng, nl
    return False, rng, nl


@njit(cache=True)
def _position_id(hand, move):
    """The action id of ``move``: its cards' positions in ``hand`` (lowest card = bit 0)."""
    aid = np.int64(0)
    j = 0
    for c in range(52):
        b = _U1 << np.uint64(c)
        if hand & b:
            if move & b:
                aid |= np.int64(1) << j
            j += 1
    return aid


@njit(cache=True)
def _legal(st, hands, prm, acls, amin, counts, five):
    """Every legal decision of the seat to move: ``(ids int64[n], masks uint64[n],
    classes int64[n])``, plays in move order then the pass (id 0, class -1) when allowed."""
    turn = st[ST_TURN]
    h = hands[turn]
    n_acl, can_pass, is_passed = decision_options(st, prm, acls, amin, five)
    if five is None:
        n_play = count_moves(h, n_acl, acls, amin, st[ST_REQ], counts)
    else:
        n_play = count_moves_any(h, n_acl, acls, amin, st[ST_REQ], counts)
    n = n_play + (1 if can_pass else 0)
    ids = np.zeros(n, np.int64)
    masks = np.zeros(n, np.uint64)
    classes = np.full(n, -1, np.int64)
    for i in range(n_play):
        if five is None:
            m, c = unrank_move(h, n_acl, acls, amin, st[ST_REQ], counts, i)
        else:
            m, c = unrank_move_any(h, n_acl, acls, amin, st[ST_REQ], counts, i)
        masks[i] = m
        classes[i] = c
        ids[i] = _position_id(h, m)
    return ids, masks, classes


@njit(cache=True)
def _choose_builtin(st, hands, prm, policy, rng, acls, amin, counts, cand, ccls, wts, five):
    """The decision of a non-search built-in ``policy`` for the seat to move: ``(mask,
    class, rng after)``, exactly as :func:`.engine.run_turns` asks it."""
    turn = st[ST_TURN]
    n_acl, can_pass, is_passed = decision_options(st, prm, acls, amin, five)
    return choose_any(policy, hands[turn], n_acl, acls, amin, counts, st[ST_REQ], can_pass, st[ST_TABLE_CLS],
                      opponents_min(st, prm[P_PLAYERS], turn), st[ST_ACTIVE] == 2, rng, cand, ccls, wts[turn], five)


@njit(cache=True)
def _choose_search(st, hands, prm, budget, srng, acls, amin, counts, cand, ccls, opp_ll, wts, five):
    """The search's decision for the seat to move: ``(mask, class, search stream after)``."""
    move, mcls, srng, used = search_decision(st, hands, prm, budget, srng, acls, amin, counts, cand, ccls, opp_ll,
                                             wts, five)
    return move, mcls, srng


@njit(cache=True)
def _observe(st, hands, prm, pol, budgets, move, mcls, srng, opp_ll, acls, amin, counts, cand, ccls, five):
    """The fitted search seats observe the decision about to be applied (not a passed
    player's: :func:`.search.decide_pending`). Returns the search stream's state."""
    n_acl, can_pass, is_passed = decision_options(st, prm, acls, amin, five)
    if is_passed:
        return srng
    return observe_decision(st, hands, prm, pol, budgets, move, mcls, n_acl, can_pass, acls, amin, counts, cand,
                            ccls, srng, opp_ll, five)


@njit(cache=True)
def _apply(st, hands, prm, pol, wts, rng, seat, log, nl, acls, amin, counts, cand, ccls, meta, move, mcls, five):
    """Apply the decision ``(move, mcls)`` of the seat to move and play on to the next
    decision. Returns ``(done, rng, log rows)``."""
    n_acl, can_pass, is_passed = decision_options(st, prm, acls, amin, five)
    nl = decide_and_apply(st, hands, prm[P_PLAYERS], seat, pol[st[ST_TURN]], move, mcls, is_passed, log, nl,
                          np.bool_(True))
    return _to_decision(st, hands, prm, pol, wts, rng, seat, log, nl, acls, amin, counts, cand, ccls, meta, five)


# ----------------------------------------------------------------------------- the game
class TienLenStep(StepGame):
    """One Tiến Lên game stepped decision by decision (see the module docstring)."""

    game = "tienlen"

    def __init__(self, rules, policies: list[str]):
        self.rules = rules
        self.players = rules.players
        self.num_actions = 1 << rules.cards_per_player
        self.obs_size = sum(n for _, n in self.observation_layout(rules))
        self.policies = list(policies)
        self.prm = kernel_params(rules, 1)
        self.five = profile_arg(self.prm)
        self.pol = policy_codes(self.policies, self.players, POLICIES)
        budgets = seat_budgets(self.pol, self.policies, self.players, POL_SEARCH)
        self.budgets = np.zeros(self.players, np.int64) if budgets is None else budgets
        self.observe = budgets is not None and bool(any_fitted(self.pol, self.budgets))
        self.wts = seat_weights(None, self.players, self.policies, rules.GAME)
        self.st = np.zeros(ST_SIZE, np.int64)
        self.hands = np.zeros(8, np.uint64)
        self.seat = np.zeros((N_SEAT, self.players), np.int16)
        self.meta = np.zeros(N_META, np.int16)
        self.log = np.zeros((LOG_CAP, LOG_WIDTH), np.int64)
        self.nl = 0
        self.opp_ll = np.zeros((self.players, self.players, N_MODELS))
        self._scratch()
        self.rng = np.uint64(0)
        self.srng = np.uint64(0)
        self.finished = False
        self._deal: dict[str, Any] = {}
        self._cache: dict[str, Any] = {}

    def _scratch(self):
        self.acls = np.zeros(N_CLASSES, np.int64)
        self.amin = np.zeros(N_CLASSES, np.int64)
        self.counts = np.zeros(N_CLASSES, np.int64)
        self.cand = np.zeros(CAND_CAP, np.uint64)
        self.ccls = np.zeros(CAND_CAP, np.int64)

    # ------------------------------------------------------------------ construction
    @classmethod
    def new(cls, rules, policies, seed, index, deal=None, games_per_match: int = 1):
        from cardsim.simcore.primitives.rng import search_key
        from cardsim.simcore.tienlen.play import deal_with_state

        g = cls(rules, policies)
        if deal is None:
            hands, state = deal_with_state(seed, index, rules.players, rules.cards_per_player)
            K = int(games_per_match)
            first = index % K == 0
            prev = -1
            if not first:  # the previous game of the match, as play played it, names the leader
                from cardsim.simcore.tienlen.play import play_chunk

                m0 = index - index % K
                cols = play_chunk(seed, m0, index - m0, rules, g.policies, K, n_blocks=1)
                prev = int(cols["winner"][-1])
            deal = {"hands": [hand_str(int(h), rules.suit_order) for h in hands], "rng": int(state),
                    "search_rng": int(search_key(np.uint64(seed), np.int64(index))), "first": bool(first),
                    "prev_winner": prev}
        g._start(deal)
        return g

    def _start(self, deal: dict):
        rules = self.rules
        try:
            texts = deal["hands"]
            if not isinstance(texts, (list, tuple)) or len(texts) != self.players:
                raise ValueError(f"a Tiến Lên deal needs {self.players} hands")
            masks = [parse_cards(t, rules.suit_order) if isinstance(t, str) else int(t) for t in texts]
            first = bool(deal.get("first", True))
            prev = int(deal.get("prev_winner", -1))
            rng = np.uint64(int(deal.get("rng", 0)))
            srng = np.uint64(int(deal.get("search_rng", 0)))
        except (KeyError, TypeError, OverflowError) as exc:
            raise ValueError(f"bad Tiến Lên deal: {exc}") from None
        seen = 0
        for m in masks:
            if m & seen:
                raise ValueError("bad Tiến Lên deal: a card is dealt twice")
            if bin(m).count("1") != rules.cards_per_player:
                raise ValueError(f"bad Tiến Lên deal: every hand must hold {rules.cards_per_player} cards")
            seen |= m
        if not first and not 0 <= prev < self.players:
            raise ValueError("bad Tiến Lên deal: a later game of a match needs prev_winner, the seat that leads")
        self._deal = {"hands": [hand_str(m, rules.suit_order) for m in masks], "rng": int(rng),
                      "search_rng": int(srng), "first": first, "prev_winner": prev}
        self.hands[:] = 0
        self.hands[:self.players] = np.array(masks, np.uint64)
        flags = np.zeros(8, np.int64)
        self.nl = int(start_game(self.hands, first, np.int64(prev), self.prm, self.st, flags, self.meta, self.seat,
                                 self.log, True))
        self.srng = srng
        self._run(lambda: _to_decision(self.st, self.hands, self.prm, self.pol, self.wts, rng, self.seat, self.log,
                                       np.int64(self.nl), self.acls, self.amin, self.counts, self.cand, self.ccls,
                                       self.meta, self.five))

    def _run(self, step):
        done, rng, nl = step()
        self.finished = bool(done)
        self.rng = np.uint64(rng)
        self.nl = int(nl)
        self._cache = {}

    def clone(self):
        g = type(self).__new__(type(self))
        g.__dict__.update(self.__dict__)
        for name in ("st", "hands", "seat", "meta", "log", "opp_ll"):
            setattr(g, name, getattr(self, name).copy())
        g._scratch()
        g._deal = dict(self._deal)
        g._cache = {}
        return g

    # ------------------------------------------------------------------ the decision due
    def to_move(self) -> int:
        return -1 if self.finished else int(self.st[ST_TURN])

    def _legal_arrays(self):
        if "legal" not in self._cache:
            ids, masks, classes = _legal(self.st, self.hands, self.prm, self.acls, self.amin, self.counts, self.five)
            order = np.argsort(ids, kind="stable")
            self._cache["legal"] = (ids[order], masks[order], classes[order])
            self._cache["index"] = {int(a): i for i, a in enumerate(self._cache["legal"][0])}
        return self._cache["legal"]

    def legal_actions(self) -> list[int]:
        if self.finished:
            return []
        return self._legal_arrays()[0].tolist()

    def is_legal(self, action: int) -> bool:
        if self.finished:
            return False
        self._legal_arrays()
        return action in self._cache["index"]

    def _move(self, action: int):
        ids, masks, classes = self._legal_arrays()
        i = self._cache["index"][action]
        return masks[i], int(classes[i])

    def action_text(self, action: int) -> str:
        mask, cls = self._move(int(action))
        if cls < 0:
            return "pass"
        return f"{hand_str(int(mask), self.rules.suit_order)} [{class_name(cls)}]"

    def decision_kind(self) -> str:
        n_acl, can_pass, is_passed = decision_options(self.st, self.prm, self.acls, self.amin, self.five)
        if is_passed:
            return "bomb"  # a passed player who may still bomb (bombs_after_pass)
        return "lead" if self.st[ST_TABLE_CLS] < 0 else "play"

    def policy_action(self) -> int:
        if "policy" not in self._cache:
            turn = int(self.st[ST_TURN])
            if self.pol[turn] == POL_SEARCH:
                move, mcls, srng = _choose_search(self.st, self.hands, self.prm, np.int64(self.budgets[turn]),
                                                  self.srng, self.acls, self.amin, self.counts, self.cand, self.ccls,
                                                  self.opp_ll, self.wts, self.five)
                rng = self.rng
            else:
                move, mcls, rng = _choose_builtin(self.st, self.hands, self.prm, np.int64(self.pol[turn]), self.rng,
                                                  self.acls, self.amin, self.counts, self.cand, self.ccls, self.wts,
                                                  self.five)
                srng = self.srng
            aid = 0 if mcls < 0 else int(_position_id(self.hands[turn], np.uint64(move)))
            self._cache["policy"] = (aid, np.uint64(rng), np.uint64(srng))
        return self._cache["policy"][0]

    def apply(self, action: int) -> None:
        action = int(action)
        mask, cls = self._move(action)
        stashed = self._cache.get("policy")
        if stashed is not None and stashed[0] == action:
            self.rng, self.srng = stashed[1], stashed[2]
        if self.observe:
            self.srng = np.uint64(_observe(self.st, self.hands, self.prm, self.pol, self.budgets, np.uint64(mask),
                                           np.int64(cls), self.srng, self.opp_ll, self.acls, self.amin, self.counts,
                                           self.cand, self.ccls, self.five))
        rng = self.rng
        self._run(lambda: _apply(self.st, self.hands, self.prm, self.pol, self.wts, rng, self.seat, self.log,
                                 np.int64(self.nl), self.acls, self.amin, self.counts, self.cand, self.ccls,
                                 self.meta, np.uint64(mask), np.int64(cls), self.five))

    # ------------------------------------------------------------------ what a seat sees
    @classmethod
    def observation_layout(cls, rules) -> list[tuple[str, int]]:
        """Blocks of :meth:`observation_vector` (every block 0/1 unless said):

        ``hand`` 52 (own cards by card id), ``played`` 52 (cards played so far), ``table``
        52 (the combination to beat), ``table_class`` N_CLASSES (one-hot; none on a lead),
        ``cards_left`` 4 (per seat, divided by cards_per_player), ``passed`` 4 (passed
        this trick), ``out`` 4 (has a place), ``to_move`` 4, ``me`` 4, ``last_player`` 4
        (who played the table), ``must_contain`` 52 (the first lead's required card)."""
        return [("hand", 52), ("played", 52), ("table", 52), ("table_class", N_CLASSES), ("cards_left", 4),
                ("passed", 4), ("out", 4), ("to_move", 4), ("me", 4), ("last_player", 4), ("must_contain", 52)]

    def _public_lines(self, seat: int) -> list[str]:
        lines = format_log(self.log, self.nl, self._row_stub(), self.players, self.rules.suit_order)[:-2]
        out = []
        for line in lines:
            if line.startswith("deal seat ") and not line.startswith(f"deal seat {seat}:"):
                continue
            out.append(line)
        return out

    def _row_stub(self):
        return {f"{k}_{s}": 0 for k in ("place", "points") for s in range(self.players)}

    def observation(self, seat: int) -> dict[str, Any]:
        so = self.rules.suit_order
        st = self.st
        hand = int(self.hands[seat])
        table_cls = int(st[ST_TABLE_CLS])
        obs = {
            "game": self.game,
            "seat": seat,
            "to_move": self.to_move(),
            "decision": None if self.finished else self.decision_kind(),
            "hand": [card_name(c, so) for c in mask_cards(hand)],
            "cards_left": [int(st[ST_NCARDS + s]) for s in range(self.players)],
            "table": None if table_cls < 0 else {"cards": hand_str(int(st[ST_TABLE_MASK]), so).split(),
                                                 "combination": class_name(table_cls), "by": int(st[ST_LAST])},
            "passed": [s for s in range(self.players) if (int(st[ST_PASSED]) >> s) & 1],
            "places": [int(st[ST_PLACE + s]) for s in range(self.players)],
            "must_contain": card_name(int(st[ST_REQ]), so) if st[ST_REQ] >= 0 else None,
            "played": [card_name(c, so) for c in mask_cards(int(st[ST_PLAYED]))],
            "history": self._public_lines(seat),
            "legal_actions": [],
        }
        if not self.finished and seat == self.to_move():
            obs["legal_actions"] = [[a, self.action_text(a)] for a in self.legal_actions()]
        return obs

    #: Size of the observation vector's ``table_class`` block (one slot per class).
    TABLE_CLASS_SLOTS = N_CLASSES

    @staticmethod
    def table_class_slot(cls: int) -> int:
        """A class id's slot in the ``table_class`` block (a profile with other classes overrides it)."""
        return cls

    def observation_vector(self, seat: int) -> np.ndarray:
        st = self.st
        v = np.zeros(self.obs_size, np.float32)
        masks = np.array([self.hands[seat], st[ST_PLAYED], st[ST_TABLE_MASK]], "<u8")
        v[:156] = np.unpackbits(masks.view(np.uint8), bitorder="little").reshape(3, 64)[:, :52].ravel()
        off = 156
        if st[ST_TABLE_CLS] >= 0:
            v[off + self.table_class_slot(int(st[ST_TABLE_CLS]))] = 1
        off += self.TABLE_CLASS_SLOTS
        for s in range(self.players):
            v[off + s] = st[ST_NCARDS + s] / self.rules.cards_per_player
            v[off + 4 + s] = (int(st[ST_PASSED]) >> s) & 1
            v[off + 8 + s] = st[ST_PLACE + s] != 0
        if not self.finished:
            v[off + 12 + int(st[ST_TURN])] = 1
        v[off + 16 + seat] = 1
        if st[ST_TABLE_CLS] >= 0:
            v[off + 20 + int(st[ST_LAST])] = 1
        off += 24
        if st[ST_REQ] >= 0:
            v[off + int(st[ST_REQ])] = 1
        return v

    def resample(self, seat: int, rng: np.random.Generator) -> "TienLenStep":
        """Other seats' hands dealt again from the cards ``seat`` cannot see (not its own,
        not played, not below the first lead's card), each keeping its size; the game's
        random stream drawn anew (the search stream kept)."""
        g = self.clone()
        st = self.st
        hand = int(self.hands[seat])
        pool = ((1 << 52) - 1) & ~hand & ~int(st[ST_PLAYED])
        pool &= ~((1 << int(st[ST_FLOOR])) - 1)
        cards = np.array(mask_cards(pool), np.int64)
        rng.shuffle(cards)
        pos = 0
        for o in range(self.players):
            if o == seat:
                continue
            n = int(st[ST_NCARDS + o])
            m = 0
            for c in cards[pos:pos + n]:
                m |= 1 << int(c)
            pos += n
            g.hands[o] = np.uint64(m)
        g.rng = np.uint64(int(rng.integers(0, 2**63)))
        g._rewrite_deal_rows()
        g._cache = {}
        return g

    def _rewrite_deal_rows(self):
        """After :meth:`resample`: each seat's dealt hand = its cards now + the cards it played."""
        played = [0] * self.players
        for row in self.log[:self.nl]:
            if row[0] == LOG_PLAY:
                played[int(row[1])] |= int(row[2])
        for row in self.log[:self.nl]:
            if row[0] == LOG_DEAL:
                s = int(row[1])
                row[2] = np.int64(int(self.hands[s]) | played[s])
        self._deal = dict(self._deal, hands=[hand_str(int(r[2]), self.rules.suit_order)
                                              for r in self.log[:self.nl] if r[0] == LOG_DEAL])

    # ------------------------------------------------------------------ the end
    def result(self) -> dict[str, Any]:
        if not self.finished:
            raise ValueError("the game is not over")
        from cardsim.simcore.tienlen.tasks import INSTANT_KIND_NAMES

        cols = _columns(0, 1, 1, self.players, self.meta[None, :], self.seat[None, :, :])
        row = {k: v[0].item() for k, v in cols.items() if k not in ("game", "match")}
        row["instant_kind"] = INSTANT_KIND_NAMES[row["instant_kind"] + 1]  # as the games table stores it
        return {"games": row}

    def returns(self) -> list[float]:
        return [float(self.seat[S_POINTS, s]) for s in range(self.players)]

    def deal(self) -> dict[str, Any]:
        return dict(self._deal)

    def log_lines(self) -> list[str]:
        row = self.result()["games"] if self.finished else self._row_stub()
        lines = format_log(self.log, self.nl, row, self.players, self.rules.suit_order)
        return lines if self.finished else lines[:-2]

