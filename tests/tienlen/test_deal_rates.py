"""Deal rates of the kernel against exact combinatorial values computed here.

Per hand: a DP over the 13 ranks (choose k of the 4 cards of each rank, C(4, k)
ways) with a small automaton per event. Per table (4 x 13, all cards dealt): the
union over seats by Bonferroni, with S1 = 4 p1 and S2 = 6 p2 exact (p2 from a
joint DP over two hands) and S3 <= 4 p2, so P(table) lies in
[S1 - S2, S1 - S2 + 4 p2]. Observed rates must lie within 4 standard errors.
"""
import math
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest

from cardsim.simcore.tienlen.deal import EVENTS, deal_counts

N_DEALS = 2_000_000
SEED = 20261130
HAND = 13


# The exact values are computed here, independently of the product's programmes
# (cardsim.simcore.tienlen.exact): per event a hand-written state over the ranks 3..A, 2
# (rank 12 is the 2; 2s never belong to a sequence), None when the hand can no longer have it.
def _run_of(min_count, length):
    """``length`` consecutive ranks among 3..A holding >= ``min_count`` cards each."""
    def step(state, rank, k):
        if state == "done":
            return state
        run = 0 if rank == 12 or k < min_count else state + 1
        return "done" if run >= length else run
    return 0, step, lambda s: s == "done"


