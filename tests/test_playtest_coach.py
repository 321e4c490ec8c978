"""The playtest coach (:mod:`cardsim.playtest.coach`): a clearly winning option ranks first,
the estimate never changes the game, the budget bounds the time, every game is covered."""
from __future__ import annotations

import time

import numpy as np
import pytest

import cardsim
from cardsim.playtest.coach import advise, fast_twin, review_entry
from cardsim.simcore.framework.config import ConfigError


def _two_player_tienlen(policy="heuristic"):
    # seat 0 leads (it holds 3♠): the straight 3-4-5 leaves it the top card 2♥, which nothing beats
    return cardsim.env("tienlen", rules={"players": 2, "cards_per_player": 4}, policy=policy,
                       deal={"hands": ["3♠ 4♠ 5♠ 2♥", "6♣ 8♦ 10♥ Q♠"], "first": True})


def test_clear_winner_ranks_first():
    g = _two_player_tienlen()
    before = g.information_key(0)
    a = advise(g, budget=0.5, min_worlds=50, rng=np.random.default_rng(0))
    assert a.best.text.startswith("3♠ 4♠ 5♠")
    assert a.best.value > 0.8 and a.best.value - a.options[1].value > 0.3
    assert a.worlds >= 50 and a.measure == "win" and a.higher_is_better
    assert g.information_key(0) == before and len(g.history) == 0  # the game is not touched
    entry = review_entry(a, 1, step=0)
    assert entry["gap"] > 0.3 and entry["best"].startswith("3♠ 4♠ 5♠")
    assert review_entry(a, 7, step=0)["gap"] == 0


def test_search_opponents_are_rolled_out_by_the_heuristic():
    g = _two_player_tienlen(policy="search:8")
    twin = fast_twin(g)
    assert twin is not g and twin.policies == ["heuristic", "heuristic"]
    assert twin.information_key(0) == g.information_key(0)
    a = advise(g, budget=0.2, min_worlds=5, rng=np.random.default_rng(1))
    assert a.best.text.startswith("3♠ 4♠ 5♠")


@pytest.mark.parametrize("game,rules", [("tusac", {}), ("loba", {"contracts": "2T"}), ("continental", {})])
def test_every_game_within_budget(game, rules):
    g = cardsim.env(game, seed=4, rules=rules, policy="heuristic")
    while len(g.legal_actions()) < 2:
        g.step(g.policy_action())
    advise(g, budget=0.0, min_worlds=1, max_worlds=1)  # the kernels loaded
    t = time.perf_counter()
    a = advise(g, budget=0.3, min_worlds=1, rng=np.random.default_rng(2))
    assert time.perf_counter() - t < 3.0
    assert {e.action for e in a.options} == set(g.legal_actions())
    assert a.worlds >= 1
    if game in ("loba", "continental"):
        assert a.measure == "round_points" and not a.higher_is_better
        assert all(e.value >= 0 for e in a.options)
        assert [e.value for e in a.options] == sorted(e.value for e in a.options)
    else:
        assert all(0 <= e.value <= 1 for e in a.options)


def test_refuses_the_wrong_seat_and_a_finished_game():
    g = _two_player_tienlen()
    with pytest.raises(ConfigError):
        advise(g, seat=1)
    with pytest.raises(ConfigError):
        advise(g, actions=[2])
    while not g.done:
        g.step(g.policy_action())
    with pytest.raises(ConfigError):
        advise(g)
