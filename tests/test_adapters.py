"""The ecosystem adapters judged by the ecosystems' own tests: PettingZoo's ``api_test`` and
``seed_test``, OpenSpiel's ``random_sim_test``, and OpenSpiel's ``ISMCTSBot`` playing every
game through ``resample_from_infostate``."""
from __future__ import annotations

import numpy as np
import pytest

from cardsim.simcore.framework import registry

GAMES = registry.game_names()

pettingzoo_test = pytest.importorskip("pettingzoo.test")
pyspiel = pytest.importorskip("pyspiel")


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_api_test(game):
    from cardsim import pettingzoo as cz

    pettingzoo_test.api_test(cz.env(game), num_cycles=200)


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_seed_test(game):
    from cardsim import pettingzoo as cz

    pettingzoo_test.seed_test(lambda: cz.env(game), num_cycles=100)


def test_pettingzoo_rules_and_rewards():
    from cardsim import pettingzoo as cz

    e = cz.env("tusac", rules={"players": 3})
    e.reset(seed=5)
    assert e.possible_agents == ["player_0", "player_1", "player_2"]
    total = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        total[agent] += reward
        assert obs["action_mask"].sum() > 0 or term or trunc
        e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    assert total == pytest.approx(dict(zip(e.possible_agents, e.cardsim_env.returns())))


@pytest.mark.parametrize("game,params", [("tienlen", ""), ("tienlen", "(players=3,scoring=per_card)"),
                                         ("tusac", ""), ("tusac", "(players=3)"), ("loba", ""),
                                         ("continental", "(players=3)"), ("bigtwo", ""),
                                         ("bigtwo", "(players=3,straights=wheels)")])
def test_openspiel_random_sim_test(game, params):
    import cardsim.openspiel  # noqa: F401 - registers the games

    loaded = pyspiel.load_game(f"cardsim_{game}{params}")
    sims = 4 if game in ("tienlen", "tusac", "bigtwo") else 1
    pyspiel.random_sim_test(loaded, num_sims=sims, serialize=False, verbose=False)


@pytest.mark.parametrize("game", GAMES)
def test_openspiel_ismcts_plays_every_game(game):
    """OpenSpiel's own ISMCTSBot, random-rollout evaluator, plays seat 0 to the end."""
    import cardsim.openspiel  # noqa: F401
    from open_spiel.python.algorithms import ismcts, mcts

    loaded = pyspiel.load_game(f"cardsim_{game}")
    rng = np.random.RandomState(3)
    bot = ismcts.ISMCTSBot(loaded, mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng), uct_c=2.0,
                           max_simulations=4, random_state=rng)
    state = loaded.new_initial_state()
    state.apply_action(2)
    decisions = 0
    while not state.is_terminal():
        if state.current_player() == 0 and decisions < 40:
            action = bot.step(state)
            decisions += 1
        else:
            action = state.legal_actions()[0]
        assert action in state.legal_actions()
        state.apply_action(action)
    assert decisions > 0
    assert len(state.returns()) == loaded.num_players()


def test_openspiel_parameters_are_the_rule_switches():
    import cardsim.openspiel  # noqa: F401

    game = pyspiel.load_game("cardsim_tusac(players=3,seed=9,deals=10)")
    assert game.num_players() == 3
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 10
    state.apply_action(4)
    import cardsim

    same = cardsim.env("tusac", seed=9, index=4, rules={"players": 3})
    assert state.env.observation(0) == same.observation(0)
    with pytest.raises(Exception, match="players"):
        pyspiel.load_game("cardsim_tusac(players=9)")
