"""Tiến Lên search policy: it never peeks (its decisions nor its opponent models), it is
reproducible, it tells opponent models apart, and it is stronger than the heuristic (and
more so with a bigger budget); ``search-plain`` is the search before the models."""
import math

import numba
import numpy as np
import pytest

from cardsim.simcore.tienlen.engine import ST_FLOOR, ST_NCARDS, ST_PLAYED
from cardsim.simcore.tienlen.play import deal_with_state, play_chunk, play_hands
from cardsim.simcore.tienlen.replay import replay_game
from cardsim.simcore.tienlen.rules import TienLenRules
from cardsim.simcore.tienlen.probes import decide, observe, search_position
from cardsim.simcore.tienlen.search import MAX_CANDIDATES, N_MODELS, OPPONENT_MODELS
from cardsim.simcore.tienlen.policies import POLICIES

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
            st, hands, srng, opp_ll = pos
            move, cls, used = decide(st, hands, rules, 64, srng, opp_ll)
            searched += used > 0
            for _ in range(4):
                other = permuted_opponents(st, hands, 0, P, rng)
                changed_worlds += not np.array_equal(other, hands)
                assert decide(st, other, rules, 64, srng, opp_ll) == (move, cls, used)
    assert searched >= 6 and changed_worlds >= 20


def test_opponent_models_never_peek_at_hidden_cards():
    """The update of the models from an opponent's decision reads the observer's hand
    and the public record only: re-dealing every hidden card (the mover keeping the
    cards it plays) leaves the update unchanged."""
    from cardsim.simcore.tienlen.engine import ST_TURN

    rules = TienLenRules()
    policies = ["search:32", "search:16", "random", "heuristic"]
    rng = np.random.default_rng(11)
    checked = informative = 0
    for index in range(8):
        dealt, _ = deal_with_state(5, index, 4, 13)
        for nth in (0, 1, 3):
            pos = search_position(dealt, rules, policies, 1, nth, search_state=index)
            if pos is None:
                continue
            st, hands, srng, opp_ll = pos  # seat 1 (a search) to move: seat 0 observes it
            assert int(st[ST_TURN]) == 1
            move, cls, _ = decide(st, hands, rules, 16, srng, opp_ll)
            after, s_after = observe(st, hands, rules, policies, move, cls, srng, opp_ll)
            informative += not np.allclose(after[0, 1], opp_ll[0, 1])
            np.testing.assert_array_equal(after[1:], opp_ll[1:])  # seat 1 is the mover; 2, 3 do not search
            for _ in range(3):
                other = permuted_opponents(st, hands, 0, 4, rng)
                # the mover keeps the cards it plays: swap them back in from whoever got them
                seen = int(move)
                other = keep_cards(other, 1, seen, st)
                again, s_again = observe(st, other, rules, policies, move, cls, srng, opp_ll)
                np.testing.assert_array_equal(again, after)
                assert s_again == s_after
                checked += 1
    assert checked >= 30 and informative >= 8


def keep_cards(hands, mover, cards, st):
    """``hands`` with the ``cards`` moved into ``mover``'s hand, swapping cards back so
    that every seat keeps its count."""
    out = [int(h) for h in hands]
    for c in range(52):
        bit = 1 << c
        if cards & bit and not out[mover] & bit:
            holder = next(s for s in range(len(out)) if out[s] & bit)
            spare = next(d for d in range(52) if out[mover] >> d & 1 and not cards >> d & 1)
            out[holder] = (out[holder] & ~bit) | (1 << spare)
            out[mover] = (out[mover] & ~(1 << spare)) | bit
    return np.array(out, np.uint64)


def test_the_search_tells_its_opponents_models_apart():
    """After some turns, the model each opponent really plays has the highest posterior
    much more often than chance (one in three)."""
    rules = TienLenRules()
    truth = {1: "heuristic", 2: "greedy", 3: "random"}
    policies = ["search:8", truth[1], truth[2], truth[3]]
    right = total = 0
    for index in range(40):
        dealt, _ = deal_with_state(17, index, 4, 13)
        pos = search_position(dealt, rules, policies, 0, 3, search_state=index)
        if pos is None:
            continue
        opp_ll = pos[3]
        for o, name in truth.items():
            total += 1
            right += OPPONENT_MODELS[int(np.argmax(opp_ll[0, o]))] == POLICIES.index(name)
    p0 = 1 / N_MODELS
    z = (right / total - p0) / math.sqrt(p0 * (1 - p0) / total)
    assert total >= 90 and z > 4, (right, total)


def test_search_decisions_depend_on_its_own_stream_only():
    rules = TienLenRules()
    dealt, _ = deal_with_state(8, 1, 4, 13)
    pos = search_position(dealt, rules, SEARCH_FIELD, 0, 1, search_state=77)
    st, hands, srng, _ = pos
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
    st, hands, srng, _ = search_position(dealt, rules, ["search:64", "heuristic"], 0, 0)
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


def seat_wins(rules, hero, n_per_seat, seed, field):
    """Per game: whether ``hero`` won, with the hero in every seat of the same deals."""
    P = rules.players
    out = []
    for seat in range(P):
        pol = [field] * P
        pol[seat] = hero
        out.append(play_chunk(seed + seat, 0, n_per_seat, rules, pol)[f"place_{seat}"] == 1)
    return np.concatenate(out).astype(float)


@pytest.mark.parametrize("field", ["greedy", "heuristic"])
def test_fitted_search_beats_the_heuristic_where_the_plain_search_does_not(field):
    """Paired on the same deals: the fitted search wins more than the heuristic against a
    greedy field (the plain search, which models every opponent as the heuristic, does
    not) and against a heuristic field."""
    rules = TienLenRules()
    heur = seat_wins(rules, "heuristic", 300, 70, field)
    diff = seat_wins(rules, "search:64", 300, 70, field) - heur
    z = diff.mean() / (diff.std(ddof=1) / math.sqrt(len(diff)))
    assert z > 4, (diff.mean(), z)
    if field == "greedy":
        plain = seat_wins(rules, "search-plain:64", 300, 70, field) - heur
        assert plain.mean() / (plain.std(ddof=1) / math.sqrt(len(plain))) < 2
