"""Tứ Sắc step API (:mod:`cardsim.simcore.tusac.step`): a game stepped with every seat's
built-in policy is the game ``play`` plays (every result column), explicit deals
round-trip, a resampled state looks the same to its seat (no peeking), and the action
ids, observations and texts are consistent."""
from __future__ import annotations

import json
import random

import numpy as np
import pytest

from cardsim.simcore.tusac import engine as E
from cardsim.simcore.tusac.cards import N_TYPES
from cardsim.simcore.tusac.play import play_chunk
from cardsim.simcore.tusac.replay import replay_game
from cardsim.simcore.tusac.rules import TuSacRules
from cardsim.simcore.tusac.step import A_DECLINE, A_TAKE, NUM_ACTIONS, OBS_SIZE, TuSacStep

SEED = 11
MIXED4 = ["heuristic", "random", "learned", "random"]

# (rule settings, policies per seat, games): several hundred games in all
CONFORMANCE = [
    ({}, ["random"] * 4, 120),
    ({}, ["heuristic"] * 4, 60),
    ({}, MIXED4, 60),
    ({"players": 3}, ["random", "learned", "heuristic"], 60),
    ({"players": 2, "steals": "win_only"}, ["random", "heuristic"], 60),
    ({"steals": "off", "mulligan": False, "command_points": 1, "three_colour_soldier_points": 3},
     ["random", "heuristic", "random", "heuristic"], 40),
    ({"priority": "taiwanese", "triple_steal": "pair_or_triple"}, ["random"] * 4, 60),
    ({"trio_lock": True, "win_threshold": 9, "general_steals": "never"}, MIXED4, 40),
    ({"players": 3, "dead_wall": 6, "steal_seats": ["0", "2"], "soldier_pairs": False}, ["random"] * 3, 40),
    ({}, ["search:16", "heuristic", "random", "learned"], 5),
    ({"players": 3, "priority": "taiwanese"}, ["random", "search-plain:8", "heuristic"], 4),
]


def play_steps(g: TuSacStep) -> TuSacStep:
    """Play ``g`` to the end with every seat's built-in policy."""
    while not g.done():
        g.apply(g.policy_action())
    return g


@pytest.mark.parametrize("settings,policies,games", CONFORMANCE,
                         ids=[f"{i}-{'+'.join(sorted(set(p)))}" for i, (_, p, _) in enumerate(CONFORMANCE)])
def test_stepped_games_are_the_played_games(settings, policies, games):
    """The proof: every seat stepped with policy_action gives play_chunk's row, column for column."""
    rules = TuSacRules.from_settings(settings)
    ref = play_chunk(SEED, 0, games, rules, policies, n_blocks=1)
    for i in range(games):
        g = play_steps(TuSacStep.new(rules, policies, SEED, i))
        row = g.result()["games"]
        assert set(row) == set(ref)
        for col, values in ref.items():
            assert row[col] == values[i].item(), (i, col)
            assert type(row[col]) is type(values[i].item())
        assert g.returns() == [float(ref[f"points_{s}"][i]) for s in range(rules.players)]
        assert sum(g.returns()) == 0


@pytest.mark.parametrize("settings,policies", [({}, ["random"] * 4), ({"players": 3}, MIXED4[:3])])
def test_log_lines_are_the_replay(settings, policies):
    rules = TuSacRules.from_settings(settings)
    for i in range(3):
        g = play_steps(TuSacStep.new(rules, policies, SEED, i))
        assert g.log_lines() == replay_game(SEED, i, rules, policies)[1:]  # replay heads it with a title line


def test_forced_choices_are_not_decisions():
    """Every decision offered has two or more legal actions, ascending, in range."""
    rules = TuSacRules.from_settings({})
    rnd = random.Random(3)
    for i in range(20):
        g = TuSacStep.new(rules, ["random"] * 4, SEED, i)
        while not g.done():
            legal = g.legal_actions()
            assert len(legal) >= 2 and legal == sorted(set(legal))
            assert all(0 <= a < NUM_ACTIONS for a in legal)
            kind = g.decision_kind()
            if kind == "discard":
                assert all(a < N_TYPES for a in legal)
            else:
                assert kind in ("take", "steal", "keep") and all(a >= A_DECLINE for a in legal)
            for a in legal:
                assert g.is_legal(a) and "action" not in g.action_text(a)
            g.apply(rnd.choice(legal))
        assert g.legal_actions() == [] and g.decision_kind() == "end"


