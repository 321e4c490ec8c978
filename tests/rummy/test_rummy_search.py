"""Loba / Continental search policy: it never peeks, its sampler deals exactly the unseen cards,
it is reproducible, it covers every decision kind."""
from __future__ import annotations

from collections import Counter

import numba
import numpy as np
import pytest

from cardsim.simcore.rummy import search as SR
from cardsim.simcore.rummy import state as S
from cardsim.simcore.rummy.cards import hand_planes, planes_cards
from cardsim.simcore.rummy.play import decision_state, play_chunk, search_decision
from cardsim.simcore.rummy.rules import ContinentalRules, LobaRules

RULES = [LobaRules(claims=True), ContinentalRules()]
BUDGET = 8


def decision_states(rules, policies, games, per_round, rounds=(0, 1, 2)):
    out = []
    for index in range(games):
        for r in rounds:
            for nth in range(0, per_round * 4, 4):  # every fourth decision: spread over the round
                ds = decision_state(11, index, r, rules, policies, nth)
                if ds is None:
                    break
                out.append(ds)
    return out


def hidden_of(st, me):
    """Cards seat ``me`` cannot see: each opponent's hand minus its known cards, and the stock."""
    h1, h2, hj, seen, deck, sv = st[0], st[1], st[2], st[4], st[10], st[11]
    per_seat = {}
    for q in range(len(h1)):
        if q == me:
            continue
        hand = Counter(planes_cards(int(h1[q]), int(h2[q]), int(hj[q])))
        hand.subtract({c: int(seen[q, c]) for c in range(53)})
        assert min(hand.values(), default=0) >= 0  # known cards are really held
        per_seat[q] = hand
    stock = [int(c) for c in deck[int(sv[S.V_SP]):]]
    return per_seat, stock


def permute_hidden(ds, rng):
    """The same decision for the deciding seat with the opponents' unknown cards and the stock
    dealt again at random (same counts, known cards kept where they are)."""
    st = tuple(a.copy() for a in ds["st"])
    me = ds["seat"]
    per_seat, stock = hidden_of(st, me)
    pool = list(stock)
    for hand in per_seat.values():
        pool += list(hand.elements())
    pool = [int(c) for c in rng.permutation(np.array(pool, np.int64))]
    pos = 0
    for q, hand in per_seat.items():
        n = sum(hand.values())
        cards = pool[pos:pos + n] + [c for c in range(53) for _ in range(int(st[4][q, c]))]
        pos += n
        a1, a2, j = hand_planes(cards)
        st[0][q], st[1][q], st[2][q] = np.uint64(a1), np.uint64(a2), j
        st[3][S.F_DIST, q] = rng.integers(0, 6)  # the opponents' private memory is not information either
    st[10][int(st[11][S.V_SP]):] = pool[pos:]
    return dict(ds, st=st)


@pytest.mark.parametrize("rules", RULES, ids=["loba_buys", "continental"])
def test_search_never_peeks_at_hidden_cards(rules):
    policies = [f"search:{BUDGET}"] + ["heuristic"] * (rules.players - 1)
    rng = np.random.default_rng(3)
    states = decision_states(rules, policies, games=3, per_round=8)
    assert len(states) >= 40
    phases = Counter()
    moved = 0
    for ds in states:
        choice = search_decision(rules, ds, BUDGET)
        phases[int(ds["st"][11][S.V_PHASE])] += 1
        for _ in range(2):
            other = permute_hidden(ds, rng)
            moved += not all(np.array_equal(a, b) for a, b in zip(other["st"][:3], ds["st"][:3]))
            assert search_decision(rules, other, BUDGET) == choice
    assert moved > len(states)  # the permutations really changed the hidden cards
    assert {S.PH_TAKE, S.PH_LAYDOWN, S.PH_LAYOFF, S.PH_DISCARD} <= set(phases)
    assert phases[S.PH_CLAIM] > 0


