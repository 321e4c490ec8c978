"""Loba / Continental step games (:mod:`cardsim.simcore.rummy.step`): stepped with every seat's
own policy a match is the match ``play`` writes; explicit deals round-trip; resampling never
changes what the seat sees; every legal action applies."""
from __future__ import annotations

import json
import random
from collections import Counter

import numpy as np
import pytest
from cardsim.simcore.rummy import state as S
from cardsim.simcore.rummy.cards import make_deck, planes_cards
from cardsim.simcore.rummy.play import play_chunk
from cardsim.simcore.rummy.rules import ContinentalRules, LobaRules
from cardsim.simcore.rummy.step import NUM_ACTIONS, RummyStep, table_rows

HEUR4 = ["heuristic"] * 4
RAND4 = ["random"] * 4
MIX4 = ["heuristic", "random", "learned", "heuristic"]

# (rules, policies, games): defaults, other table sizes, claims on / off, the exact / greedy switches
PROOF = [
    (LobaRules(), HEUR4, [0, 1]),
    (LobaRules(claims=True), MIX4, [1, 2, 3]),
    (LobaRules(claims=True), RAND4, [4, 5]),
    (LobaRules(players=3, claims=True, exact_go_out=False, max_claims_per_round=2), RAND4[:3], [2, 3]),
    (LobaRules(players=5, claims=True), ["random", "heuristic", "learned", "heuristic", "random"], [6]),
    (LobaRules(players=2, claims=True, contracts=("2T", "3E")), ["random", "heuristic"], [3, 4, 5]),
    (ContinentalRules(), HEUR4, [0, 1]),
    (ContinentalRules(), RAND4, [2, 3]),
    (ContinentalRules(claims=False), ["random", "learned", "heuristic", "random"], [1, 2]),
    (ContinentalRules(players=3, joker_swap=False, exact_laydown=False), ["heuristic", "random", "learned"], [2, 3]),
    (ContinentalRules(jokers_per_deck=2, claim_penalty_cards=2, max_claims_per_hand=1), MIX4, [4, 5]),
]
SEARCH = [
    (LobaRules(players=3, claims=True), ["search:16", "heuristic", "random"], [0, 1]),
    (ContinentalRules(players=2), ["heuristic", "search:16"], [0, 1]),
]


def play_stepped(g: RummyStep) -> int:
    steps = 0
    while not g.done():
        a = g.policy_action()
        assert a in g.legal_actions(), (a, g.legal_actions(), g.decision_kind())
        assert a == g.policy_action()  # asking again changes nothing
        g.apply(a)
        steps += 1
    return steps


def card_count(g: RummyStep) -> Counter:
    """Every card of the round in play: hands, table melds, pile, stock."""
    st = g.st
    sv = st[11]
    cnt = Counter()
    for q in range(g.players):
        cnt.update(planes_cards(int(st[0][q]), int(st[1][q]), int(st[2][q])))
    for i in range(int(sv[S.V_NM])):
        cnt.update(int(c) for c in st[6][i, :st[7][i]])
    cnt.update(int(c) for c in st[9][:sv[S.V_NPILE]])
    cnt.update(int(c) for c in st[10][sv[S.V_SP]:])
    return cnt


def random_states(rules, policies, seed, games, every, rnd):
    """States along games played with random actions (and policy actions now and then)."""
    out = []
    for index in range(games):
        g = RummyStep.new(rules, policies, seed, index)
        n = 0
        while not g.done():
            if n % every == 0:
                out.append(g.clone())
            legal = g.legal_actions()
            g.apply(g.policy_action() if rnd.random() < 0.5 else rnd.choice(legal))
            n += 1
    return out


@pytest.mark.parametrize("rules,policies,games", PROOF + SEARCH,
                         ids=[f"{r.GAME}-{i}" for i, (r, _, _) in enumerate(PROOF + SEARCH)])
def test_stepped_match_is_the_played_match(rules, policies, games):
    ref = play_chunk(7, games[0], len(games), rules, policies)
    hands, matches = table_rows(ref["hands"]), table_rows(ref["matches"])
    R = len(rules.rounds())
    for j, index in enumerate(games):
        g = RummyStep.new(rules, policies, 7, index)
        assert g.game == rules.GAME and g.num_actions == NUM_ACTIONS
        play_stepped(g)
        res = g.result()
        assert res["hands"] == hands[j * R:(j + 1) * R]
        assert res["matches"] == matches[j]
        assert g.returns() == [-float(matches[j][f"total_{s}"]) for s in range(rules.players)]
        assert g.legal_actions() == [] and g.to_move() == -1


def test_streams_move_only_with_the_policy_action():
    rules = LobaRules(claims=True)
    g = RummyStep.new(rules, RAND4, 4, 0)
    seen = 0
    while not g.done() and seen < 20:
        if g.decision_kind() == "discard":
            rng, srng = g.rng, g.srng
            a = g.policy_action()
            assert (g.rng, g.srng) == (rng, srng)  # asking does not move the streams
            other = [b for b in g.legal_actions() if b != a]
            if other:
                h = g.clone()
                h.apply(other[0])
                assert h.rng == rng  # another action: the stream stays (a discard draws nothing)
                g.apply(a)
                assert g.rng != rng  # the random policy's own draw is committed
                seen += 1
                continue
        g.apply(g.policy_action())
    assert seen == 20


