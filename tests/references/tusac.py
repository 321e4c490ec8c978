"""Readable pure-Python reference of Tứ Sắc claims and of one whole game.

Written from the spec (``docs/rules/tusac.md``) and the reading documented in
:mod:`simcore.tusac.play` and :mod:`simcore.tusac.claims`, without the kernel's tables for wins: a win is found by
listing every meld that contains the taken card (:func:`melds_with`) and asking the
meld engine whether the rest of the hidden hand melds completely
(:func:`simcore.tusac.melds.evaluate`). It is slow (about 100 times slower than the
kernel on one core, though its meld evaluations still run in numba) and serves

- :func:`resolve_claims`: who gets an exposed card (tests compare it with the kernel on
  random situations);
- :func:`play_game`: one game, decision for decision and random draw for random draw as
  the kernel plays it (same RNG stream, same option order), so whole games can be
  compared, and as the benchmark baseline.
"""
from __future__ import annotations

import numpy as np

from cardsim.simcore.primitives.rng import randbelow, shuffle_prefix_planned
from cardsim.simcore.tusac.cards import N_TYPES
from cardsim.simcore.tusac.deal import BASE_DECK, deal_into, deal_plan
from cardsim.simcore.tusac.melds import evaluate
from cardsim.simcore.tusac.rules import TuSacRules

GENERAL, SOLDIER = 0, 6
KINDS = ("general", "pair", "triple", "quadruple", "command", "field", "three_colour_soldiers",
         "full_colour_soldiers")


def is_general(t: int) -> bool:
    return t % 7 == GENERAL


def locked_triple(hand, locked: int, t: int) -> bool:
    return bool(locked >> t & 1) and hand[t] >= 3


def melds_with(hand, locked: int, c: int, rules: TuSacRules) -> list[tuple[str, int, list[int]]]:
    """Melds containing the taken card ``c``: ``(kind, taken points, hand types revealed)``,
    in the kernel's order. A locked triple is used whole or not at all."""
    out = []
    ch, col = c % 7, c // 7
    hc = hand[c]
    lk = locked_triple(hand, locked, c)

    def free(t, k):  # may k copies of t leave the hand?
        return hand[t] >= k and (not locked_triple(hand, locked, t) or hand[t] - k >= 3
                                 or (t == c and k == 3))

    if ch == GENERAL:
        out.append(("general", 1, []))
    elif (ch != SOLDIER or rules.soldier_pairs) and hc >= 1 and (not lk or hc - 1 >= 3):
        out.append(("pair", 0, [c]))
    if ch != GENERAL and hc >= 2 and free(c, 2):  # a taken General never makes a triple
        out.append(("triple", 1, [c, c]))
    if hc >= 3:
        out.append(("quadruple", 6, [c, c, c]))
    if ch != SOLDIER:
        family = [col * 7 + k for k in ((0, 1, 2) if ch < 3 else (3, 4, 5))]
        others = [t for t in family if t != c]
        if all(free(t, 1) for t in others):
            out.append(("command" if ch < 3 else "field",
                        rules.command_points if ch < 3 else rules.field_points, others))
    else:
        others = [k * 7 + SOLDIER for k in range(4) if k * 7 + SOLDIER != c and free(k * 7 + SOLDIER, 1)]
        for i in range(len(others)):
            for j in range(i + 1, len(others)):
                out.append(("three_colour_soldiers", rules.three_colour_soldier_points, [others[i], others[j]]))
        if len(others) == 3:
            out.append(("full_colour_soldiers", rules.full_colour_soldier_points, others))
    return out


def steal_melds(hand, locked: int, c: int, rules: TuSacRules, general_draw: bool) -> list:
    """The melds of a claim for a triple or quadruple: a triple needs a pair in the hand
    (``triple_steal=pair``: not three copies) and never takes a drawn General."""
    triple_ok = not general_draw and (rules.triple_steal != "pair" or hand[c] == 2)
    return [o for o in melds_with(hand, locked, c, rules)
            if o[0] == "quadruple" or (o[0] == "triple" and triple_ok)]


