"""Tứ Sắc search policy: it never peeks, it is reproducible, it covers every decision
kind, and it beats the heuristic."""
from __future__ import annotations

import math

import numba
import numpy as np
import pytest

from cardsim.simcore.tusac import engine as E
from cardsim.simcore.tusac.log import LOG_DISCARD, LOG_TAKE, TAKE_DRAW, TAKE_EAT, TAKE_STEAL
from cardsim.simcore.tusac.play import decision_state, play_chunk, play_logged, search_decision
from cardsim.simcore.tusac.rules import TuSacRules

SEARCH_FIRST = ["search:16", "heuristic", "heuristic", "heuristic"]


def decision_states(rules, policies, games, per_game):
    """States at the first ``per_game`` decisions of the search seats of ``games`` games."""
    out = []
    for index in range(games):
        for nth in range(per_game):
            state = decision_state(7, index, rules, policies, nth)
            if state is None:
                break
            out.append(state)
    return out


def permute_hidden(state, players, rng):
    """The same state for the deciding seat with the opponents' hidden cards and the stock
    dealt again at random (same counts): everything the seat cannot see is permuted."""
    cur = state["cur"]
    d = int(cur[E.C_WHO])
    hands = state["hands"].copy()
    deck = state["deck"].copy()
    lo = E.stock_start(players)
    n_stock = int(cur[E.C_NSTOCK])
    pool = list(deck[lo:lo + n_stock])
    counts = {}
    for o in range(players):
        if o != d:
            counts[o] = int(hands[o].sum())
            pool += [t for t in range(28) for _ in range(int(hands[o, t]))]
    pool = rng.permutation(np.array(pool, np.uint8))
    pos = 0
    for o, n in counts.items():
        hands[o] = np.bincount(pool[pos:pos + n], minlength=28).astype(np.int8)
        pos += n
    deck[lo:lo + n_stock] = pool[pos:]
    return dict(state, hands=hands, deck=deck)


@pytest.mark.parametrize("settings", [{}, {"priority": "taiwanese", "players": 3}])
def test_search_never_peeks_at_hidden_cards(settings):
    rules = TuSacRules.from_settings(settings)
    policies = ["search:16"] + ["heuristic"] * (rules.players - 1)
    rng = np.random.default_rng(5)
    states = decision_states(rules, policies, games=6, per_game=8)
    assert len(states) >= 30
    kinds = set()
    moved = 0
    for state in states:
        kinds.add((int(state["cur"][E.C_PHASE]), int(state["cur"][E.C_LEVEL])))
        choice = search_decision(rules, state, 16)
        for _ in range(3):
            other = permute_hidden(state, rules.players, rng)
            moved += not np.array_equal(other["hands"], state["hands"])
            assert search_decision(rules, other, 16) == choice
    assert moved > len(states)  # the permutations really changed the opponents' hands
    assert (E.PH_DISCARD, 0) in {(p, 0 if p == E.PH_DISCARD else lv) for p, lv in kinds}
    assert any(p == E.PH_CLAIM for p, _ in kinds)


def test_the_unseen_cards_are_exactly_the_opponents_hidden_cards_and_the_stock():
    from cardsim.simcore.tusac.rules import kernel_params
    from cardsim.simcore.tusac.search import unseen_cards

    for settings in ({}, {"players": 3, "priority": "taiwanese"}):
        rules = TuSacRules.from_settings(settings)
        policies = ["heuristic", "search:8"] + ["heuristic"] * (rules.players - 2)
        states = decision_states(rules, policies, games=3, per_game=6)
        assert states
        for state in states:
            cur = state["cur"]
            d = int(cur[E.C_WHO])
            out = np.zeros(112, np.int64)
            m = unseen_cards(kernel_params(rules), d, cur, state["hands"], state["table"], state["discards"], out)
            lo = E.stock_start(rules.players)
            hidden = np.bincount(state["deck"][lo:lo + int(cur[E.C_NSTOCK])], minlength=28)
            for o in range(rules.players):
                if o != d:
                    hidden += state["hands"][o].astype(np.int64)
            assert (np.bincount(out[:m], minlength=28) == hidden).all()