@pytest.mark.parametrize("rules", RULES, ids=["loba_buys", "continental"])
def test_unseen_pool_is_exactly_the_hidden_cards(rules):
    policies = [f"search:{BUDGET}"] + ["heuristic"] * (rules.players - 1)
    for ds in decision_states(rules, policies, games=2, per_round=4):
        st, me = ds["st"], ds["seat"]
        per_seat, stock = hidden_of(st, me)
        want = Counter(stock)
        for hand in per_seat.values():
            want.update(hand)
        pool = SR.unseen_pool(st, np.int64(me), _prm(rules))
        assert {c: int(n) for c, n in enumerate(pool) if n} == {c: n for c, n in want.items() if n}


@pytest.mark.parametrize("rules", RULES, ids=["loba_buys", "continental"])
def test_sampled_worlds_redeal_exactly_the_hidden_cards(rules):
    """A world keeps everything the seat sees (its hand, the table, the pile, each opponent's card
    count and known cards) and deals the hidden cards again: the same multiset, moved."""
    policies = [f"search:{BUDGET}"] + ["heuristic"] * (rules.players - 1)
    prm = _prm(rules)
    mp = tuple(int(x) for x in rules.meld_params())
    moved = 0
    states = decision_states(rules, policies, games=2, per_round=4, rounds=(0, 2, 5))
    assert len(states) >= 20
    for ds in states:
        st, me = ds["st"], ds["seat"]
        world = S.new_state(rules.players, st[10].shape[0])
        SR.sample_world(st, np.int64(me), prm, mp, world, np.uint64(ds["search_state"]))
        want_seats, want_stock = hidden_of(st, me)
        got_seats, got_stock = hidden_of(world, me)
        want = Counter(want_stock)
        got = Counter(got_stock)
        for q in want_seats:
            assert sum(got_seats[q].values()) == sum(want_seats[q].values())
            want.update(want_seats[q])
            got.update(got_seats[q])
        assert +got == +want
        assert (world[0][me], world[1][me], world[2][me]) == (st[0][me], st[1][me], st[2][me])
        for f in (4, 5, 6, 7, 9, 11):  # known cards, table melds, pile, scalars
            np.testing.assert_array_equal(world[f], st[f])
        moved += any(+got_seats[q] != +want_seats[q] for q in want_seats)
    assert moved > len(states) // 2


@pytest.mark.parametrize("rules", RULES, ids=["loba_buys", "continental"])
def test_sampled_worlds_carry_exact_distance_memories(rules):
    """Every seat not down enters a world's rollouts with its true contract distance (the
    heuristic's memory): the sampler reuses the distance its dealing computed (Loba's replayed
    turns, Continental's best of a few hands) instead of searching again; a wrong reuse would
    change the rollouts' play."""
    from cardsim.simcore.rummy.engine import distance
    from cardsim.simcore.rummy.policies import HEUR_CAP

    policies = [f"search:{BUDGET}"] + ["heuristic"] * (rules.players - 1)
    prm = _prm(rules)
    mp = tuple(int(x) for x in rules.meld_params())
    checked = 0
    for ds in decision_states(rules, policies, games=2, per_round=4, rounds=(0, 2, 5)):
        st, me = ds["st"], ds["seat"]
        world = S.new_state(rules.players, st[10].shape[0])
        sstate = np.uint64(ds["search_state"])
        for _ in range(3):
            sstate = np.uint64(SR.sample_world(st, np.int64(me), prm, mp, world, sstate))
            sv = world[11]
            for q in range(rules.players):
                if world[3][S.F_DOWN, q]:
                    continue
                want = distance(world[0][q], world[1][q], world[2][q], sv[S.V_K], sv[S.V_M], mp, HEUR_CAP)
                assert world[3][S.F_DIST, q] == want
                checked += 1
    assert checked >= 100


def _prm(rules):
    from cardsim.simcore.rummy.state import kernel_params
    return kernel_params(rules)


def test_search_decisions_use_the_search_stream():
    rules = ContinentalRules()
    policies = ["search:8", "heuristic", "heuristic", "heuristic"]
    states = decision_states(rules, policies, games=2, per_round=4)
    after = [search_decision(rules, ds, 8)[1] for ds in states]
    searched = [a for a, ds in zip(after, states) if a != ds["search_state"]]
    assert len(searched) >= len(states) // 2 and len(set(searched)) == len(searched)


