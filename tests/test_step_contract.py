"""The step interface (``cardsim.env``) against ``cardsim play``: one engine, two paths.

Every registered game, several rule sets and policy mixes: game *i* stepped through
``cardsim.env`` with each seat's built-in ``policy_action`` ends with exactly the row(s)
``cardsim.play(..., seed=S)`` wrote for game *i*, and prints the same moves as ``replay``.
Then the contract every game shares: records replay, bad input leaves the game unchanged,
and no seat's observation (or legal actions, or a deterministic policy's choice) depends
on cards it cannot see.
"""
from __future__ import annotations

import json
import random

import numpy as np
import pytest

import cardsim
from cardsim import ConfigError
from cardsim.simcore.framework import registry

GAMES = registry.game_names()

#: (game, rules, policy, games, seed): the conformance cases. Thousands of games per game
#: family where a game is cheap; a few where a seat searches.
CASES = [
    ("tienlen", {}, "heuristic", 1200, 11),
    ("tienlen", {}, "random", 1200, 12),
    ("tienlen", {"players": 3, "scoring": "per_card", "bombs_after_pass": "all", "chop_rules": "southern"},
     "learned,greedy,random", 800, 13),
    ("tienlen", {"pass_resets": "on", "instant_wins": "none", "players": 2, "cards_per_player": 13},
     "heuristic,random", 600, 14),
    ("tienlen", {}, "search:16,heuristic,learned,random", 40, 15),
    ("tusac", {}, "heuristic", 400, 21),
    ("tusac", {}, "random", 300, 22),
    ("tusac", {"players": 3}, "learned,random,heuristic", 300, 23),
    ("tusac", {"players": 2}, "heuristic,search:16", 12, 24),
    ("loba", {}, "heuristic", 40, 31),
    ("loba", {}, "random,heuristic,learned,heuristic", 30, 32),
    ("loba", {"players": 3, "claims": "off"}, "heuristic", 30, 33),
    ("loba", {}, "search:8,heuristic,heuristic,heuristic", 3, 34),
    ("continental", {}, "heuristic", 40, 41),
    ("continental", {}, "learned,random,heuristic,heuristic", 30, 42),
    ("continental", {"players": 3}, "heuristic", 30, 43),
    ("continental", {}, "heuristic,search:8,heuristic,heuristic", 3, 44),
]


def _python(value):
    return value.item() if hasattr(value, "item") else value


def _rows(frame, game_index):
    sub = frame[frame["game"] == game_index]
    return [{k: _python(v) for k, v in row.items()} for row in sub.astype(object).to_dict("records")]


def _stepped(game, rules, policy, seed, index):
    g = cardsim.env(game, seed=seed, index=index, rules=rules, policy=policy)
    while not g.done:
        g.step(g.policy_action())
    return g


@pytest.mark.parametrize("game,rules,policy,n,seed", CASES,
                         ids=[f"{c[0]}-{c[2]}-{'-'.join(f'{k}={v}' for k, v in c[1].items()) or 'default'}"
                              for c in CASES])
def test_stepped_game_is_the_game_play_wrote(game, rules, policy, n, seed):
    played = cardsim.play(game, games=n, seed=seed, rules=rules, policy=policy, progress=False)
    for i in range(n):
        g = _stepped(game, rules, policy, seed, i)
        for table, rows in g.result().items():
            rows = rows if isinstance(rows, list) else [rows]
            assert rows == _rows(played.tables[table], i), f"{game} game {i} table {table}"


@pytest.mark.parametrize("game", GAMES)
def test_stepped_moves_are_the_replay(game):
    from cardsim.api import resolve_rules

    task = registry.get_task(game, "play")
    rules = resolve_rules(game)
    for index in range(3):
        g = _stepped(game, {}, "heuristic", 9, index)
        options = task.parse_options(rules, {"policy": "heuristic"})
        replayed = task.replay(9, index, rules, options)
        lines = g.log_lines()
        assert lines and all(line in replayed for line in lines), f"{game} game {index}"
        moves = [line for line in replayed if line in lines]
        assert moves == lines


@pytest.mark.parametrize("game", GAMES)
def test_record_round_trip(game, tmp_path):
    g = cardsim.env(game, seed=3, index=1, policy="random")
    rng = random.Random(1)
    steps = 0
    while not g.done and steps < 400:
        g.step(rng.choice(g.legal_actions()))
        steps += 1
    path = tmp_path / "game.json"
    path.write_text(json.dumps(g.record(), ensure_ascii=False))
    again = cardsim.env(game, record=path)
    assert again.history == g.history
    assert again.log_lines() == g.log_lines()
    assert again.done == g.done
    if g.done:
        assert again.result() == g.result()
    # the same game typed in by hand: the explicit deal and the actions by their text
    typed = {"game": game, "rules": g.record()["rules"], "policies": g.policies, "deal": g.deal(),
             "actions": [a["text"] for a in g.record()["actions"]]}
    assert cardsim.env(game, record=typed).log_lines() == g.log_lines()


