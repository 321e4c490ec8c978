"""Big Two deal events against exact probabilities computed here with math.comb (hypergeometric
counts, inclusion–exclusion, small dynamic programmes over the ranks); |z| < 4 with fixed seeds."""
from functools import lru_cache
from itertools import product
from math import comb

import numpy as np
import pytest

from cardsim.simcore.bigtwo.deal import EVENTS, deal_counts, hand_events, window_masks
from cardsim.simcore.tienlen.cards import parse_cards

HANDS = comb(52, 13)
N = 200_000


def p_twos(k):
    return comb(4, k) * comb(48, 13 - k) / HANDS


def p_four_of_a_kind():
    """Inclusion–exclusion over the ranks holding all four cards."""
    return sum((-1) ** (j + 1) * comb(13, j) * comb(52 - 4 * j, 13 - 4 * j) for j in range(1, 4)) / HANDS


def p_flush():
    """Some suit with >= 5 cards: one minus the suit distributions with every suit <= 4."""
    none = sum(comb(13, a) * comb(13, b) * comb(13, c) * comb(13, 13 - a - b - c)
               for a, b, c in product(range(5), repeat=3) if 0 <= 13 - a - b - c <= 4)
    return 1 - none / HANDS


def _rank_dp(step, start):
    """Hands of 13 cards counted by a state machine over the 13 ranks: ``step(state, rank, k)``
    gives the next state (``None``: the event happened) when ``k`` cards of ``rank`` are held."""
    states = {(0, start): 1}
    for rank in range(13):
        nxt: dict = {}
        for (n, state), ways in states.items():
            for k in range(5):
                if n + k > 13:
                    break
                new = step(state, rank, k)
                if new is not None:
                    key = (n + k, new)
                    nxt[key] = nxt.get(key, 0) + ways * comb(4, k)
        states = nxt
    return 1 - sum(w for (n, _), w in states.items() if n == 13) / HANDS


def p_straight():
    """Every rank of some window 3-7 .. 10-A (switch straights=no_twos): runs of ranks held."""
    def step(run, rank, k):
        if rank == 12:
            return 0  # a 2 is in no straight
        run = run + 1 if k else 0
        return None if run == 5 else run
    return _rank_dp(step, 0)


def p_full_house():
    """A rank with >= 3 cards and another with >= 2."""
    def step(state, rank, k):
        triples, pairs = state
        if k >= 3:
            triples += 1
        elif k == 2:
            pairs += 1
        if triples >= 2 or (triples and pairs):
            return None
        return triples, min(pairs, 1)
    return _rank_dp(step, (0, 0))


@lru_cache(maxsize=None)
def p_straight_flush():
    """Five cards of one suit in a window 3-7 .. 10-A: per suit the run of ranks held in it,
    the 16 ways to hold a rank's cards weighted one each."""
    states = {(0, (0, 0, 0, 0)): 1}
    for rank in range(13):
        nxt: dict = {}
        for (n, runs), ways in states.items():
            for held in range(16):
                k = bin(held).count("1")
                if n + k > 13:
                    continue
                if rank == 12:
                    new = (0, 0, 0, 0)
                else:
                    new = tuple(r + 1 if held >> s & 1 else 0 for s, r in enumerate(runs))
                    if 5 in new:
                        continue
                key = (n + k, new)
                nxt[key] = nxt.get(key, 0) + ways
        states = nxt
    return 1 - sum(w for (n, _), w in states.items() if n == 13) / HANDS


EXACT = {
    **{f"twos_{k}": p_twos(k) for k in range(5)},
    "holds_three_diamonds": 13 / 52,
    "four_of_a_kind": p_four_of_a_kind(),
    "full_house": p_full_house(),
    "flush": p_flush(),
    "straight": p_straight(),
    "straight_flush": p_straight_flush(),
}
#: Table events with exact values: every card is dealt (so the 3♦ is); three or four 2s are in
#: one hand at most (disjoint events).
EXACT_TABLE = {"holds_three_diamonds": 1.0, "twos_3": 4 * p_twos(3), "twos_4": 4 * p_twos(4)}


@pytest.fixture(scope="module")
def counts():
    return deal_counts(2024, 0, N, 4, 13, "no_twos", 8)


@pytest.mark.parametrize("event", sorted(EXACT))
def test_seat_rates_match_exact_values(counts, event):
    p = EXACT[event]
    row = counts[EVENTS.index(event)]
    for s in range(4):
        z = (row[s] - N * p) / np.sqrt(N * p * (1 - p))
        assert abs(z) < 4, (event, s, row[s] / N, p)


@pytest.mark.parametrize("event", sorted(EXACT_TABLE))
def test_table_rates_match_exact_values(counts, event):
    p = EXACT_TABLE[event]
    k = counts[EVENTS.index(event), 4]
    if p == 1.0:
        assert k == N
    else:
        assert abs((k - N * p) / np.sqrt(N * p * (1 - p))) < 4


def test_exact_values_are_sane():
    assert sum(p_twos(k) for k in range(5)) == pytest.approx(1.0)
    assert p_four_of_a_kind() == pytest.approx(0.03424, abs=1e-4)  # the classic 13-card value
    assert 0 < p_straight_flush() < p_straight() < 1


def test_the_exact_table_agrees_with_these_values():
    """``cardsim exact bigtwo`` (simcore/bigtwo/exact.py) gives the values computed here."""
    from cardsim.simcore.bigtwo.exact import exact_table
    from cardsim.simcore.bigtwo.rules import BigTwoRules

    rows = exact_table(BigTwoRules())
    for event, seat, low, high in rows:
        assert low == high
        expected = EXACT_TABLE[event] if seat == "any" else EXACT[event]
        assert float(low) == pytest.approx(expected, rel=1e-12), (event, seat)
    assert {e for e, *_ in rows} == set(EXACT)


def test_hand_events_on_built_hands():
    windows = window_masks("no_twos")
    bits = {name: 1 << i for i, name in enumerate(EVENTS[6:])}
    cases = {
        "3D 4D 5D 6D 7D 9C JC KC 2S 2H 8S QS AH": {"flush", "straight", "straight_flush", "five_card_hand"},
        "9D 9C 9S 4H 4S 3D 6C 8D JS QH KD AC 2C": {"full_house", "five_card_hand"},
        "QD QC QH QS 3D 5C 7H 9S JD KC AH 2D 2C": {"four_of_a_kind", "full_house", "five_card_hand"},  # QQQ 22
        "QD QC QH QS 3D 5C 7H 9S JD KC AH 2D 4C": {"four_of_a_kind", "five_card_hand"},
        "3D 5C 7H 9S JD KC AH 4D 6C 8H 10S QD 2C": {"straight", "five_card_hand"},  # 3..A, one of each
        "3D 3C 5H 5S 7D 7C 9H 9S JD JC KH KS 2C": set(),
    }
    for text, expected in cases.items():
        f = hand_events(np.uint64(parse_cards(text, "DCHS")), windows)
        assert {name for name, b in bits.items() if f & b} == expected, text
