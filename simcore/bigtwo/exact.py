"""Exact deal probabilities of Big Two's per-seat events (``cardsim exact bigtwo``).

A seat's hand of ``c`` cards is a uniform ``c``-subset of the 52 cards. The 2s and the 3♦
are hypergeometric; four of a kind is an inclusion–exclusion over the ranks; a flush is
one minus the suit distributions with every suit <= 4; straight, straight flush and
full house are small dynamic programmes over the 13 ranks (taking ``k`` of a rank's 4
cards in ``C(4, k)`` ways). Straights and straight flushes are exact for the windows of
``straights = no_twos`` and ``twos_high`` (``wheels``, whose windows wrap around the
ace, has no row). Table ("any seat") rows: the 3♦, three 2s and four 2s (no two hands
can share them). All values are :class:`fractions.Fraction`.
"""
from __future__ import annotations

from fractions import Fraction
from itertools import product
from math import comb


def _rank_dp(hand: int, step, start) -> int:
    """Hands of ``hand`` cards on which the automaton ``step(state, rank, k)`` never
    returns ``None`` (the event), counted rank by rank."""
    states = {(0, start): 1}
    for rank in range(13):
        nxt: dict = {}
        for (n, state), ways in states.items():
            for k in range(5):
                if n + k > hand:
                    break
                new = step(state, rank, k)
                if new is not None:
                    nxt[(n + k, new)] = nxt.get((n + k, new), 0) + ways * comb(4, k)
        states = nxt
    return sum(w for (n, _), w in states.items() if n == hand)


def _straight_free(hand: int, twos_high: bool) -> int:
    def step(run, rank, k):
        if rank == 12 and not twos_high:
            return 0
        run = run + 1 if k else 0
        return None if run == 5 else run
    return _rank_dp(hand, step, 0)


def _full_house_free(hand: int) -> int:
    def step(state, rank, k):
        triples, pairs = state
        triples += k >= 3
        pairs += k == 2
        if triples >= 2 or (triples and pairs):
            return None
        return triples, min(pairs, 1)
    return _rank_dp(hand, step, (0, 0))


def _straight_flush_free(hand: int, twos_high: bool) -> int:
    states = {(0, (0, 0, 0, 0)): 1}
    for rank in range(13):
        nxt: dict = {}
        for (n, runs), ways in states.items():
            for held in range(16):
                k = bin(held).count("1")
                if n + k > hand:
                    continue
                if rank == 12 and not twos_high:
                    new = (0, 0, 0, 0)
                else:
                    new = tuple(r + 1 if held >> s & 1 else 0 for s, r in enumerate(runs))
                    if 5 in new:
                        continue
                nxt[(n + k, new)] = nxt.get((n + k, new), 0) + ways
        states = nxt
    return sum(w for (n, _), w in states.items() if n == hand)


def seat_probabilities(hand: int, straights: str = "no_twos") -> dict[str, Fraction]:
    """Exact probability of each event for one seat holding ``hand`` cards."""
    total = comb(52, hand)
    p = {f"twos_{k}": Fraction(comb(4, k) * comb(48, hand - k), total) for k in range(5)}
    p["holds_three_diamonds"] = Fraction(hand, 52)
    p["four_of_a_kind"] = Fraction(sum((-1) ** (j + 1) * comb(13, j) * comb(52 - 4 * j, hand - 4 * j)
                                       for j in range(1, hand // 4 + 1)), total)
    p["full_house"] = 1 - Fraction(_full_house_free(hand), total)
    flush_free = sum(comb(13, a) * comb(13, b) * comb(13, c) * comb(13, hand - a - b - c)
                     for a, b, c in product(range(5), repeat=3) if 0 <= hand - a - b - c <= 4)
    p["flush"] = 1 - Fraction(flush_free, total)
    if straights in ("no_twos", "twos_high"):
        high = straights == "twos_high"
        p["straight"] = 1 - Fraction(_straight_free(hand, high), total)
        p["straight_flush"] = 1 - Fraction(_straight_flush_free(hand, high), total)
    return p


def exact_table(rules) -> list[tuple[str, object, Fraction, Fraction]]:
    """Rows ``(event, seat, low, high)`` (``low == high``: exact) for :class:`~.rules.BigTwoRules`."""
    from cardsim.simcore.bigtwo.deal import EVENTS

    players, hand = rules.players, rules.cards_per_player
    p = seat_probabilities(hand, rules.straights)
    # no two hands share the 3♦, nor three or four of the four 2s: the table rows add up
    table = {"holds_three_diamonds": Fraction(players * hand, 52), "twos_3": players * p["twos_3"],
             "twos_4": players * p["twos_4"]}
    rows = []
    for event in EVENTS:
        if event in p:
            rows += [(event, s, p[event], p[event]) for s in range(players)]
        if event in table:
            rows.append((event, "any", table[event], table[event]))
    return rows
