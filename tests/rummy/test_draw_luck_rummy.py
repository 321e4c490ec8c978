"""The luck of the Loba and Continental stock draws (:mod:`cardsim.simcore.rummy.luck`):
a hand-built draw, the games unchanged by recording it, its exact expectation 0."""
from __future__ import annotations

import math

import numpy as np
import pytest

from cardsim.simcore.rummy.cards import card_code, card_points, hand_planes
from cardsim.simcore.rummy.hand import distance, improves
from cardsim.simcore.rummy.luck import LUCK_CAP, LUCK_NAMES, N_LUCK, add_draw_luck
from cardsim.simcore.rummy.play import _Setup, play_chunk
from cardsim.simcore.rummy.rules import ContinentalRules, LobaRules

RULES = {"loba": LobaRules, "continental": ContinentalRules}


def test_a_hand_built_draw():
    setup = _Setup(LobaRules(), "heuristic", None, 400, None)
    mp = setup.mp
    _, k, m, _ = setup.rounds[0]
    hand = [card_code(c) for c in ("3H", "4H", "5H", "9S", "9C", "KD", "2C", "7S", "JH")]
    a1, a2, jokers = hand_planes(hand)
    stock = [card_code(c) for c in ("9D", "6H", "QS", "QS")] + [52]  # 52: a joker
    drawn = stock[0]
    deck = np.array([-1, -1] + stock[1:], np.int64)  # the stock after the draw: deck[2:]
    luck = np.zeros((4, N_LUCK))
    add_draw_luck(luck, 1, np.uint64(a1), np.uint64(a2), jokers, False, deck, 2, drawn, k, m, mp)
    col = {name: j for j, name in enumerate(LUCK_NAMES)}
    n = len(stock)
    assert luck[1, col["joker"]] == pytest.approx(0 - 1 / n)
    assert luck[1, col["points"]] == pytest.approx(card_points(drawn) - sum(card_points(c) for c in stock) / n)
    d0 = distance(np.uint64(a1), np.uint64(a2), jokers, k, m, mp, LUCK_CAP)
    better = [bool(improves(np.uint64(a1), np.uint64(a2), jokers, c, d0, k, m, mp)) for c in stock]
    # the first contract is two trios: the 9D makes one with 9S 9C, a joker fits anywhere,
    # the 6H (a run card) and the queens (no pair to join) do not help
    assert better == [True, False, False, False, True]
    assert luck[1, col["improves"]] == pytest.approx(float(better[0]) - sum(better) / n)
    assert not np.delete(luck, 1, axis=0).any()  # only the drawer's luck moves
    # a seat already down: its points and jokers still count, the contract distance no more
    down = np.zeros((4, N_LUCK))
    add_draw_luck(down, 1, np.uint64(a1), np.uint64(a2), jokers, True, deck, 2, drawn, k, m, mp)
    assert down[1, col["improves"]] == 0.0 and down[1, col["points"]] == luck[1, col["points"]]


@pytest.mark.parametrize("game", ["loba", "continental"])
def test_recording_the_luck_does_not_change_the_matches(game):
    rules = RULES[game]()
    plain = play_chunk(3, 0, 60, rules, ["heuristic", "random", "heuristic", "learned"], n_blocks=1,
                       draw_luck=False)
    lucky = play_chunk(3, 0, 60, rules, ["heuristic", "random", "heuristic", "learned"], n_blocks=1,
                       draw_luck=True)
    assert set(lucky["matches"]) - set(plain["matches"]) == {f"draw_luck_{n}_{s}" for n in LUCK_NAMES
                                                            for s in range(4)}
    for table, columns in plain.items():
        for column, values in columns.items():
            np.testing.assert_array_equal(values, lucky[table][column], err_msg=f"{table}.{column}")


@pytest.mark.parametrize("game", ["loba", "continental"])
def test_the_luck_has_expectation_zero(game):
    # each term is the drawn card's value minus its exact mean over the stock: whatever the
    # players do, every column's mean is 0 (|z| < 4 over 3,000 matches, 12 columns)
    matches = play_chunk(17, 0, 3000, RULES[game](), "heuristic", draw_luck=True)["matches"]
    for name in LUCK_NAMES:
        for s in range(4):
            x = np.asarray(matches[f"draw_luck_{name}_{s}"], float)
            assert x.std() > 0, (name, s)
            z = x.mean() / (x.std(ddof=1) / math.sqrt(x.size))
            assert abs(z) < 4, (game, name, s, z)
