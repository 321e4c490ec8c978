"""Tiến Lên's compiled automata (merged/dropped states) count exactly what the raw
automata count: a direct dynamic programme over the raw states is the reference."""
from __future__ import annotations

import math
from collections import defaultdict
from fractions import Fraction

import pytest

from cardsim.simcore.tienlen import exact


def _raw_two_hands(event: str, hand: int) -> Fraction:
    """P(two given hands both have ``event``), running ``AUTOMATA[event]`` state by state."""
    init, step, accept = exact.AUTOMATA[event]
    states = {(0, init, 0, init): 1}
    for rank in range(13):
        nxt = defaultdict(int)
        for (c1, s1, c2, s2), ways in states.items():
            for k1 in range(min(4, hand - c1) + 1):
                for k2 in range(min(4 - k1, hand - c2) + 1):
                    if 4 * (rank + 1) - c1 - k1 - c2 - k2 <= 52 - 2 * hand:
                        key = (c1 + k1, step(s1, rank, k1), c2 + k2, step(s2, rank, k2))
                        nxt[key] += ways * math.comb(4, k1) * math.comb(4 - k1, k2)
        states = nxt
    good = sum(w for (c1, s1, c2, s2), w in states.items() if c1 == c2 == hand and accept(s1) and accept(s2))
    return Fraction(good, math.comb(52, hand) * math.comb(52 - hand, hand))


def _raw_one_hand(event: str, hand: int) -> Fraction:
    init, step, accept = exact.AUTOMATA[event]
    states = {(0, init): 1}
    for rank in range(13):
        nxt = defaultdict(int)
        for (cards, s), ways in states.items():
            for k in range(min(4, hand - cards) + 1):
                nxt[(cards + k, step(s, rank, k))] += ways * math.comb(4, k)
        states = nxt
    return Fraction(sum(w for (c, s), w in states.items() if c == hand and accept(s)), math.comb(52, hand))


@pytest.mark.parametrize("event", sorted(exact.AUTOMATA))
@pytest.mark.parametrize("hand", [6, 13])
def test_compiled_automata_count_what_the_raw_automata_count(event, hand):
    assert exact.p_hand(event, hand) == _raw_one_hand(event, hand)
    if hand == 6 or event in ("six_pairs", "bomb_four", "three_consecutive_triples"):  # the rest: seconds each
        assert exact.p_two_hands(event, hand) == _raw_two_hands(event, hand)


def test_merging_shrinks_the_combined_event():
    table, final = exact.compiled_automaton("bomb_any")
    assert max(len(rows) for rows in table) <= 5 and final == [True]  # one accepting state at the end
