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

from cardsim.simcore.tienlen import exact
from cardsim.simcore.tienlen.deal import EVENTS, deal_counts

N_DEALS = 2_000_000
SEED = 20261130
HAND = 13


# The exact values come from the product's DP (cardsim.simcore.tienlen.exact); the
# closed forms in test_exact_values_are_right guard it.
AUTOMATA = {e: exact.AUTOMATA[e] for e in ("dragon", "four_twos", "six_pairs", "five_consecutive_pairs",
                                           "three_consecutive_triples", "bomb_four", "bomb_double_sequence")}


def p_hand(event):
    """Exact P(one 13-card hand has the event)."""
    return exact.p_hand(event, HAND)


def p_two_hands(event):
    """Exact P(two given 13-card hands both have the event)."""
    return exact.p_two_hands(event, HAND)


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
    # Independent closed forms guard the DP itself.
    assert p_hand("four_twos") == Fraction(math.comb(48, 9), math.comb(52, 13))
    dragon = sum(
        math.comb(12, j) * (-1) ** j * math.comb(52 - 4 * j, 13) for j in range(13)
    )  # inclusion-exclusion over missing ranks among 3..A
    assert p_hand("dragon") == Fraction(dragon, math.comb(52, 13))
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