@pytest.mark.parametrize("game", GAMES)
def test_explicit_deal_replays_the_seeded_game(game):
    g = _stepped(game, {}, "heuristic", 5, 2)
    h = cardsim.env(game, deal=g.record()["deal"], policy="heuristic")
    while not h.done:
        h.step(h.policy_action())
    assert h.log_lines() == g.log_lines()
    assert {t: r for t, r in h.result().items()} == {t: _reindex(r, 0) for t, r in g.result().items()}


def _reindex(rows, index):
    if isinstance(rows, list):
        return [{**r, "game": index} for r in rows]
    out = {**rows, "game": index}
    if "match" in out:
        out["match"] = index
    return out


def _snapshot(g):
    return (g.to_move, g.legal_actions(), json.dumps(g.observation(g.to_move), sort_keys=True), list(g.history))


@pytest.mark.parametrize("game", GAMES)
def test_bad_actions_leave_the_game_unchanged(game):
    g = cardsim.env(game, seed=4, index=0, policy="random")
    g.step(g.policy_action())
    before = _snapshot(g)
    legal = set(g.legal_actions())
    illegal = next(a for a in range(g.num_actions) if a not in legal)
    for bad in (illegal, -1, g.num_actions, 1.5, "not a move", None, True):
        with pytest.raises(ConfigError):
            g.step(bad)
        assert _snapshot(g) == before
    other = (g.to_move + 1) % g.players
    with pytest.raises(ConfigError, match="not the seat to move"):
        g.policy_action(other)
    assert _snapshot(g) == before
    while not g.done:
        g.step(g.policy_action())
    with pytest.raises(ConfigError, match="over"):
        g.step(0)
    with pytest.raises(ConfigError, match="over"):
        g.policy_action()


@pytest.mark.parametrize("game", GAMES)
def test_bad_records_are_refused_in_one_line(game, tmp_path):
    g = cardsim.env(game, seed=4, index=0, policy="random")
    g.step(g.policy_action())
    record = g.record()
    record["actions"].append({"seat": g.to_move, "action": g.num_actions + 5, "text": "?"})
    with pytest.raises(ConfigError, match="record action 1"):
        cardsim.env(game, record=record)
    record["actions"][0]["seat"] = (record["actions"][0]["seat"] + 1) % g.players
    with pytest.raises(ConfigError, match="record action 0"):
        cardsim.env(game, record=record)
    with pytest.raises(ConfigError):
        cardsim.env(game, deal={"nonsense": 1})
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ConfigError, match="not valid JSON"):
        cardsim.env(game, record=bad)


@pytest.mark.parametrize("game,policy", [(g, p) for g in GAMES for p in ("heuristic", "search:8")])
def test_no_peeking_through_the_observation(game, policy):
    """States a seat cannot tell apart (hidden cards dealt again, same public history, same
    own hand) give that seat the same observation, legal actions and the same choice of
    the deterministic heuristic and of the search (same search stream)."""
    rng = np.random.default_rng(7)
    checked = 0
    for index in range(4 if policy == "heuristic" else 1):
        g = cardsim.env(game, seed=8, index=index, policy=policy)
        step = 0
        while not g.done:
            if step % 5 == 0:
                seat = g.to_move
                other = g.resample(seat, rng)
                assert other.observation(seat) == g.observation(seat)
                assert other.information_key(seat) == g.information_key(seat)
                assert np.array_equal(other.observation_vector(seat), g.observation_vector(seat))
                assert other.legal_actions() == g.legal_actions()
                assert other.policy_action() == g.policy_action()
                watcher = (seat + 1) % g.players
                assert g.resample(watcher, rng).observation(watcher) == g.observation(watcher)
                checked += 1
            g.step(g.policy_action())
            step += 1
    assert checked >= (20 if policy == "heuristic" else 5)


@pytest.mark.parametrize("game", GAMES)
def test_observation_vector_layout(game):
    g = cardsim.env(game, seed=1, index=0)
    layout = g.observation_layout()
    assert sum(n for _, n in layout) == g.obs_size
    v = g.observation_vector(g.to_move)
    assert v.shape == (g.obs_size,) and v.dtype == np.float32 and np.isfinite(v).all()
    assert g.legal_mask().sum() == len(g.legal_actions()) > 0
    json.dumps(g.observation(0))


def test_tienlen_action_ids_are_hand_positions():
    g = cardsim.env("tienlen", seed=2, index=0, policy="random")
    hand = g.observation(g.to_move)["hand"]
    for a in g.legal_actions():
        text = g.action_text(a)
        if a == 0:
            assert text == "pass"
            continue
        cards = text.split(" [")[0].split()
        assert cards == [hand[j] for j in range(len(hand)) if a >> j & 1]


def test_games_per_match_leader_comes_from_the_previous_game():
    played = cardsim.play("tienlen", games=6, seed=3, policy="heuristic,random,heuristic,random",
                          games_per_match=3, progress=False)
    for i in range(6):
        g = cardsim.env("tienlen", seed=3, index=i, policy="heuristic,random,heuristic,random", games_per_match=3)
        while not g.done:
            g.step(g.policy_action())
        assert [g.result()["games"]] == _rows(played.tables["games"], i)
