"""OpenSpiel's ISMCTS with compiled rollouts: ``--policy SEAT=openspiel-ismcts:N:compiled``.

The seat is OpenSpiel's ``ISMCTSBot`` with :class:`cardsim.openspiel.CompiledRolloutEvaluator`,
whose rollouts play the rest of a Loba or Continental match inside the compiled engine
(:meth:`cardsim.step_api.Env.playout`). These tests check that it plays whole matches
legally and reproducibly, that the compiled rollout is the step interface's own game (the
same moves as stepping the random policy), and that the evaluator returns what OpenSpiel's
``RandomRolloutEvaluator`` returns: the returns vector.
"""
from __future__ import annotations

import numpy as np
import pytest

import cardsim
from cardsim.simcore.framework import outside
from cardsim.simcore.framework.config import ConfigError

from cli_helpers import run

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python.algorithms import mcts  # noqa: E402

import cardsim.openspiel as cos  # noqa: E402

RUMMY = ("loba", "continental")
SEAT = "openspiel-ismcts:4:compiled"
#: Whole matches: the default rules, but Continental's buys capped. ISMCTS at 4 simulations buys
#: nearly every refused card it is offered, and a hand of some 40 cards in the last hand (3
#: escaleras) makes the engine's exact lay-down run for minutes (its search has no budget);
#: two buys a hand keep hands small.
MATCH_RULES = {"loba": {}, "continental": {"max_claims_per_hand": "2"}}


# ------------------------------------------------------------------ the policy text
def test_spelling_and_canonical_text():
    seat = outside.parse_outside("openspiel-ismcts:1_6:compiled")
    assert (seat.ref, seat.simulations, seat.evaluator) == ("openspiel-ismcts:16:compiled", 16, "compiled")
    assert outside.parse_outside("openspiel-ismcts::compiled").ref == "openspiel-ismcts:64:compiled"
    plain = outside.parse_outside("openspiel-ismcts:16")
    assert (plain.ref, plain.evaluator) == ("openspiel-ismcts:16", "")  # today's seat keeps its text


@pytest.mark.parametrize("policy, message", [
    ("openspiel-ismcts:8:fast", "only ':compiled' may follow"),
    ("openspiel-ismcts:8:", "only ':compiled' may follow"),
    ("openspiel-ismcts:x:compiled", "must be an integer"),
    ("openspiel-ismcts:0:compiled", "the simulations must be in"),
])
def test_bad_texts_are_refused_in_one_line(capsys, policy, message):
    code, _, err = run(capsys, "play", "loba", "-n", "1", "--policy", f"1={policy}")
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_compiled_rollouts_are_refused_where_there_are_none(capsys):
    code, _, err = run(capsys, "play", "tienlen", "-n", "1", "--policy", "1=openspiel-ismcts:8:compiled")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "compiled rollouts exist for loba and continental only" in err


# ------------------------------------------------------------------ the compiled rollout
def _last_round(game, seed, index):
    """Game ``index`` with the random policy at every seat, stepped to the first decision of its last round."""
    g = cardsim.env(game, seed=seed, index=index, policy="random")
    while g._g.r < g._g.setup.R - 1 and not g.done:
        g.step(g.policy_action())
    return g


@pytest.mark.parametrize("game", RUMMY)
def test_playout_is_the_step_interfaces_game(game):
    """In the last round, a play-out from the game's own stream is the game stepped to its end
    by the seats' random policy: the compiled rollout plays the rules of the step interface."""
    for index in range(3):
        g = _last_round(game, 4, index)
        assert not g.done
        stream = int(g._g.rng)
        before = g.information_key(g.to_move)
        fast = g.playout(stream)
        assert g.information_key(g.to_move) == before and not g.done  # the game is not changed
        while not g.done:
            g.step(g.policy_action())
        assert fast == g.returns()


@pytest.mark.parametrize("game", RUMMY)
def test_playout_depends_on_its_stream_only(game):
    g = cardsim.env(game, seed=2, index=1)
    for _ in range(30):
        g.step(g.policy_action())
    runs = [tuple(g.playout(s)) for s in (1, 2, 3, 1, 2**64 - 1)]
    assert runs[0] == runs[3] and len(set(runs)) >= 3
    assert all(len(r) == g.players for r in runs)
    with pytest.raises(ConfigError):
        g.playout("1")
    with pytest.raises(ConfigError, match="no compiled play-out"):
        cardsim.env("tienlen", seed=1).playout(1)


# ------------------------------------------------------------------ the evaluator
def _state(game, decisions, seed=6):
    loaded = pyspiel.load_game(cos.GAME_NAMES[game])
    state = loaded.new_initial_state()
    state.apply_action(0)  # deal 0 of the game's seed
    for _ in range(decisions):
        state.env.step(state.env.policy_action())
    return state