def test_search_decision_depends_on_its_stream():
    rules = TuSacRules()
    states = decision_states(rules, SEARCH_FIRST, games=4, per_game=6)
    after = {search_decision(rules, s, 16)[1] for s in states}
    assert len(after) == len(states)  # the search stream advances differently per decision
    # a different search stream can change a choice: the choice is a function of the stream
    changed = 0
    for s in states:
        base = search_decision(rules, s, 16)[0]
        for k in range(4):
            changed += search_decision(rules, dict(s, search_state=np.uint64(1000 + k)), 16)[0] != base
    assert changed > 0


def test_search_games_are_reproducible_across_chunks_and_threads():
    rules = TuSacRules()
    pol = ["search:8", "random", "heuristic", "search:4"]
    full = play_chunk(5, 100, 60, rules, pol)
    parts = [play_chunk(5, 100 + a, b - a, rules, pol, n_blocks=nb) for a, b, nb in ((0, 1, 1), (1, 25, 7), (25, 60, 3))]
    for k in full:
        assert (np.concatenate([p[k] for p in parts]) == full[k]).all(), k
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = play_chunk(5, 100, 60, rules, pol, n_blocks=5)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = play_chunk(5, 100, 60, rules, pol, n_blocks=60)
    finally:
        numba.set_num_threads(threads)
    for k in full:
        assert (one[k] == full[k]).all() and (two[k] == full[k]).all(), k


def test_search_does_not_shift_the_games_own_stream():
    """The deal and the mulligans are the same whatever the policies (the search draws
    from its own stream)."""
    rules = TuSacRules()
    a = play_chunk(9, 0, 40, rules, SEARCH_FIRST)
    b = play_chunk(9, 0, 40, rules, "heuristic")
    for k in ("mulligans", "dealt_triples_0", "dealt_quads_2"):
        assert (a[k] == b[k]).all()
    assert (a["winner"] != b["winner"]).any()


def test_search_takes_every_kind_of_decision():
    """Search seats eat, take drawn cards, steal and discard (logged games)."""
    rules = TuSacRules()
    pol = ["search:8"] * 4
    cols, log, nlog, fin = play_logged(3, 0, 30, rules, pol)
    hows = set()
    discards = 0
    for i in range(30):
        for kind, seat, a, b, c, _ in log[i, :nlog[i]]:
            if kind == LOG_TAKE:
                hows.add(int(b))
            discards += kind == LOG_DISCARD
        total = fin[i, :4].sum(0).astype(int) + fin[i, 4:8].sum(0) + fin[i, 8] + fin[i, 9]
        assert (total == 4).all()
    assert hows == {TAKE_DRAW, TAKE_EAT, TAKE_STEAL} and discards > 0


def paired_win_z(search_cols, base_cols, seat):
    """Win-rate gain of ``seat`` on common deals and its z (paired differences)."""
    diff = (search_cols["winner"] == seat).astype(float) - (base_cols["winner"] == seat).astype(float)
    se = diff.std(ddof=1) / math.sqrt(len(diff))
    return diff.mean(), diff.mean() / se


def test_search_beats_the_heuristic_and_a_bigger_budget_beats_a_smaller_one():
    """Seat 0 plays search:8 / search:64 against heuristics on the deals of all-heuristic
    games: paired win-rate differences on common deals."""
    rules = TuSacRules()
    n = 2400
    base = play_chunk(41, 0, n, rules, "heuristic")
    small = play_chunk(41, 0, n, rules, ["search:8", "heuristic", "heuristic", "heuristic"])
    cols = play_chunk(41, 0, n, rules, ["search:64", "heuristic", "heuristic", "heuristic"])
    gain, z = paired_win_z(cols, base, 0)
    assert z > 4, (gain, z)
    gain, z = paired_win_z(cols, small, 0)
    assert z > 4, (gain, z)


def test_runs_with_a_search_seat_use_small_chunks():
    from cardsim.simcore.tusac.tasks import PLAY, SEARCH_CHUNK_GAMES

    rules = TuSacRules()
    searching = PLAY.parse_options(rules, {"policy": "0=search"})
    assert searching["policies"][0] == "search:64"
    assert PLAY.default_chunk_size(searching) == SEARCH_CHUNK_GAMES
    assert PLAY.default_chunk_size(PLAY.parse_options(rules, {})) == PLAY.chunk_games