def test_log_lines_are_the_replay():
    from cardsim.simcore.rummy.replay import replay_game
    rules, pols = LobaRules(claims=True), MIX4
    g = RummyStep.new(rules, pols, 3, 5)
    play_stepped(g)
    assert g.log_lines() == replay_game(3, 5, rules, pols)[1:]


@pytest.mark.parametrize("rules,policies", [(LobaRules(claims=True), MIX4),
                                            (ContinentalRules(players=3), ["random", "heuristic", "random"])])
def test_deal_round_trip(rules, policies):
    g = RummyStep.new(rules, policies, 9, 4)
    deal = json.loads(json.dumps(g.deal()))
    h = RummyStep.new(rules, policies, 0, 0, deal=deal)
    assert h.deal() == g.deal()
    play_stepped(g)
    play_stepped(h)
    assert g.log_lines() == h.log_lines()
    def strip(rows):
        return [{k: v for k, v in row.items() if k != "game"} for row in rows]
    assert strip(g.result()["hands"]) == strip(h.result()["hands"])
    assert strip([g.result()["matches"]]) == strip([h.result()["matches"]])


def test_bad_deal_is_refused():
    rules = ContinentalRules()
    deal = RummyStep.new(rules, HEUR4, 1, 1).deal()
    bad = json.loads(json.dumps(deal))
    bad["rounds"][2]["pack"][5] = bad["rounds"][2]["pack"][6]
    with pytest.raises(ValueError, match="permutation"):
        RummyStep.new(rules, HEUR4, 0, 0, deal=bad)
    with pytest.raises(ValueError):
        RummyStep.new(rules, HEUR4, 0, 0, deal={"rounds": deal["rounds"][:3]})


@pytest.mark.parametrize("rules,policies", [(LobaRules(claims=True), ["heuristic", "random", "heuristic", "learned"]),
                                            (ContinentalRules(), ["heuristic", "random", "heuristic", "learned"])])
def test_resample_keeps_what_the_seat_sees(rules, policies):
    rnd = random.Random(5)
    rng = np.random.default_rng(5)
    states = random_states(rules, policies, 21, 1, 7, rnd)
    assert len(states) > 60
    changed = 0
    deck = Counter(int(c) for c in make_deck(rules.deck_jokers()))
    for g in states:
        q = g.to_move()
        before_pol = g.policy_action() if policies[q] == "heuristic" else None
        for seat in {q, (q + 1) % g.players}:
            obs = g.observation(seat)
            key = g.information_key(seat)
            vec = g.observation_vector(seat)
            for _ in range(2):
                w = g.resample(seat, rng)
                assert w.observation(seat) == obs
                assert w.information_key(seat) == key
                assert np.array_equal(w.observation_vector(seat), vec)
                assert card_count(w) == deck
                if seat == q:
                    assert w.legal_actions() == g.legal_actions()
                    if before_pol is not None:
                        assert w.policy_action() == before_pol
                other = (seat + 1) % g.players
                changed += g._hand(other) != w._hand(other)
        assert g.policy_action() == before_pol or before_pol is None  # the original is untouched
    assert changed > 0


@pytest.mark.parametrize("rules,policies", [
    (LobaRules(claims=True), RAND4),
    (LobaRules(players=3, claims=True, contracts=("1T1E", "3E")), ["random", "heuristic", "random"]),
    (ContinentalRules(), RAND4),
    (ContinentalRules(players=3, claims=False, joker_swap=True), ["heuristic", "random", "random"]),
])
def test_every_legal_action_applies(rules, policies):
    rnd = random.Random(11)
    deck = Counter(int(c) for c in make_deck(rules.deck_jokers()))
    kinds = Counter()
    for g in random_states(rules, policies, 3, 1, 5, rnd):
        legal = g.legal_actions()
        assert legal == sorted(set(legal)) and legal and all(0 <= a < NUM_ACTIONS for a in legal)
        kinds[g.decision_kind()] += 1
        obs = g.observation(g.to_move())
        assert obs["legal_actions"] == legal
        json.dumps(obs)
        assert g.observation_vector(g.to_move()).shape == (g.obs_size,)
        for a in legal:
            assert g.action_text(a)
            h = g.clone()
            h.apply(a)
            if not h.done():
                assert card_count(h) == deck
                assert h.legal_actions()
        assert card_count(g) == deck  # the clones left the original alone
    assert {"take", "discard", "laydown", "layoff"} <= set(kinds)


def test_action_texts_and_observation():
    rules = LobaRules(claims=True)
    g = RummyStep.new(rules, HEUR4, 2, 0)
    assert g.decision_kind() == "take"
    assert g.action_text(0) == "take stock"
    assert g.action_text(1).startswith("take pile ")
    obs = g.observation(g.to_move())
    assert obs["round"] == 1 and obs["contract"] and len(obs["hand"]) == obs["hand_sizes"][g.to_move()]
    assert obs["legal_actions"] == [0, 1]
    other = (g.to_move() + 1) % 4
    assert g.observation(other)["legal_actions"] == []
    hist = g.observation(other)["history"]
    assert any(line.startswith(f"deal seat {g.to_move()}: ") and line.endswith(" cards") for line in hist)
    assert sum(n for _, n in RummyStep.observation_layout(rules)) == g.obs_size