@pytest.mark.parametrize("game", RUMMY)
def test_evaluator_returns_the_returns_vector(game):
    state = _state(game, 40)
    env = state.env
    totals = np.array([-t for t in env._g.returns()])  # match totals so far (rounds finished)
    fast = cos.CompiledRolloutEvaluator(1, np.random.RandomState(3))
    slow = mcts.RandomRolloutEvaluator(1, np.random.RandomState(3))
    value = fast.evaluate(state)
    reference = slow.evaluate(_state(game, 40))  # OpenSpiel's own, one Python step at a time
    assert isinstance(value, np.ndarray) and value.dtype == reference.dtype == np.float64
    assert value.shape == reference.shape == (env.players,)
    # the returns are minus the match totals: never above minus the totals so far (Loba: never
    # positive; Continental: a round may score -10 at best)
    floor = 0 if game == "loba" else -10
    rounds_left = env._g.setup.R - env._g.r
    assert np.all(value <= -totals - floor * rounds_left)
    assert np.all(reference <= -totals - floor * rounds_left)
    if game == "loba":
        assert np.all(value <= 0) and np.all(reference <= 0)
    # the stream is the evaluator's own: the same draw gives the same value
    stream = int(np.random.RandomState(3).randint(0, 2**64, dtype=np.uint64))
    assert value.tolist() == state.env.playout(stream)
    again = cos.CompiledRolloutEvaluator(1, np.random.RandomState(3)).evaluate(state)
    assert again.tolist() == value.tolist()
    assert state.env is env and not env.done  # the state is not changed
    # two rollouts: the mean of two play-outs; the prior: RandomRolloutEvaluator's
    two = cos.CompiledRolloutEvaluator(2, np.random.RandomState(5))
    rs = np.random.RandomState(5)
    draws = [int(rs.randint(0, 2**64, dtype=np.uint64)) for _ in range(2)]
    expected = (np.array(env.playout(draws[0])) + np.array(env.playout(draws[1]))) / 2
    assert two.evaluate(state).tolist() == expected.tolist()
    assert fast.prior(state) == slow.prior(state)


def test_evaluator_at_the_chance_node_and_the_end():
    loaded = pyspiel.load_game(cos.GAME_NAMES["loba"], {"contracts": "2T"})
    start = loaded.new_initial_state()
    value = cos.CompiledRolloutEvaluator(1, np.random.RandomState(1)).evaluate(start)
    assert value.shape == (4,) and np.all(value <= 0) and start.is_chance_node()
    state = loaded.new_initial_state()
    state.apply_action(2)
    while not state.is_terminal():
        state.apply_action(state.env.policy_action())
    end = cos.CompiledRolloutEvaluator(1, np.random.RandomState(1)).evaluate(state)
    assert end.tolist() == state.returns()


# ------------------------------------------------------------------ whole matches
@pytest.mark.parametrize("game", RUMMY)
def test_compiled_seat_plays_whole_matches_reproducibly(game):
    """Default rules, the whole match: every move legal (a run stops on an illegal one), the
    same tables from the same seed and index whatever the chunk size, the evaluator recorded."""
    policy = f"0={SEAT},2={SEAT}"
    runs = [cardsim.play(game, 2, seed=13, rules=MATCH_RULES[game], policy=policy, chunk_size=chunk, progress=False)
            for chunk in (2, 1)]
    for name in ("matches", "hands"):
        assert runs[0].tables[name].equals(runs[1].tables[name]), name
    assert len(runs[0].tables["matches"]) == 2
    note = runs[0].meta["players"][f"outside {SEAT}"]
    assert note["simulations"] == 4 and note["evaluator"].startswith("cardsim.openspiel.CompiledRolloutEvaluator")


def test_compiled_seat_through_the_cli(capsys, tmp_path):
    out = tmp_path / "run"
    code, stdout, err = run(capsys, "play", "continental", "-n", "1", "--seed", "5", "--policy", f"1={SEAT}",
                            "--set", "max_claims_per_hand=2", "-o", out)
    assert code == 0, err
    import pandas as pd

    matches = pd.read_parquet(out / "matches.parquet") if (out / "matches.parquet").exists() else \
        pd.read_parquet(out / "matches")
    assert len(matches) == 1
    again = cardsim.play("continental", 1, seed=5, rules=MATCH_RULES["continental"], policy=f"1={SEAT}",
                         progress=False).tables["matches"]
    assert matches.reset_index(drop=True)[list(again.columns)].equals(again.reset_index(drop=True))