def win_points(hand, locked: int, c: int, rules: TuSacRules) -> int:
    """Best score of the hidden part of a win with taken card ``c`` (-1: no win)."""
    best = -1
    points = rules.points()
    for _, pts, rev in melds_with(hand, locked, c, rules):
        rest = np.array(hand, np.int8)
        for t in rev:
            rest[t] -= 1
        trash, score = evaluate(rest, points, locked)
        if trash == 0:
            best = max(best, pts + score)
    return best


def normal_taker(c: int, src: int, is_draw: bool, rules: TuSacRules) -> int:
    if not is_draw or (rules.priority == "taiwanese" and not is_general(c)):
        return (src + 1) % rules.players
    return src


def resolve_claims(hands, locked, exposed_points, c: int, src: int, is_draw: bool, rules: TuSacRules) -> dict:
    """Who may have the exposed card ``c`` (drawn by / discarded by ``src``).

    Returns ``{"winner": seat or -1, "n_winners": k, "win_score": hidden-part score,
    "stealer": seat or -1 (a possible triple/quadruple steal when nobody wins),
    "normal": the level-3 taker}``.
    """
    P = rules.players
    normal = normal_taker(c, src, is_draw, rules)
    may_steal = {int(s) for s in rules.steal_seats if int(s) < P}
    start = src if is_draw else (src + 1) % P
    order = [(start + k) % P for k in range(P)]
    if not is_draw:
        order.remove(src)
    winners = []
    for s in order:
        own = s == normal or (is_draw and s == src)
        if not own and (rules.steals == "off" or s not in may_steal):
            continue
        w = win_points(hands[s], locked[s], c, rules)
        if w >= 0 and w + exposed_points[s] >= rules.win_threshold:
            winners.append((s, w))
    stealer = -1
    if rules.steals == "on":
        for s in range(P):
            if s in (src, normal) or s not in may_steal or hands[s][c] < 2:
                continue
            if is_draw and is_general(c) and (rules.general_steals == "never" or hands[s][c] < 3):
                continue
            stealer = s
    return {"winner": winners[0][0] if winners else -1, "n_winners": len(winners),
            "win_score": winners[0][1] if winners else -1, "stealer": stealer, "normal": normal}


# ----------------------------------------------------------------------------- one game

