"""Tứ Sắc hand size (issue 34 item 1): a player holds 20 cards between turns (hidden and
laid), 21 right after a take, and a winner exactly 21 -- also under ``win_threshold``,
where a fully melded hand below the threshold is not a win and the taker must still
discard. A take that would leave the taker no legal discard (only Generals or locked
cards hidden, or nothing) is not offered; a drawn General its drawer cannot keep that way
is discarded as drawn."""
from __future__ import annotations

import pytest

from cardsim.simcore.tusac.probes import claim_case
from cardsim.simcore.tusac.log import LOG_DISCARD, LOG_DRAW, LOG_NODISCARD
from cardsim.simcore.tusac.play import play_logged
from cardsim.simcore.tusac.rules import TuSacRules


def R(**kw):
    return TuSacRules.from_settings(kw)


def held(fin, s):
    """Cards seat ``s`` holds at the end: hidden plus laid (the winning card included)."""
    return int(fin[s].sum()) + int(fin[4 + s].sum())


def check_hand_sizes(rules, cols, log, nlog, fin):
    """Every game: the winner holds exactly 21 cards, every other seat 20, and no seat ever
    skipped its discard. Returns the number of wins."""
    wins = 0
    for i in range(len(cols["winner"])):
        w = int(cols["winner"][i])
        rows = log[i, :nlog[i]]
        assert not (rows[:, 0] == LOG_NODISCARD).any(), (i, "a seat kept a card it should have discarded")
        for s in range(rules.players):
            assert held(fin[i], s) == (21 if s == w else 20), (i, s, w, held(fin[i], s))
        wins += w >= 0
    return wins


@pytest.mark.parametrize("policy", ["heuristic", "random"])
@pytest.mark.parametrize("settings", [{"win_threshold": 10}, {"win_threshold": 9, "trio_lock": True}])
def test_no_winner_ever_holds_more_than_21_cards(settings, policy):
    # seed 51 at win_threshold=10 had 4 heuristic winners of 300 holding 22 cards (game 56 one)
    rules = R(**settings)
    cols, log, nlog, fin = play_logged(51, 0, 300, rules, policy)
    assert check_hand_sizes(rules, cols, log, nlog, fin) > 0


def test_issue_game_56_now_ends_with_a_21_card_hand():
    rules = R(win_threshold=10)
    cols, log, nlog, fin = play_logged(51, 56, 1, rules, "heuristic")
    check_hand_sizes(rules, cols, log, nlog, fin)


def test_a_take_that_leaves_no_legal_discard_is_not_offered():
    # Seat 0 holds two Generals and a pair of Red Advisors; seat 3 discards a Red Advisor.
    hands = ["RG YG 2RA", "YH GE WN", "YH GE WN", "YC GC WC"]
    # Without a threshold the triple completes the hand: a win (1 + 2 Generals = 3 points).
    out = claim_case(hands, "RA", 3, False, R())
    assert (out["result"], out["seat"]) == ("win", 0)
    # Below win_threshold=10 it is no win, and the triple would leave only Generals,
    # which may not be discarded: only the pair is offered (the heuristic takes it).
    out = claim_case(hands, "RA", 3, False, R(win_threshold=10))
    assert (out["result"], out["seat"], out["meld"]) == ("taken", 0, "pair")
    assert out["hands"][0].sum() == 3  # RG YG RA: the Red Advisor can be discarded


def test_a_drawn_general_its_drawer_cannot_keep_is_discarded_as_drawn():
    # Seat 0 holds only Generals and is below the threshold: laying a drawn General would
    # leave no legal discard, so it is exposed as seat 0's discard (no win, no take).
    hands = ["RG YG", "YH GE WN", "YH GE WN", "YC GC WC"]
    out = claim_case(hands, "GG", 0, True, R(win_threshold=10))
    assert (out["result"], out["seat"]) == ("rediscard", 0)
    assert out["hands"][0].sum() == 2
    # with enough points laid it is a win (a taken General, 1 + 2 hidden Generals)
    out = claim_case(hands, "GG", 0, True, R(win_threshold=10), exposed_points=[7, 0, 0, 0])
    assert (out["result"], out["seat"], out["win_score"]) == ("win", 0, 3)


def test_drawn_generals_are_the_only_generals_discarded():
    rules = R(win_threshold=10)
    cols, log, nlog, fin = play_logged(51, 0, 300, rules, "heuristic")
    checked = 0
    for i in range(300):
        rows = log[i, :nlog[i]]
        for j, (kind, seat, a, b, _, _) in enumerate(rows):
            if kind == LOG_DISCARD and a % 7 == 0:
                assert b == 1 and rows[j - 2][0] == LOG_DRAW and rows[j - 2][2] == a, (i, j)
                checked += 1
    assert checked > 0, "no General was discarded: the sample checks nothing"