def test_the_decisions_are_the_bots_own():
    """The same seat, seed, index and state give the same decision; the Python evaluator's seat
    is unchanged by the compiled one's existence (its record says RandomRolloutEvaluator)."""
    g = cardsim.env("loba", seed=9, index=0)
    while len(g.legal_actions()) < 2:
        g.step(g.policy_action())
    moves = [outside.IsmctsSeat(outside.parse_outside("openspiel-ismcts:16:compiled"), "loba", g.rules, 9, 0,
                                g.to_move)(g) for _ in range(2)]
    assert moves[0] == moves[1] and moves[0] in g.legal_actions()
    notes = outside.seat_notes(["openspiel-ismcts:8", "openspiel-ismcts:8:compiled"])
    assert notes["outside openspiel-ismcts:8"]["evaluator"] == "RandomRolloutEvaluator(1)"
    assert "Compiled" in notes["outside openspiel-ismcts:8:compiled"]["evaluator"]


# ------------------------------------------------------------------ the rollouts' lay-down budget
def test_rollout_budget_spelling():
    seat = outside.parse_outside("openspiel-ismcts:16:compiled:10_000")
    assert (seat.ref, seat.evaluator, seat.rollout_budget) == ("openspiel-ismcts:16:compiled:10000", "compiled", 10000)
    assert outside.parse_outside("openspiel-ismcts:16:compiled").rollout_budget is None  # the rules' own
    assert outside.parse_outside("openspiel-ismcts:16:compiled:0").ref == "openspiel-ismcts:16:compiled:0"
    note = outside.seat_notes(["openspiel-ismcts:8:compiled:500"])["outside openspiel-ismcts:8:compiled:500"]
    assert "laydown_budget=500 inside the rollouts" in note["evaluator"]
    assert "laydown_budget" not in outside.seat_notes([SEAT])[f"outside {SEAT}"]["evaluator"]
    # the time estimate knows the budgeted rollouts are faster in Continental
    cost = {p: outside.stepped_game_seconds("continental", [p, "heuristic"], {})
            for p in ("openspiel-ismcts:64:compiled", "openspiel-ismcts:64:compiled:10000")}
    assert cost["openspiel-ismcts:64:compiled:10000"] < cost["openspiel-ismcts:64:compiled"] / 5


@pytest.mark.parametrize("policy", ["openspiel-ismcts:8:compiled:x", "openspiel-ismcts:8:compiled:-1",
                                    "openspiel-ismcts:8:compiled:", "openspiel-ismcts:8:compiled:5:6"])
def test_bad_rollout_budgets_are_refused_in_one_line(capsys, policy):
    code, _, err = run(capsys, "play", "continental", "-n", "1", "--policy", f"1={policy}")
    assert code == 2 and "lay-down budget" in err and len(err.strip().splitlines()) == 1, err


def test_rollout_budget_is_the_rule_switch_inside_the_rollout():
    """``playout(stream, B)`` is the play-out of the same game under ``laydown_budget=B``: equal,
    stream by stream, to the play-out of a game whose rules say B, and the rules' own value is
    the default. A budget of 1 changes some random play-outs (it is wired in), and the game
    played keeps its rules."""
    plain = cardsim.env("continental", seed=3, index=0, policy="random")
    tight = cardsim.env("continental", seed=3, index=0, policy="random", rules={"laydown_budget": "1"})
    for _ in range(25):  # the same decisions in both: budgets play no part before a lay-down
        action = plain.policy_action()
        plain.step(action)
        tight.step(action)
    streams = range(1, 41)
    budgeted = [plain.playout(s, 1) for s in streams]
    assert budgeted == [tight.playout(s) for s in streams]
    own = [plain.playout(s) for s in streams]
    assert own == [plain.playout(s, plain.rules.laydown_budget) for s in streams]
    assert budgeted != own
    assert plain.rules.laydown_budget != 1 and plain.playout(7) == own[6]  # the game's rules are untouched
    for bad in (-1, True, 1.5):
        with pytest.raises(ConfigError, match="laydown_budget"):
            plain.playout(1, bad)
    evaluator = cos.CompiledRolloutEvaluator(1, np.random.RandomState(2), laydown_budget=1)
    state = pyspiel.load_game(cos.GAME_NAMES["continental"]).new_initial_state()
    state.apply_action(0)
    stream = int(np.random.RandomState(2).randint(0, 2**64, dtype=np.uint64))
    assert evaluator.evaluate(state).tolist() == state.env.playout(stream, 1)


def test_budgeted_seat_plays_a_whole_match():
    policy = "0=openspiel-ismcts:4:compiled:1000,2=openspiel-ismcts:4:compiled:1000"
    result = cardsim.play("continental", 1, seed=13, rules=MATCH_RULES["continental"], policy=policy,
                          progress=False)
    assert len(result.tables["matches"]) == 1
    assert result.meta["players"]["outside openspiel-ismcts:4:compiled:1000"]["simulations"] == 4
