"""The ``oracle`` policy of every game: a labelled *peeking* player (the search on the true
hands), never a default, the upper bound the strength figures are relative to.

Its label must be true: unlike the search (whose no-peeking tests live beside each game's
search tests), its decisions change when only the cards it should not see change.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from cardsim.simcore.framework.config import ConfigError
from cardsim.simcore.framework.registry import get_spec
from cardsim.simcore.framework.tasks import DEFAULT_SEARCH_BUDGET, canonical_policy, peeking_seats, seat_budgets

GAMES = ("tienlen", "tusac", "loba", "continental")


@pytest.mark.parametrize("game", GAMES)
def test_every_game_offers_the_oracle_but_never_by_default(game):
    spec = get_spec(game)
    assert "oracle" in spec.policies
    assert spec.play.default_policy != "oracle"
    assert canonical_policy("oracle", spec.policies) == f"oracle:{DEFAULT_SEARCH_BUDGET}"
    assert canonical_policy("oracle:16", spec.policies) == "oracle:16"
    with pytest.raises(ConfigError, match="budget"):
        canonical_policy("oracle:0", spec.policies)


def test_the_kernels_see_an_oracle_seat_as_a_search_seat_with_a_negative_budget():
    from cardsim.simcore.tienlen.play import policy_arrays
    from cardsim.simcore.tienlen.policies import POL_SEARCH

    policies = ["oracle:16", "search:32", "heuristic", "random"]
    codes, budgets = policy_arrays(policies, 4)
    assert list(codes[:2]) == [POL_SEARCH, POL_SEARCH]
    assert list(budgets) == [-16, 32, 0, 0]
    assert list(peeking_seats(policies, 4)) == [True, False, False, False]
    assert seat_budgets(np.array([2, 2, 2, 2]), "heuristic", 4, POL_SEARCH) is None


# ----------------------------------------------------------------------------- it peeks

def test_tienlen_oracle_decisions_follow_the_hidden_cards():
    from cardsim.simcore.tienlen.play import deal_with_state
    from cardsim.simcore.tienlen.rules import TienLenRules
    from cardsim.simcore.tienlen.probes import decide, search_position
    from tienlen.test_search import permuted_opponents

    rules = TienLenRules()
    rng = np.random.default_rng(7)
    changed = 0
    for index in range(6):
        dealt, _ = deal_with_state(3, index, 4, rules.cards_per_player)
        for nth in (0, 2, 4):
            pos = search_position(dealt, rules, ["oracle:64", "heuristic", "heuristic", "heuristic"], 0, nth)
            if pos is None:
                continue
            st, hands, srng, _ = pos
            choice = decide(st, hands, rules, -64, srng)
            assert decide(st, hands, rules, -64, srng) == choice  # deterministic on one state
            for _ in range(4):
                changed += decide(st, permuted_opponents(st, hands, 0, 4, rng), rules, -64, srng)[:2] != choice[:2]
    assert changed >= 3


def test_tusac_oracle_decisions_follow_the_hidden_cards():
    from cardsim.simcore.tusac.play import search_decision
    from cardsim.simcore.tusac.rules import TuSacRules
    from tusac.test_search import decision_states, permute_hidden

    rules = TuSacRules()
    rng = np.random.default_rng(5)
    states = decision_states(rules, ["oracle:16", "heuristic", "heuristic", "heuristic"], games=6, per_game=8)
    changed = sum(search_decision(rules, permute_hidden(s, 4, rng), -16)[0] != search_decision(rules, s, -16)[0]
                  for s in states)
    assert len(states) >= 30 and changed >= 3


@pytest.mark.parametrize("game", ["loba", "continental"])
def test_rummy_oracle_decisions_follow_the_hidden_cards(game):
    from cardsim.simcore.rummy.play import search_decision
    from rummy.test_rummy_search import RULES, decision_states, permute_hidden

    rules = RULES[0] if game == "loba" else RULES[1]
    policies = ["oracle:8"] + ["heuristic"] * (rules.players - 1)
    rng = np.random.default_rng(3)
    states = decision_states(rules, policies, games=3, per_round=8)
    changed = sum(search_decision(rules, permute_hidden(ds, rng), -8)[0] != search_decision(rules, ds, -8)[0]
                  for ds in states)
    assert len(states) >= 40 and changed >= 2


# ----------------------------------------------------------------------------- it is strong

def paired_win_gain(game, policy, n, seed):
    """Seat 0's win-rate gain over the heuristic on the same deals, and its z (paired)."""
    import cardsim

    spec = get_spec(game)
    players = spec.rules_cls().players
    field = ["heuristic"] * players
    base = cardsim.play(game, games=n, seed=seed, policy=field, progress=False).tables["games"]
    hero = cardsim.play(game, games=n, seed=seed, policy=[policy] + field[1:], progress=False).tables["games"]
    base, hero = base.sort_values("game"), hero.sort_values("game")
    diff = (hero["winner"].to_numpy() == 0).astype(float) - (base["winner"].to_numpy() == 0).astype(float)
    return diff.mean(), diff.mean() / (diff.std(ddof=1) / math.sqrt(n))


@pytest.mark.parametrize("game, policy, n", [("tienlen", "oracle", 400), ("tusac", "oracle:16", 600)])
def test_the_oracle_beats_the_heuristic_on_the_same_deals(game, policy, n):
    gain, z = paired_win_gain(game, policy, n, seed=23)
    assert gain > 0 and z > 4, (gain, z)


def test_results_label_an_oracle_seat():
    import cardsim

    result = cardsim.play("tusac", games=40, seed=2, policy="0=oracle:4", progress=False)
    groups = set(result.summary()["group"])
    assert "seat 0 (oracle:4)" in groups
    assert result.meta["options"]["policies"][0] == "oracle:4"


def test_ladders_report_relative_skill_against_the_oracle_and_never_rate_it_by_default():
    import cardsim

    default = cardsim.ladder("tienlen", games=2, seed=1, progress=False).summary()
    assert not any(p.startswith("oracle") for p in default["policy"]) and "relative_skill" not in default
    from cardsim.analysis.ladder import ratings
    from cardsim.analysis.variance import variance_reduction

    result = cardsim.ladder("tienlen", policies="random,heuristic,oracle:4", games=150, seed=1, progress=False)
    table = result.summary().set_index("policy")
    assert table.loc["random", "relative_skill"] == 0.0 and table.loc["oracle:4", "relative_skill"] == 1.0
    low, value, high = table.loc["heuristic", ["relative_skill_ci_low", "relative_skill", "relative_skill_ci_high"]]
    with variance_reduction(False):  # relative skill is a ratio of the plain win rates (paired by deal)
        plain = ratings(result.tables["games"]).set_index("policy")
    expected = ((plain.loc["heuristic", "win_rate"] - plain.loc["random", "win_rate"])
                / (plain.loc["oracle:4", "win_rate"] - plain.loc["random", "win_rate"]))
    assert value == pytest.approx(expected) and 0 < low < value < high < 1
