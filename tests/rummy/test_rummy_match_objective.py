"""The rummy search plays for the match: its objective against hand-built end-of-round states,
a pure-Python reference of the normal model, and ``search-plain`` (the round's points) kept."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from cardsim.simcore.rummy import search as SR
from cardsim.simcore.rummy import state as S
from cardsim.simcore.rummy.cards import card_code, hand_planes, hand_points
from cardsim.simcore.rummy.play import play_chunk
from cardsim.simcore.rummy.rules import ContinentalRules, LobaRules


def end_of_round(rules, hands, totals, rounds_left, went_out):
    """A state at the end of a round: ``hands`` (lists of card texts) left in hand, the match
    totals before the round, the rounds still to play and who went out (-1: nobody)."""
    P = len(hands)
    st = S.new_state(P, 104 + rules.deck_jokers())
    for q, hand in enumerate(hands):
        st[0][q], st[1][q], st[2][q] = hand_planes([card_code(c) for c in hand])
        st[3][S.F_TOTAL, q] = totals[q]
    st[11][S.V_ROUNDS_LEFT] = rounds_left
    st[11][S.V_WENT_OUT] = went_out
    return st, S.kernel_params(rules)


def chance(rules, hands, totals, rounds_left, went_out, me):
    st, prm = end_of_round(rules, hands, totals, rounds_left, went_out)
    return SR.match_win_chance(st, prm, np.int64(me))


def reference_chance(final_totals, me, rounds_left, sd=SR.ROUND_POINTS_SD, steps=4000):
    """P(me ends lowest) when every seat adds an independent N(0, sd^2 * rounds_left), by the
    midpoint rule over the seat's own future points on [-8, 8] standard deviations."""
    scale = sd * math.sqrt(rounds_left)
    total = 0.0
    for i in range(steps):
        z = -8 + 16 * (i + 0.5) / steps
        density = math.exp(-z * z / 2) / math.sqrt(2 * math.pi)
        prod = 1.0
        for q, t in enumerate(final_totals):
            if q != me:
                prod *= 0.5 * (1 + math.erf((t - final_totals[me] - scale * z) / scale / math.sqrt(2)))
        total += density * prod * 16 / steps
    return total


LOBA = LobaRules(players=3)


def test_last_round_lowest_total_wins():
    # seat 0 went out (0 points), seat 1 holds 5H 9D (5 + 9), seat 2 holds a joker (50)
    hands = [[], ["5H", "9D"], ["JK"]]
    assert hand_points([card_code(c) for c in hands[1]]) == 14
    assert chance(LOBA, hands, [100, 80, 40], 0, 0, 0) == 0.0  # 100 against 94 and 90
    assert chance(LOBA, hands, [100, 80, 40], 0, 0, 2) == 1.0  # 90 is lowest
    assert chance(LOBA, hands, [100, 80, 40], 0, 0, 1) == 0.0
    assert chance(LOBA, hands, [60, 80, 40], 0, 0, 0) == 1.0  # 60 against 94 and 90


def test_last_round_ties_go_to_who_went_out_else_are_shared():
    hands = [[], ["5H", "9D"], ["5C", "9S"]]
    # seat 0 went out: 90 = 76 + 14 = 76 + 14 -> the one who went out wins the tie
    assert chance(LOBA, hands, [90, 76, 76], 0, 0, 0) == 1.0
    assert chance(LOBA, hands, [90, 76, 76], 0, 0, 1) == 0.0
    # seats 1 and 2 tie at 90, ahead of seat 0 (100); nobody tied went out: shared
    assert chance(LOBA, hands, [100, 76, 76], 0, 0, 1) == pytest.approx(0.5)
    assert chance(LOBA, hands, [100, 76, 76], 0, 0, 2) == pytest.approx(0.5)


def test_continental_close_in_one_turn_counts_minus_ten():
    rules = ContinentalRules(players=3)
    st, prm = end_of_round(rules, [[], ["2H"], ["3H"]], [0, 0, 0], 0, 0)
    st[11][S.V_LAID_NOW] = 1
    assert SR.match_win_chance(st, prm, np.int64(0)) == 1.0
    # totals 15 / 8 / 9 before: seat 0 ends on 5 (15 - 10), ahead of 10 and 12
    st[3][S.F_TOTAL, :] = [15, 8, 9]
    assert SR.match_win_chance(st, prm, np.int64(0)) == 1.0
    st[3][S.F_TOTAL, :] = [19, 8, 9]  # 9 against 10 and 12
    assert SR.match_win_chance(st, prm, np.int64(0)) == 1.0
    st[3][S.F_TOTAL, :] = [21, 8, 9]  # 11 against 10 and 12
    assert SR.match_win_chance(st, prm, np.int64(0)) == 0.0


@pytest.mark.parametrize("totals,left", [([0, 0, 0], 1), ([0, 0, 0], 5), ([50, 120, 80], 1), ([50, 120, 80], 4),
                                         ([200, 20, 35], 2), ([10, 10, 300], 3)])
def test_chance_with_rounds_to_play_is_the_normal_model(totals, left):
    hands = [[], ["5H", "9D"], ["JK"]]
    final = [totals[0], totals[1] + 14, totals[2] + 50]
    got = [chance(LOBA, hands, totals, left, 0, me) for me in range(3)]
    for me in range(3):
        assert got[me] == pytest.approx(reference_chance(final, me, left), abs=2e-4)
    assert sum(got) == pytest.approx(1.0, abs=1e-3)  # someone wins


def test_equal_totals_give_every_seat_an_equal_chance():
    rules = LobaRules(players=4)
    got = chance(rules, [[], [], [], []], [30, 30, 30, 30], 3, -1, 2)
    assert got == pytest.approx(float(Fraction(1, 4)), abs=1e-4)


def test_a_larger_lead_is_a_larger_chance_and_fewer_rounds_fix_it_more():
    hands = [[], [], []]
    leads = [chance(LOBA, hands, [100 - d, 100, 100], 2, -1, 0) for d in (0, 10, 40, 100)]
    assert leads == sorted(leads) and leads[0] < leads[-1]
    by_left = [chance(LOBA, hands, [60, 100, 100], left, -1, 0) for left in (6, 3, 1)]
    assert by_left == sorted(by_left)


@pytest.mark.parametrize("rules", [LobaRules(), ContinentalRules()], ids=["loba", "continental"])
def test_match_search_and_plain_search_are_different_players(rules):
    """``search`` (the match) and ``search-plain`` (the round's points) play the same deals
    differently somewhere; with no search seat both runs are the heuristic's."""
    match = play_chunk(3, 0, 3, rules, ["search:8", "heuristic", "heuristic", "heuristic"])
    plain = play_chunk(3, 0, 3, rules, ["search-plain:8", "heuristic", "heuristic", "heuristic"])
    cols = [c for c in match["hands"] if c.startswith("points_")]
    assert any(not np.array_equal(match["hands"][c], plain["hands"][c]) for c in cols)