EVENTS_HERE = {
    "dragon": (True, lambda s, r, k: True if (r == 12 or k >= 1) else None, lambda s: True),  # every rank 3..A
    "four_twos": (True, lambda s, r, k: None if r == 12 and k < 4 else True, lambda s: True),
    "six_pairs": (0, lambda s, r, k: min(6, s + k // 2), lambda s: s >= 6),  # four of a kind = two pairs
    "five_consecutive_pairs": _run_of(2, 5),
    "three_consecutive_triples": _run_of(3, 3),
    "bomb_four": (False, lambda s, r, k: s or k == 4, lambda s: s),  # 2s included, as the kernel counts
    "bomb_double_sequence": _run_of(2, 3),
}
AUTOMATA = EVENTS_HERE  # the events checked below


@lru_cache(maxsize=None)
def p_hand(event):
    """Exact P(one 13-card hand has the event): a programme over the ranks, ``C(4, k)`` ways to take
    ``k`` cards of a rank."""
    init, step, accept = EVENTS_HERE[event]
    states = {(0, init): 1}
    for rank in range(13):
        nxt = {}
        for (cards, s), ways in states.items():
            for k in range(min(4, HAND - cards) + 1):
                t = step(s, rank, k)
                if t is not None:
                    nxt[(cards + k, t)] = nxt.get((cards + k, t), 0) + ways * math.comb(4, k)
        states = nxt
    good = sum(w for (cards, s), w in states.items() if cards == HAND and accept(s))
    return Fraction(good, math.comb(52, HAND))


@lru_cache(maxsize=None)
def p_two_hands(event):
    """Exact P(two given 13-card hands both have the event): the programme over both hands, ``C(4, k1)
    C(4 - k1, k2)`` ways to give ``k1`` and ``k2`` cards of a rank (the 26 other cards take the rest)."""
    init, step, accept = EVENTS_HERE[event]
    states = {(0, init, 0, init): 1}
    for rank in range(13):
        nxt = {}
        for (c1, s1, c2, s2), ways in states.items():
            for k1 in range(min(4, HAND - c1) + 1):
                t1 = step(s1, rank, k1)
                if t1 is None:
                    continue
                for k2 in range(min(4 - k1, HAND - c2) + 1):
                    t2 = step(s2, rank, k2)
                    if t2 is not None:
                        key = (c1 + k1, t1, c2 + k2, t2)
                        nxt[key] = nxt.get(key, 0) + ways * math.comb(4, k1) * math.comb(4 - k1, k2)
        states = nxt
    good = sum(w for (c1, s1, c2, s2), w in states.items() if c1 == c2 == HAND and accept(s1) and accept(s2))
    return Fraction(good, math.comb(52, HAND) * math.comb(52 - HAND, HAND))


@lru_cache(maxsize=1)
def kernel_counts():
    counts = deal_counts(SEED, 0, N_DEALS, 4, 13, 0b11, 16)
    return {event: counts[i] for i, event in enumerate(EVENTS)}


def assert_rate(count, n, low, high=None):
    """Observed count/n within 4 standard errors of [low, high]."""
    high = low if high is None else high
    p = float(low + high) / 2
    se = math.sqrt(max(p * (1 - p), 1e-12) / n)
    rate = count / n
    z = 0.0 if float(low) <= rate <= float(high) else min(abs(rate - float(low)), abs(rate - float(high))) / se
    assert z < 4, f"rate {rate:.6g} vs exact [{float(low):.6g}, {float(high):.6g}] (z={z:.2f})"


@pytest.mark.parametrize("event", list(AUTOMATA))
def test_per_hand_rate_matches_exact(event):
    p = p_hand(event)
    counts = kernel_counts()[event]
    for seat in range(4):
        assert_rate(counts[seat], N_DEALS, p)
    # pooled over seats: a 2x sharper test of the same value
    assert_rate(counts[:4].sum(), 4 * N_DEALS, p)


@pytest.mark.parametrize("event", list(AUTOMATA))
def test_per_table_rate_matches_exact(event):
    p1, p2 = p_hand(event), p_two_hands(event)
    s1, s2 = 4 * p1, 6 * p2
    assert_rate(kernel_counts()[event][4], N_DEALS, s1 - s2, s1 - s2 + 4 * p2)


def test_exact_values_are_right():
    # Closed forms guard the programme above.
    assert p_hand("four_twos") == Fraction(math.comb(48, 9), math.comb(52, 13))
    dragon = sum(
        math.comb(12, j) * (-1) ** j * math.comb(52 - 4 * j, 13) for j in range(13)
    )  # inclusion-exclusion over missing ranks among 3..A
    assert p_hand("dragon") == Fraction(dragon, math.comb(52, 13))
    bomb = sum((-1) ** (j + 1) * math.comb(13, j) * math.comb(52 - 4 * j, 13 - 4 * j) for j in range(1, 4))
    assert p_hand("bomb_four") == Fraction(bomb, math.comb(52, 13))  # inclusion-exclusion over the ranks held 4 times
    assert p_two_hands("four_twos") == 0


def test_twos_distribution_is_hypergeometric():
    counts = kernel_counts()
    for k in range(5):
        p = Fraction(math.comb(4, k) * math.comb(48, 13 - k), math.comb(52, 13))
        assert_rate(counts[f"twos_{k}"][:4].sum(), 4 * N_DEALS, p)


def test_three_spades_and_one_colour():
    counts = kernel_counts()
    for seat in range(4):
        assert_rate(counts["holds_three_spades"][seat], N_DEALS, Fraction(1, 4))
    assert counts["holds_three_spades"][4] == N_DEALS
    black = sum(math.comb(26, b) * math.comb(26, 13 - b) for b in (12, 13))
    p = Fraction(2 * black, math.comb(52, 13))  # >= 12 black or >= 12 red: disjoint
    assert_rate(counts["one_colour"][:4].sum(), 4 * N_DEALS, p)
    assert_rate(counts["one_colour"][4], N_DEALS, 4 * p - 6 * p * p, 4 * p)


def test_instant_win_table_is_union_of_enabled_kinds():
    counts = kernel_counts()
    iw, dragon, twos = counts["instant_win"], counts["instant_win_dragon"], counts["instant_win_four_twos"]
    assert np.array_equal(iw, dragon + twos)
    assert iw[:4].sum() == iw[4]  # exactly one winner per instant-win deal
    assert dragon[4] == counts["dragon"][4]  # dragon has top priority
    assert counts["instant_win_six_pairs"].sum() == 0  # disabled kinds never win