def test_other_actions_leave_the_streams():
    """Asking the built-in policy and then applying another action is the same as
    applying that action without asking; applying the policy's own action commits the
    random number it drew."""
    rules = TuSacRules.from_settings({})
    rnd = random.Random(5)
    g = TuSacStep.new(rules, ["random"] * 4, SEED, 0)
    drew = 0
    while not g.done():
        a = g.policy_action()
        other = rnd.choice([x for x in g.legal_actions() if x != a])
        asked, fresh = g.clone(), g.clone()
        fresh._stash = None
        asked.apply(other)
        fresh.apply(other)
        assert int(asked.state) == int(fresh.state)
        assert asked.observation(0) == fresh.observation(0)
        own, plain = g.clone(), g.clone()
        plain._stash = None
        own.apply(a)
        plain.apply(a)
        drew += int(own.state) != int(plain.state)
        g.apply(rnd.choice([a, other]))
    assert drew > 0


def test_policy_action_does_not_change_the_state():
    rules = TuSacRules.from_settings({})
    g = TuSacStep.new(rules, ["random", "heuristic", "search:16", "learned"], SEED, 2)
    for _ in range(40):
        if g.done():
            break
        snap = g.clone()
        a = g.policy_action()
        assert g.policy_action() == a
        assert int(g.state) == int(snap.state) and int(g.search_state) == int(snap.search_state)
        for k in ("cur", "deck", "hands", "table", "discards", "locked", "log"):
            assert np.array_equal(getattr(g, k), getattr(snap, k)), k
        g.apply(a)


@pytest.mark.parametrize("settings", [{}, {"players": 3, "trio_lock": True}, {"mulligan": False, "players": 2}])
def test_deal_round_trips(settings):
    rules = TuSacRules.from_settings(settings)
    policies = (["random", "heuristic", "learned", "random"])[:rules.players]
    seen_mulligan = False
    for i in range(12):
        g = TuSacStep.new(rules, policies, SEED, i)
        deal = json.loads(json.dumps(g.deal()))
        seen_mulligan |= len(deal["mulligans"]) > 0
        assert [len(h) for h in deal["hands"]] == list(rules.hand_sizes)
        h = TuSacStep.new(rules, policies, 0, i, deal=deal)
        assert h.deal() == deal
        # the explicit deal's start is the seeded game's start, array for array
        lo = E.stock_start(rules.players)  # the dealt cards are listed sorted, the stock in deck order
        assert np.array_equal(h.deck[lo:], g.deck[lo:])
        for k in ("cur", "hands", "table", "discards", "locked", "exp_pts", "exp_kinds", "seat", "meta",
                  "log", "legal"):
            assert np.array_equal(getattr(h, k), getattr(g, k)), k
        assert int(h.state) == int(g.state) and int(h.search_state) == int(g.search_state)
        assert h.observation(0) == g.observation(0)
        play_steps(g)
        play_steps(h)
        assert h.result() == g.result()
        assert g.deal() == deal  # the deal of the game, whatever was played since
        assert h.log_lines() == g.log_lines()
    if settings.get("mulligan", True):
        assert seen_mulligan


def test_bad_deals_are_refused():
    rules = TuSacRules.from_settings({})
    good = TuSacStep.new(rules, ["random"] * 4, SEED, 0).deal()

    def bad(**change):
        d = json.loads(json.dumps(good))
        d.update(change)
        with pytest.raises(ValueError) as err:
            TuSacStep.new(rules, ["random"] * 4, 0, 0, deal=d)
        assert "\n" not in str(err.value)
        return str(err.value)

    assert "seat 1" in bad(hands=[good["hands"][0], good["hands"][1][:-1]] + good["hands"][2:])
    assert "4 hands" in bad(hands=good["hands"][:3])
    assert "every type 4 times" in bad(stock=[0] + good["stock"][1:] if good["stock"][0] != 0 else
                                       [1] + good["stock"][1:])
    assert "bad card" in bad(stock=[28] + good["stock"][1:])
    assert "stock" in bad(stock=good["stock"][:-1])
    assert "rng" in bad(rng=-1)
    assert "unknown" in bad(extra=1)
    assert "mulligans" in bad(mulligans=[[4]])
    assert "mulligans" in bad(mulligans=3)
    with pytest.raises(ValueError):
        TuSacStep.new(rules, ["random"] * 4, 0, 0, deal=[1, 2])


def conserved(g: TuSacStep) -> bool:
    """Every type 4 times across hands, tables, discards, the stock and an exposed drawn card."""
    P = g.players
    n = g.hands[:P].sum(axis=0).astype(int) + g.table[:P].sum(axis=0) + g.discards
    lo = E.stock_start(P)
    n = n + np.bincount(g.deck[lo:lo + g.cur[E.C_NSTOCK]], minlength=N_TYPES)
    if g.cur[E.C_PHASE] == E.PH_CLAIM and g.cur[E.C_DRAW]:
        n[g.cur[E.C_CARD]] += 1
    return bool((n == 4).all())