class _Game:
    def __init__(self, seed, index, rules: TuSacRules, policies):
        self.rules = rules
        self.P = P = rules.players
        self.pol = list(policies)
        self.points = rules.points()
        _, g, p = deal_plan(P)
        deck = BASE_DECK.copy()
        state = deal_into(np.uint64(seed), np.int64(index), deck, BASE_DECK, g, p)
        ndealt = 21 + 20 * (P - 1)
        self.mulligans = 0
        while True:
            hands = [[0] * N_TYPES for _ in range(P)]
            for j in range(ndealt):
                hands[0 if j < 21 else 1 + (j - 21) // 20][int(deck[j])] += 1
            if not rules.mulligan or self.mulligans >= 100 or not any(map(self.weak, hands)):
                break
            self.mulligans += 1
            deck = BASE_DECK.copy()
            state = shuffle_prefix_planned(np.uint64(state), deck, g, p)
        self.state = np.uint64(state)
        self.hands = hands
        self.stock = [int(x) for x in deck[ndealt:]]
        self.locked = [sum(1 << t for t in range(N_TYPES) if h[t] == 3) if rules.trio_lock else 0 for h in hands]
        self.dealt_triples = [sum(h[t] == 3 for t in range(N_TYPES)) for h in hands]
        self.dealt_quads = [sum(h[t] == 4 for t in range(N_TYPES)) for h in hands]
        self.exposed = [0] * P
        for s, h in enumerate(hands):
            for t in range(N_TYPES):
                if h[t] == 4:
                    h[t] = 0
                    self.exposed[s] += 8
        self.steals = {"win": [0] * P, "quadruple": [0] * P, "triple": [0] * P}
        self.log = []

    @staticmethod
    def weak(h):
        return (not any(h[t] for t in range(0, 28, 7)) and max(h) < 3
                and not all(h[t] for t in range(6, 28, 7)))

    def rand(self, n):
        state, r = randbelow(np.uint64(self.state), n)
        self.state = np.uint64(state)
        return int(r)

    def value(self, h, locked):
        trash, score = evaluate(np.array(h, np.int8), self.points, locked)
        return -10 * trash + score

    def legal_discards(self, h, locked):
        return [t for t in range(N_TYPES) if h[t] and not is_general(t) and not (locked >> t & 1 and h[t] == 3)]

    def best_discard(self, h, locked):
        """Least trash, then most points, then the lowest type (kernel's order)."""
        best = None
        for t in self.legal_discards(h, locked):
            h[t] -= 1
            trash, score = evaluate(np.array(h, np.int8), self.points, locked)
            h[t] += 1
            if best is None or (trash, -score) < best[1]:
                best = (t, (trash, -score))
        if best is None:
            trash, score = evaluate(np.array(h, np.int8), self.points, locked)
            return -1, -10 * trash + score
        return best[0], -10 * best[1][0] - best[1][1]

    def choose(self, s, options, allow_decline):
        if self.pol[s] == "random":
            n = len(options) + allow_decline
            if n <= 1:
                return 0 if options else -1
            r = self.rand(n)
            return r if r < len(options) else -1
        h, locked = self.hands[s], self.locked[s]
        best, bv = -1, (self.value(h, locked) if allow_decline else None)
        for i, (_, pts, rev) in enumerate(options):
            for t in rev:
                h[t] -= 1
            v = self.best_discard(h, locked)[1] + pts
            for t in rev:
                h[t] += 1
            if bv is None or (v >= bv if best < 0 else v > bv):
                best, bv = i, v
        return best

    def discardable(self, s, options):
        """The take options after which seat ``s`` still has a legal discard (a take that is
        not a win is followed by a discard: 20 cards between turns, 21 at a win)."""
        h, locked = self.hands[s], self.locked[s]
        out = []
        for o in options:
            for t in o[2]:
                h[t] -= 1
            if self.legal_discards(h, locked):
                out.append(o)
            for t in o[2]:
                h[t] += 1
        return out

    @staticmethod
    def forced_discard(h):
        """Without a legal discard (only the dealer's opening): the lowest non-General type,
        else the lowest General; -1 for an empty hand."""
        for t in range(N_TYPES):
            if h[t] and not is_general(t):
                return t
        return next((t for t in range(N_TYPES) if h[t]), -1)

    def discard(self, s):
        h, locked = self.hands[s], self.locked[s]
        if self.pol[s] == "random":
            legal = self.legal_discards(h, locked)
            if not legal:
                return -1
            return legal[self.rand(len(legal)) if len(legal) > 1 else 0]
        return self.best_discard(h, locked)[0]

    def lay(self, s, c, option):
        kind, pts, rev = option
        for t in rev:
            self.hands[s][t] -= 1
        self.exposed[s] += pts
        self.log.append(("meld", s, c, kind))

    def draw(self):
        r = self.rand(len(self.stock))
        c = self.stock[r]
        self.stock[r] = self.stock[-1]
        self.stock.pop()
        return c

    def play(self):
        rules, P = self.rules, self.P
        turns = 0
        c = self.discard(0)
        if c < 0:
            c = self.forced_discard(self.hands[0])
        src, is_draw, have, drawer = 0, False, c >= 0, 0 if c >= 0 else 1 % P
        if c >= 0:
            self.hands[0][c] -= 1
            self.log.append(("discard", 0, c))
        while True:
            if not have:
                if len(self.stock) <= rules.dead_wall:
                    return self.result(-1, -1, 0, 0, turns)
                c = self.draw()
                turns += 1
                src, is_draw, have = drawer, True, True
                self.log.append(("draw", src, c))
            claim = resolve_claims(self.hands, self.locked, self.exposed, c, src, is_draw, rules)
            normal = claim["normal"]
            w = claim["winner"]
            if w >= 0:
                own_draw = is_draw and w == src
                how = 0 if own_draw else (1 if w == normal else 2)
                if how == 2:
                    self.steals["win"][w] += 1
                if not own_draw:
                    turns += 1
                self.log.append(("win", w, c))
                return self.result(w, how, claim["win_score"] + self.exposed[w], claim["n_winners"] - 1, turns)
            taker = -1
            s2 = claim["stealer"]
            if s2 >= 0:
                gen_draw = is_draw and is_general(c)
                options = self.discardable(s2, steal_melds(self.hands[s2], self.locked[s2], c, rules, gen_draw))
                ch = self.choose(s2, options, True)
                if ch >= 0:
                    self.steals[options[ch][0]][s2] += 1
                    turns += 1
                    self.log.append(("steal", s2, c))
                    self.lay(s2, c, options[ch])
                    taker = s2
            if taker < 0 and is_draw and normal != src and self.hands[src][c] >= 2:
                options = self.discardable(src, steal_melds(self.hands[src], self.locked[src], c, rules, False))
                ch = self.choose(src, options, True)
                if ch >= 0:
                    self.log.append(("take", src, c))
                    self.lay(src, c, options[ch])
                    taker = src
            if taker < 0:
                options = self.discardable(normal, melds_with(self.hands[normal], self.locked[normal], c, rules))
                # a drawn General must be laid, unless no option leaves a legal discard
                must = is_draw and normal == src and is_general(c) and bool(options)
                ch = self.choose(normal, options, not must)
                if ch >= 0:
                    if not (is_draw and normal == src):
                        turns += 1
                    self.log.append(("take", normal, c))
                    self.lay(normal, c, options[ch])
                    taker = normal
                else:
                    self.log.append(("pass", normal, c))
                    if is_draw and normal == src:
                        self.log.append(("discard", src, c))
                        is_draw = False
                        continue
                    drawer, have = normal, False
                    continue
            d = self.discard(taker)
            if d < 0:
                d = self.forced_discard(self.hands[taker])  # never: a take leaves a legal discard
            if d < 0:
                drawer, have = (taker + 1) % P, False
                continue
            self.hands[taker][d] -= 1
            self.log.append(("discard", taker, d))
            c, src, is_draw, have = d, taker, False, True

    def result(self, winner, how, score, ties, turns):
        P = self.P
        row = {"winner": winner, "win_take": how, "winner_points": score, "turns": turns,
               "stock_left": len(self.stock), "mulligans": self.mulligans, "claim_ties": max(ties, 0)}
        for s in range(P):
            row[f"points_{s}"] = 0 if winner < 0 else (score * (P - 1) if s == winner else -score)
            row[f"steals_win_{s}"] = self.steals["win"][s]
            row[f"steals_quad_{s}"] = self.steals["quadruple"][s]
            row[f"steals_triple_{s}"] = self.steals["triple"][s]
            row[f"dealt_triples_{s}"] = self.dealt_triples[s]
            row[f"dealt_quads_{s}"] = self.dealt_quads[s]
        return row


def play_game(seed: int, index: int, rules: TuSacRules, policies) -> dict:
    """Game ``index`` of run ``seed`` played in plain Python; returns its row (the
    kernel's columns except the meld breakdown) plus ``"log"``, a list of
    ``(event, seat, card[, kind])`` tuples."""
    if isinstance(policies, str):
        policies = [policies] * rules.players
    game = _Game(seed, index, rules, policies)
    row = game.play()
    row["log"] = game.log
    return row