@pytest.mark.parametrize("rules", RULES, ids=["loba_buys", "continental"])
def test_search_play_is_reproducible_across_chunks_and_threads(rules):
    policies = ["search:4"] + ["heuristic"] * (rules.players - 1)
    seed, n = 8, 4
    whole = play_chunk(seed, 0, n, rules, policies, n_blocks=n)
    one_block = play_chunk(seed, 0, n, rules, policies, n_blocks=1)
    parts = [play_chunk(seed, 0, 1, rules, policies), play_chunk(seed, 1, 3, rules, policies)]
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        serial = play_chunk(seed, 0, n, rules, policies, n_blocks=n)
    finally:
        numba.set_num_threads(old)
    for table in ("hands", "matches"):
        for col, values in whole[table].items():
            np.testing.assert_array_equal(values, one_block[table][col])
            np.testing.assert_array_equal(values, serial[table][col])
            np.testing.assert_array_equal(values, np.concatenate([p[table][col] for p in parts]))


def test_runs_with_a_search_seat_use_small_chunks():
    from cardsim.simcore.rummy.tasks import CONTINENTAL_PLAY_TASK as PLAY
    from cardsim.simcore.rummy.tasks import SEARCH_CHUNK_GAMES

    rules = ContinentalRules()
    searching = PLAY.parse_options(rules, {"policy": "0=search"})
    assert searching["policies"][0] == "search:64"
    assert PLAY.default_chunk_size(searching) == SEARCH_CHUNK_GAMES
    assert PLAY.default_chunk_size(PLAY.parse_options(rules, {})) == PLAY.chunk_games


@pytest.mark.parametrize("rules", RULES, ids=["loba_buys", "continental"])
def test_racing_only_stops_for_the_heuristics_choice(rules):
    """``search:64`` races its candidates (drops the ones no better than the heuristic's choice
    after a quarter and half of the worlds); ``search-full:64`` rolls every candidate out in
    every world. On the same states: a race that stopped early (fewer worlds drawn from the
    search stream) plays the heuristic's choice; a race never leaves the heuristic's choice
    where the full search keeps it (dropping candidates can only keep it); and racing does stop
    early in many states."""
    from cardsim.simcore.framework.tasks import FULL_FLAG

    policies = ["search:64"] + ["heuristic"] * (rules.players - 1)
    prm = _prm(rules)
    mp = tuple(int(x) for x in rules.meld_params())
    stopped = searched = 0
    for ds in decision_states(rules, policies, games=2, per_round=4):
        cand = np.zeros(SR.MAX_CANDIDATES, np.int64)
        st = tuple(a.copy() for a in ds["st"])
        if SR.candidates(st, np.int64(ds["seat"]), prm, mp, cand) < 2:
            continue
        searched += 1
        race, race_state = search_decision(rules, ds, 64)
        full, full_state = search_decision(rules, ds, 64 | FULL_FLAG)
        if race_state != full_state:  # fewer worlds drawn
            stopped += 1
            assert race == cand[0]
        if full == cand[0]:
            assert race == cand[0]
    assert searched >= 12 and stopped >= searched // 4, (searched, stopped)


def test_search_full_is_a_rummy_policy_only():
    from cardsim.simcore.framework.config import ConfigError
    from cardsim.simcore.framework.tasks import FULL_FLAG, PLAIN_FLAG, canonical_policy, policy_codes, seat_budgets
    from cardsim.simcore.rummy.policies import POL_SEARCH
    from cardsim.simcore.rummy.tasks import RummyPlayTask
    from cardsim.simcore.tienlen.tasks import PlayTask as TienlenPlayTask

    names = RummyPlayTask.policy_names
    assert canonical_policy("search-full", names) == "search-full:64"
    with pytest.raises(ConfigError):
        canonical_policy("search-full:64", TienlenPlayTask.policy_names)
    policies = ["search-full:16", "search:16", "heuristic", "search-plain:8"]
    codes = policy_codes(policies, 4, names)
    budgets = seat_budgets(codes, policies, 4, POL_SEARCH)
    assert list(codes) == [POL_SEARCH, POL_SEARCH, names.index("heuristic"), POL_SEARCH]
    assert list(budgets) == [16 | FULL_FLAG, 16, 0, 8 | PLAIN_FLAG]