@pytest.mark.parametrize("settings,policies", [
    ({}, ["heuristic", "random", "heuristic", "random"]),
    ({"players": 3, "trio_lock": True, "priority": "taiwanese"}, ["heuristic", "random", "learned"]),
])
def test_resample_keeps_what_the_seat_sees(settings, policies):
    rules = TuSacRules.from_settings(settings)
    P = rules.players
    rng = np.random.default_rng(4)
    rnd = random.Random(4)
    states = changed = 0
    for i in range(12):
        g = TuSacStep.new(rules, policies, SEED, i)
        while not g.done():
            for seat in range(P):
                r = g.resample(seat, rng)
                states += 1
                assert r.observation(seat) == g.observation(seat)
                assert np.array_equal(r.observation_vector(seat), g.observation_vector(seat))
                assert r.information_key(seat) == g.information_key(seat)
                assert r.to_move() == g.to_move() and r.decision_kind() == g.decision_kind()
                assert r.hands[:P].sum(axis=1).tolist() == g.hands[:P].sum(axis=1).tolist()
                assert np.array_equal(r.hands[seat], g.hands[seat]) and conserved(r)
                assert int(r.search_state) == int(g.search_state)
                if seat == g.to_move():
                    assert r.legal_actions() == g.legal_actions()
                    if policies[seat] in ("heuristic", "learned"):
                        assert r.policy_action() == g.policy_action()
                else:
                    assert len(r.legal_actions()) >= 2
                changed += not np.array_equal(r.hands[:P], g.hands[:P])
            g.apply(rnd.choice(g.legal_actions()))
        # a resampled game plays on to its end
        r = g.resample(0, rng)
        assert r.done() and r.observation(0) == g.observation(0)
    assert states > 300 and changed > states // 2


def test_resampled_worlds_play_on():
    rules = TuSacRules.from_settings({})
    rng = np.random.default_rng(8)
    rnd = random.Random(8)
    for i in range(8):
        g = TuSacStep.new(rules, ["random"] * 4, SEED, i)
        for _ in range(rnd.randrange(1, 30)):
            if g.done():
                break
            g.apply(rnd.choice(g.legal_actions()))
        r = g.resample(rnd.randrange(4), rng)
        while not r.done():
            assert conserved(r)
            r.apply(rnd.choice(r.legal_actions()))
        assert sum(r.returns()) == 0
        assert any("deal seat" in x for x in r.log_lines())


def test_observation_is_json_and_the_vector_follows_the_layout():
    rules = TuSacRules.from_settings({"players": 3})
    layout = TuSacStep.observation_layout(rules)
    assert sum(n for _, n in layout) == OBS_SIZE == TuSacStep.obs_size
    assert TuSacStep.num_actions == NUM_ACTIONS == A_TAKE + 16
    g = TuSacStep.new(rules, ["random"] * 3, SEED, 1)
    rnd = random.Random(1)
    offs = {}
    o = 0
    for name, n in layout:
        offs[name] = (o, n)
        o += n
    while True:
        for seat in range(3):
            obs = g.observation(seat)
            json.dumps(obs)
            v = g.observation_vector(seat)
            assert v.dtype == np.float32 and v.shape == (OBS_SIZE,)
            o, n = offs["hand"]
            assert v[o:o + n].tolist() == obs["hand_counts"]
            o, n = offs["legal"]
            assert np.flatnonzero(v[o:o + n]).tolist() == obs["legal_actions"]
            o, n = offs["seat"]
            assert v[o + seat] == 1
            assert not any(x.startswith(f"deal seat {s}:") for s in range(3) if s != seat for x in obs["history"])
            assert any(x.startswith(f"deal seat {seat}:") for x in obs["history"])
            assert (obs["legal_actions"] != []) == (seat == g.to_move())
        if g.done():
            break
        g.apply(rnd.choice(g.legal_actions()))
    assert obs["phase"] == "end" and obs["exposed"] is None


def test_clone_is_independent():
    rules = TuSacRules.from_settings({})
    g = TuSacStep.new(rules, ["random"] * 4, SEED, 5)
    h = g.clone()
    g.apply(g.policy_action())
    assert h.observation(0) != g.observation(0) or h.to_move() != g.to_move()
    play_steps(h)
    play_steps(g)
    assert h.result() == g.result()
