"""Tiến Lên search policy: it never peeks, it is reproducible, and it is stronger than the
heuristic (and more so with a bigger budget)."""
import math

import numba
import numpy as np
import pytest

from cardsim.simcore.tienlen.engine import ST_FLOOR, ST_NCARDS, ST_PLAYED
from cardsim.simcore.tienlen.play import deal_with_state, play_chunk, play_hands
from cardsim.simcore.tienlen.replay import replay_game
from cardsim.simcore.tienlen.rules import TienLenRules
from cardsim.simcore.tienlen.search import MAX_CANDIDATES, decide, search_position

SEARCH_FIELD = ["search:32", "heuristic", "heuristic", "heuristic"]


def permuted_opponents(st, hands, me, players, rng):
    """The opponents' hands dealt again, each keeping its card count, from the cards the
    seat cannot see (not in its hand, not played, not below the match's first lead card,
    which was the lowest dealt): a world the seat cannot tell from the real one."""
    out = hands.copy()
    seen = int(hands[me]) | int(st[ST_PLAYED]) | ((1 << int(st[ST_FLOOR])) - 1)
    cards = [c for c in range(52) if not seen >> c & 1]
    rng.shuffle(cards)
    pos = 0
    for o in range(players):
        if o != me:
            n = int(st[ST_NCARDS + o])
            out[o] = np.uint64(sum(1 << c for c in cards[pos:pos + n]))
            pos += n
    return out


@pytest.mark.parametrize("settings", [{}, {"players": 3, "cards_per_player": 13, "bombs_after_pass": "all"},
                                      {"players": 2, "cards_per_player": 20, "scoring": "per_card"}])
def test_search_never_peeks_at_hidden_cards(settings):
    rules = TienLenRules.from_settings(settings)
    P = rules.players
    policies = SEARCH_FIELD[:P]
    rng = np.random.default_rng(5)
    searched = 0
    changed_worlds = 0
    for index in range(6):
        dealt, _ = deal_with_state(3, index, P, rules.cards_per_player)
        for nth in (0, 2, 4):
            pos = search_position(dealt, rules, policies, 0, nth, search_state=1000 + index)
            if pos is None:
                continue
            st, hands, srng = pos
            move, cls, used = decide(st, hands, rules, 64, srng)
            searched += used > 0
            for _ in range(4):
                other = permuted_opponents(st, hands, 0, P, rng)
                changed_worlds += not np.array_equal(other, hands)
                assert decide(st, other, rules, 64, srng) == (move, cls, used)
    assert searched >= 6 and changed_worlds >= 20


def test_search_decisions_depend_on_its_own_stream_only():
    rules = TienLenRules()
    dealt, _ = deal_with_state(8, 1, 4, 13)
    pos = search_position(dealt, rules, SEARCH_FIELD, 0, 1, search_state=77)
    st, hands, srng = pos
    before = (st.copy(), hands.copy())
    first = decide(st, hands, rules, 64, srng)
    assert decide(st, hands, rules, 64, srng) == first  # same stream, same decision
    np.testing.assert_array_equal(st, before[0])  # the state is left alone
    np.testing.assert_array_equal(hands, before[1])


def test_search_games_are_reproducible_across_threads_and_chunks():
    rules = TienLenRules()
    pol = ["search:16", "random", "heuristic", "search:8"]
    K = 2
    n = 120
    whole = play_chunk(41, 0, n, rules, pol, K, n_blocks=1)
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = play_chunk(41, 0, n, rules, pol, K)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = play_chunk(41, 0, n, rules, pol, K, n_blocks=13)
    finally:
        numba.set_num_threads(old)
    parts = [play_chunk(41, a, b, rules, pol, K) for a, b in ((0, 40), (40, 50), (90, 30))]
    for k in whole:
        np.testing.assert_array_equal(whole[k], one[k])
        np.testing.assert_array_equal(whole[k], two[k])
        np.testing.assert_array_equal(whole[k], np.concatenate([p[k] for p in parts]))
    # the replay plays the same game
    i = 7
    lines = replay_game(41, i, rules, pol, K)
    places = ", ".join(f"seat {s}: {whole[f'place_{s}'][i]}" for s in range(4))
    assert f"places: {places}" in lines


def test_search_seat_leaves_the_deal_unchanged():
    """Common random numbers: the deals do not depend on the seats' policies."""
    rules = TienLenRules()
    a = play_chunk(9, 0, 60, rules, ["search:8", "random", "random", "random"])
    b = play_chunk(9, 0, 60, rules, ["heuristic", "random", "random", "random"])
    for k in ("three_spades_seat", "leader", *(f"twos_dealt_{s}" for s in range(4)),
              *(f"bombs_dealt_{s}" for s in range(4))):
        np.testing.assert_array_equal(a[k], b[k])


def test_forced_decisions_and_going_out_take_no_rollouts():
    rules = TienLenRules(players=2)
    # seat 0 leads 3S and can go out at once with its sequence
    row, lines = play_hands(["3S 4S 5S", "6S 7S 8S 9S"], rules, ["search:64", "heuristic"])
    assert lines[3] == "seat 0: 3♠ 4♠ 5♠  [sequence of 3]" and row["place_0"] == 1


def test_candidates_are_prefiltered_on_big_hands():
    rules = TienLenRules(players=2, cards_per_player=26, instant_wins=())
    dealt, _ = deal_with_state(4, 0, 2, 26)
    st, hands, srng = search_position(dealt, rules, ["search:64", "heuristic"], 0, 0)
    move, cls, used = decide(st, hands, rules, 64, srng)
    assert 64 - (MAX_CANDIDATES + 1) < used <= 64  # at most MAX_CANDIDATES plays (+ pass) share the budget


def win_rate(rules, hero, n_per_seat, seed, field="heuristic"):
    P = rules.players
    wins = 0
    for seat in range(P):
        pol = [field] * P
        pol[seat] = hero
        cols = play_chunk(seed + seat, 0, n_per_seat, rules, pol)
        wins += int((cols[f"place_{seat}"] == 1).sum())
    return wins, n_per_seat * P


def test_search_beats_heuristic_and_more_budget_is_stronger():
    rules = TienLenRules()
    wins, n = win_rate(rules, "search:64", 600, 500)
    p0 = 0.25
    z = (wins / n - p0) / math.sqrt(p0 * (1 - p0) / n)
    assert z > 4, (wins / n, z)
    # a bigger budget beats a smaller one on the same deals
    w_small, n_small = win_rate(rules, "search:8", 500, 900)
    w_big, n_big = win_rate(rules, "search:128", 500, 900)
    p_small, p_big = w_small / n_small, w_big / n_big
    se = math.sqrt(p_small * (1 - p_small) / n_small + p_big * (1 - p_big) / n_big)
    assert (p_big - p_small) / se > 4, (p_small, p_big)


def test_chunks_with_search_seats_are_smaller():
    from cardsim.simcore.tienlen.tasks import PLAY

    plain = PLAY.default_chunk_size({"games_per_match": 1, "policies": ["heuristic"] * 4})
    one = PLAY.default_chunk_size({"games_per_match": 3, "policies": ["search:64"] + ["heuristic"] * 3})
    many = PLAY.default_chunk_size({"games_per_match": 1, "policies": ["search:256"] * 4})
    assert plain > one > many >= 256 and one % 3 == 0
