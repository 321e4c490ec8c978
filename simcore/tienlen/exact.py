"""Exact deal probabilities for Tiến Lên (dynamic programmes over the 13 ranks).

A hand of ``h`` cards is built rank by rank: taking ``k`` of the 4 cards of a rank can
be done in ``C(4, k)`` ways, and a small automaton per event tracks what the hand shows
so far (a run of ranks holding pairs, the pairs counted ...). Summing the weights of
accepting states gives the exact number of hands with the event; the same programme
over two hands at once gives the probability that two given seats both have it. The
table ("any seat") value is exact with two players (``2 p1 - p2``), for events no two
hands can share (four 2s, three or four 2s), and bracketed otherwise by Bonferroni
(``S1 - S2 <= P <= S1 - S2 + S3`` with ``S3 <= C(P, 3) p2``). All values are
:class:`fractions.Fraction` before conversion.
"""
from __future__ import annotations

import math
from collections import defaultdict
from fractions import Fraction
from functools import lru_cache


def _run(min_count: int, length: int):
    """``length`` consecutive ranks among 3..A each holding >= ``min_count`` cards."""
    def step(state, rank, k):
        run, done = state
        if rank == 12:  # 2s never belong to a sequence
            return (0, done)
        run = run + 1 if k >= min_count else 0
        return (min(run, length), done or run >= length)
    return (0, False), step, lambda s: s[1]


def _either(a, b):
    (ia, sa, fa), (ib, sb, fb) = a, b
    return (ia, ib), (lambda s, r, k: (sa(s[0], r, k), sb(s[1], r, k))), (lambda s: fa(s[0]) or fb(s[1]))


_BOMB_FOUR = (False, lambda s, r, k: s or k == 4, lambda s: s)  # four of a kind, 2s included (as the kernel counts)
_BOMB_DSEQ = _run(2, 3)

#: event -> (initial state, step(state, rank, cards taken) -> state, accept(state))
AUTOMATA = {
    "dragon": ((True,), lambda s, r, k: (s[0] and (r == 12 or k >= 1),), lambda s: s[0]),
    "four_twos": ((False,), lambda s, r, k: (r == 12 and k == 4,) if r == 12 else s, lambda s: s[0]),
    "six_pairs": (0, lambda s, r, k: min(6, s + k // 2), lambda s: s >= 6),
    "five_consecutive_pairs": _run(2, 5),
    "three_consecutive_triples": _run(3, 3),
    "bomb_four": _BOMB_FOUR,
    "bomb_double_sequence": _BOMB_DSEQ,
    "bomb_any": _either(_BOMB_FOUR, _BOMB_DSEQ),
    **{f"twos_{j}": (0, (lambda j: lambda s, r, k: k if r == 12 else s)(j), (lambda j: lambda s: s == j)(j))
       for j in range(5)},
}
#: Events no two hands can hold at once: the table value is exactly players x p.
DISJOINT = {"four_twos", "twos_3", "twos_4"}


@lru_cache(maxsize=None)
def p_hand(event: str, hand: int) -> Fraction:
    """Exact probability that one ``hand``-card hand has ``event``."""
    init, step, accept = AUTOMATA[event]
    states = {(0, init): 1}
    for rank in range(13):
        nxt = defaultdict(int)
        for (cards, s), ways in states.items():
            for k in range(0, min(4, hand - cards) + 1):
                nxt[(cards + k, step(s, rank, k))] += ways * math.comb(4, k)
        states = nxt
    good = sum(w for (cards, s), w in states.items() if cards == hand and accept(s))
    return Fraction(good, math.comb(52, hand))


@lru_cache(maxsize=None)
def p_two_hands(event: str, hand: int) -> Fraction:
    """Exact probability that two given disjoint ``hand``-card hands both have ``event``."""
    init, step, accept = AUTOMATA[event]
    states = {(0, init, 0, init): 1}
    for rank in range(13):
        nxt = defaultdict(int)
        for (c1, s1, c2, s2), ways in states.items():
            for k1 in range(0, min(4, hand - c1) + 1):
                t1 = step(s1, rank, k1)
                for k2 in range(0, min(4 - k1, hand - c2) + 1):
                    rest = 4 * (rank + 1) - c1 - k1 - c2 - k2
                    if rest > 52 - 2 * hand:
                        continue
                    nxt[(c1 + k1, t1, c2 + k2, step(s2, rank, k2))] += ways * math.comb(4, k1) * math.comb(4 - k1, k2)
        states = nxt
    good = sum(w for (c1, s1, c2, s2), w in states.items() if c1 == c2 == hand and accept(s1) and accept(s2))
    return Fraction(good, math.comb(52, hand) * math.comb(52 - hand, hand))


def p_one_colour(hand: int) -> Fraction:
    """A hand with at most one card off one colour (26 black, 26 red cards)."""
    if hand < 2:
        return Fraction(1)
    one = sum(math.comb(26, b) * math.comb(26, hand - b) for b in (hand - 1, hand))
    return Fraction(2 * one, math.comb(52, hand))


#: A Bonferroni bracket wider than this is not reported (it would say little).
MAX_BRACKET = Fraction(1, 500)


def p_any_seat_twos(j: int, players: int, hand: int) -> Fraction:
    """Exact P(some seat holds exactly ``j`` 2s): the four 2s' positions are a uniform
    4-subset of the 52 dealt positions (multivariate hypergeometric)."""
    rest = 52 - players * hand
    total = Fraction(0)

    def spread(seat, left, ways, hit):
        nonlocal total
        if seat == players:
            if hit and left <= rest:
                total += Fraction(ways * math.comb(rest, left), math.comb(52, 4))
            return
        for a in range(0, min(left, hand) + 1):
            spread(seat + 1, left - a, ways * math.comb(hand, a), hit or a == j)

    spread(0, 4, 1, False)
    return total


def exact_table(rules) -> list[tuple[str, object, Fraction, Fraction]]:
    """Rows ``(event, seat, low, high)``: ``seat`` an int or ``"any"``; ``low == high``
    when exact, else a guaranteed bracket of the exact value (reported only when
    narrower than :data:`MAX_BRACKET`)."""
    players, hand = rules.players, rules.cards_per_player
    rows = []
    for event in AUTOMATA:
        p = p_hand(event, hand)
        rows += [(event, s, p, p) for s in range(players)]
        if event.startswith("twos_"):
            q = p_any_seat_twos(int(event[-1]), players, hand)
            rows.append((event, "any", q, q))
            continue
        if event in DISJOINT:
            rows.append((event, "any", players * p, players * p))
            continue
        p2 = p_two_hands(event, hand)
        s1, s2 = players * p, math.comb(players, 2) * p2
        if players == 2:
            rows.append((event, "any", s1 - s2, s1 - s2))
            continue
        low, high = max(Fraction(0), s1 - s2), min(s1, s1 - s2 + math.comb(players, 3) * p2, Fraction(1))
        if high - low <= MAX_BRACKET:
            rows.append((event, "any", low, high))
    q = Fraction(hand, 52)
    rows += [("holds_three_spades", s, q, q) for s in range(players)]
    rows.append(("holds_three_spades", "any", players * q, players * q))
    return rows
