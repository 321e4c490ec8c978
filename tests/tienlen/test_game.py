"""Tiến Lên game kernel: exact agreement with the reference engine, per-game invariants
checked on the kernel's own move log, determinism, replay and policy strength."""
import math

import numba
import numpy as np
import pytest

from references import tienlen as ref
from cardsim.simcore.tienlen.log import LOG_DEAL, LOG_DECLINE, LOG_INSTANT, LOG_LEAD, LOG_OUT, LOG_PASS, LOG_PLAY
from cardsim.simcore.tienlen.play import instant_flags, play_chunk, play_hands, play_logged
from cardsim.simcore.tienlen.replay import replay_game
from cardsim.simcore.tienlen.rules import INSTANT_WIN_KINDS, TienLenRules

CONFIGS = [
    ({}, "random"),
    ({"players": 3, "cards_per_player": 17, "chop_rules": "southern", "bombs_after_pass": "all",
      "scoring": "per_card"}, "random"),
    ({"players": 2, "pass_resets": True, "three_spades_alone": True, "scoring": "4-3-2-1"}, "random"),
    ({"bombs_after_pass": "four_pairs", "instant_wins": "all"}, "random"),
    ({"players": 2, "cards_per_player": 20, "instant_wins": "none", "chop_rules": "southern"}, "random"),
    ({"players": 2, "cards_per_player": 24, "instant_wins": "none", "chop_length": "exact"}, "random"),
    ({"players": 3, "pass_resets": True, "bombs_after_pass": "all", "chop_rules": "southern"}, "random"),
]


def rules_of(settings):
    return TienLenRules.from_settings(settings)


@pytest.mark.parametrize("settings,policy", CONFIGS)
def test_random_games_equal_reference_engine(settings, policy):
    rules = rules_of(settings)
    K, n = 3, 90
    cols, log, nlog = play_logged(11, 0, n, rules, policy, K)
    for m0 in range(0, n, K):
        for j, g in enumerate(ref.play_match(11, m0, K, rules)):
            i = m0 + j
            assert [int(cols[f"place_{s}"][i]) for s in range(rules.players)] == g["places"]
            assert [int(cols[f"points_{s}"][i]) for s in range(rules.players)] == g["points"]
            assert int(cols["leader"][i]) == g["leader"]
            assert (int(cols["instant_winner"][i]), int(cols["instant_kind"][i])) == g["instant"]
            moves = [(int(s), int(m)) for k, s, m, *_ in log[i, :nlog[i]] if k in (LOG_PLAY, LOG_PASS)]
            assert moves == [x for x in g["log"] if x[0] != "lead"]


def check_game(rules, row, log, first_game, stats):
    """Replay one game's log with the reference checker; assert every invariant."""
    P = rules.players
    resets = rules.pass_resets
    hands = {}
    pos = 0
    while pos < len(log) and log[pos][0] == LOG_DEAL:
        hands[int(log[pos][1])] = int(log[pos][2])
        pos += 1
    dealt = dict(hands)
    assert sorted(hands) == list(range(P))
    assert all(bin(h).count("1") == rules.cards_per_player for h in hands.values())
    union = 0
    for h in hands.values():
        assert union & h == 0
        union |= h
    lowest = ref.cards(union)[0]  # lowest dealt card
    # designated leader and the instant-win check
    leader = next(s for s in range(P) if hands[s] >> lowest & 1) if first_game else None
    if first_game:
        assert row["leader"] == leader
    assert row["three_spades_seat"] == next((s for s in range(P) if hands[s] & 1), -1)
    lead_seat = row["leader"]
    flags = instant_flags([hands[s] for s in range(P)])
    expected = (-1, -1)
    for kind, name in enumerate(INSTANT_WIN_KINDS):
        if name in rules.instant_wins:
            seats = [(lead_seat + k) % P for k in range(P) if flags[(lead_seat + k) % P] >> kind & 1]
            if seats:
                expected = (seats[0], kind)
                break
    assert (row["instant_winner"], row["instant_kind"]) == expected
    places = [row[f"place_{s}"] for s in range(P)]
    assert sorted(places) == list(range(1, P + 1))
    assert row["winner"] == places.index(1)
    plays = [0] * P
    passes = [0] * P
    bombs = [0] * P
    chops = [0] * P
    twos_chopped = [0] * P
    tricks = 0
    out_order = []
    required = lowest if first_game else -1
    if expected[0] >= 0:
        assert log[pos][0] == LOG_INSTANT and pos + 1 == len(log)
        w = expected[0]
        others = sorted((s for s in range(P) if s != w),
                        key=lambda s: (bin(hands[s]).count("1"), (s - w) % P))
        assert places[w] == 1 and [places[s] for s in others] == list(range(2, P + 1))
        stats["instant"] += 1
    else:
        table = None
        last = None
        passed = set()
        since_play = set()
        table_mask = 0
        actor = None
        for kind, seat, mask, cls, chopped, _ in log[pos:]:
            seat, mask, kind = int(seat), int(mask), int(kind)
            if kind == LOG_LEAD:
                if last is None:
                    assert seat == lead_seat
                else:  # every other player still holding cards passed since the last play
                    others = {s for s in range(P) if hands[s] and s != last}
                    assert others <= (since_play if resets else passed | since_play)
                    want = last
                    while not hands[want]:
                        want = (want + 1) % P
                    assert seat == want
                    if not hands[last]:
                        stats["lead_after_out"] += 1
                tricks += 1
                table, passed, since_play, actor = None, set(), set(), seat
                continue
            if kind == LOG_OUT:
                assert hands[seat] == 0 and mask == len(out_order) + 1
                out_order.append(seat)
                continue
            # turn order: the leader acts first; seats skipped since the previous action
            # hold no cards or passed (pass final)
            if table is None:
                assert seat == actor
            else:
                s = (actor + 1) % P
                while s != seat:
                    assert not hands[s] or (s in passed and not resets), (s, seat)
                    s = (s + 1) % P
            actor = seat
            is_passed = seat in passed and not resets
            if kind == LOG_DECLINE:  # a passed seat offered a bomb that beats the table passes again
                assert is_passed and table is not None and rules.bombs_after_pass != "none"
                assert any(ref.is_bomb(ref.combo(m)[0]) for m in ref.legal_moves(
                    hands[seat], table, chop_rules=rules.chop_rules, chop_length=rules.chop_length, passed=True,
                    bombs_after_pass=rules.bombs_after_pass))
                stats["declined"] = stats.get("declined", 0) + 1
                continue
            if kind == LOG_PASS:
                assert table is not None  # a leader never passes
                if is_passed:
                    assert rules.bombs_after_pass != "none"
                passes[seat] += 1
                passed.add(seat)
                since_play.add(seat)
                continue
            assert kind == LOG_PLAY
            assert ref.is_legal(hands[seat], mask, table, chop_rules=rules.chop_rules,
                                chop_length=rules.chop_length, passed=is_passed,
                                bombs_after_pass=rules.bombs_after_pass, required=required,
                                alone=rules.three_spades_alone)
            if required >= 0:
                stats["first_leads"] += 1
            if seat in passed:
                stats["played_after_pass"] += 1
            c = ref.combo(mask)
            chop = table is not None and c[0] != table[0]
            assert bool(chopped) == chop and cls == c[0]
            if chop:
                chops[seat] += 1
                if table[1] // 4 == 12 and table[0] < 4:
                    twos_chopped[last] += bin(table_mask).count("1")
            bombs[seat] += ref.is_bomb(c[0])
            plays[seat] += 1
            required = -1
            hands[seat] &= ~mask
            table, table_mask, last = c, mask, seat
            since_play = set()
        assert out_order == sorted(range(P), key=lambda s: places[s])[:P - 1]
        assert [s for s in range(P) if hands[s]] == [places.index(P)]  # only the last holds cards
    # conservation: dealt = played + left
    for s in range(P):
        assert row[f"cards_left_{s}"] == bin(hands[s]).count("1")
        assert hands[s] & ~dealt[s] == 0
    assert sum(row[f"plays_{s}"] for s in range(P)) == row["plays"]
    assert [row[f"plays_{s}"] for s in range(P)] == plays
    assert [row[f"passes_{s}"] for s in range(P)] == passes
    assert [row[f"bombs_played_{s}"] for s in range(P)] == bombs
    assert [row[f"chops_{s}"] for s in range(P)] == chops
    assert [row[f"twos_chopped_{s}"] for s in range(P)] == twos_chopped
    assert row["tricks"] == tricks
    assert [row[f"points_{s}"] for s in range(P)] == ref.points_for(rules, places, [hands[s] for s in range(P)])
    if rules.scoring == "per_card":
        assert sum(row[f"points_{s}"] for s in range(P)) == 0
    for s in range(P):
        assert row[f"twos_dealt_{s}"] == bin(dealt[s] >> 48).count("1")
    stats["chops"] += sum(chops)
    return stats


BATCHES = [
    ({}, "random", 700),
    ({}, ["heuristic", "greedy", "random", "heuristic"], 500),
    ({"players": 3, "cards_per_player": 17, "chop_rules": "southern", "bombs_after_pass": "all",
      "instant_wins": "all", "scoring": "per_card"}, ["random", "heuristic", "greedy"], 600),
    ({"players": 2, "pass_resets": True, "three_spades_alone": True}, ["heuristic", "random"], 500),
    ({"players": 4, "cards_per_player": 10, "bombs_after_pass": "four_pairs", "pass_resets": True,
      "scoring": "4-3-2-1"}, "heuristic", 500),
    # edge sizes: huge hands (tens of thousands of legal leads), one card each
    ({"players": 2, "cards_per_player": 26, "instant_wins": "none", "scoring": "per_card"},
     ["random", "heuristic"], 120),
    ({"players": 4, "cards_per_player": 1, "chop_rules": "southern"}, ["greedy", "random", "heuristic", "random"], 200),
    ({"players": 3, "cards_per_player": 6, "bombs_after_pass": "all", "pass_resets": True},
     ["random", "random", "heuristic"], 300),
    # search seats: every decision type (lead, follow or pass, a passed player's bomb)
    ({"players": 3, "cards_per_player": 17, "chop_rules": "southern", "bombs_after_pass": "all",
      "scoring": "per_card"}, ["search:8", "heuristic", "random"], 100),
    ({"pass_resets": True, "bombs_after_pass": "four_pairs"}, ["search:8", "search:4", "heuristic", "random"], 80),
]


@pytest.mark.parametrize("settings,policies,n", BATCHES)
def test_invariants_on_every_game(settings, policies, n):
    rules = rules_of(settings)
    K = 4
    cols, log, nlog = play_logged(5, 0, n, rules, policies, K)
    names = list(cols)
    stats = dict(instant=0, lead_after_out=0, first_leads=0, played_after_pass=0, chops=0)
    for i in range(n):
        row = {k: int(cols[k][i]) for k in names}
        check_game(rules, row, [tuple(x) for x in log[i, :nlog[i]]], i % K == 0, stats)
    if rules.players > 2:  # the "last player went out" lead rule was exercised
        assert stats["lead_after_out"] > 0
    assert stats["first_leads"] > 0
    if rules.pass_resets and rules.players > 2:  # (2 players: a pass ends the trick)
        assert stats["played_after_pass"] > 0
    if rules.bombs_after_pass == "all":
        assert stats["played_after_pass"] > 0
    elif not rules.pass_resets:
        assert stats["played_after_pass"] == 0
    # the same games come out of the parallel kernel
    fast = play_chunk(5, 0, n, rules, policies, K)
    for k in names:
        np.testing.assert_array_equal(fast[k], cols[k])


def test_column_names_and_dtypes():
    rules = TienLenRules(players=3, cards_per_player=17)
    cols = play_chunk(1, 0, 10, rules, "random")
    assert cols["game"].dtype == np.int64 and cols["match"].dtype == np.int64
    for k in ("leader", "three_spades_seat", "instant_kind", "instant_winner"):
        assert cols[k].dtype == np.int8
    for s in range(3):
        for k in ("place", "cards_left", "twos_dealt", "bombs_dealt"):
            assert cols[f"{k}_{s}"].dtype == np.int8
        for k in ("points", "plays", "passes", "bombs_played", "chops", "twos_chopped"):
            assert cols[f"{k}_{s}"].dtype == np.int16
    assert cols["winner"].dtype == np.int8
    assert "place_3" not in cols
    assert len(cols) == 2 + 7 + 10 * 3


def test_deterministic_across_chunks_blocks_and_threads():
    rules = TienLenRules()
    pol = ["heuristic", "random", "greedy", "random"]
    K = 3
    whole = play_chunk(99, 0, 900, rules, pol, K, n_blocks=1)
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = play_chunk(99, 0, 900, rules, pol, K)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = play_chunk(99, 0, 900, rules, pol, K, n_blocks=37)
    finally:
        numba.set_num_threads(old)
    parts = [play_chunk(99, a, b, rules, pol, K) for a, b in ((0, 300), (300, 450), (750, 150))]
    for k in whole:
        np.testing.assert_array_equal(whole[k], one[k])
        np.testing.assert_array_equal(whole[k], two[k])
        np.testing.assert_array_equal(whole[k], np.concatenate([p[k] for p in parts]))
    with pytest.raises(ValueError):
        play_chunk(99, 4, 10, rules, pol, K)
    # other seeds / policies give other games
    assert not np.array_equal(whole["place_0"], play_chunk(98, 0, 900, rules, pol, K)["place_0"])


def test_replay_matches_chunk_row():
    rules = TienLenRules(scoring="per_card")
    pol = ["heuristic", "random", "greedy", "random"]
    K = 5
    cols = play_chunk(3, 0, 40, rules, pol, K)
    for i in (0, 7, 14, 38):
        lines = replay_game(3, i, rules, pol, K)
        places = ", ".join(f"seat {s}: {cols[f'place_{s}'][i]}" for s in range(4))
        points = ", ".join(f"seat {s}: {cols[f'points_{s}'][i]}" for s in range(4))
        assert f"places: {places}" in lines and f"points: {points}" in lines
        n_moves = sum(1 for ln in lines if ln.startswith("seat ") and ":" in ln and "is out" not in ln)
        total = sum(int(cols[f"plays_{s}"][i]) + int(cols[f"passes_{s}"][i]) for s in range(4))
        assert n_moves == total
        assert sum(ln.startswith("deal seat") for ln in lines) == 4
        assert any("♠" in ln or "♥" in ln for ln in lines)


def win_rate_z(rules, hero, villain, n_per_seat, seed):
    """One ``hero`` seat against ``villain`` seats, rotating the hero over all seats."""
    P = rules.players
    wins = 0
    for seat in range(P):
        pol = [villain] * P
        pol[seat] = hero
        cols = play_chunk(seed + seat, 0, n_per_seat, rules, pol)
        wins += int((cols[f"place_{seat}"] == 1).sum())
    n = n_per_seat * P
    p0 = 1.0 / P
    return wins / n, (wins / n - p0) / math.sqrt(p0 * (1 - p0) / n)


def test_heuristic_beats_greedy_and_random():
    rules = TienLenRules()
    rate, z = win_rate_z(rules, "heuristic", "greedy", 1500, 1000)
    assert z > 4, (rate, z)
    rate, z = win_rate_z(rules, "heuristic", "random", 1500, 2000)
    assert z > 4, (rate, z)
    rate, z = win_rate_z(rules, "greedy", "heuristic", 1500, 3000)
    assert z < -4, (rate, z)


# --- hand-built games (play_hands plays given hands through the same kernel) -------

def first_play(lines):
    return next(ln for ln in lines if ln.startswith("seat ") and "pass" not in ln)


def test_lead_passes_to_next_holder_when_last_player_went_out():
    rules = TienLenRules()
    row, lines = play_hands(["3S 5S 9H", "4S 2H", "6S 7S 8D", "10S JC"], rules, "greedy")
    i = lines.index("seat 1 is out (place 1)")
    assert lines[i + 1:i + 4] == ["seat 2: pass", "seat 3: pass", "-- trick: seat 2 leads"]
    j = lines.index("seat 3 is out (place 2)")
    assert lines[j + 1:j + 4] == ["seat 0: pass", "seat 2: pass", "-- trick: seat 0 leads"]
    assert [row[f"place_{s}"] for s in range(4)] == [4, 1, 3, 2]
    assert [row[f"points_{s}"] for s in range(4)] == [0, 3, 1, 2]


@pytest.mark.parametrize("resets,bap,chops", [(False, "none", False), (False, "all", True),
                                              (False, "four_pairs", False), (True, "none", True)])
def test_pass_is_final_unless_resets_or_bombs_after_pass(resets, bap, chops):
    rules = TienLenRules(players=3, pass_resets=resets, bombs_after_pass=bap)
    hands = ["JS 2H", "5S 5C 5D 5H", "QS KS"]
    row, lines = play_hands(hands, rules, "greedy", first=False, prev_winner=0)
    assert lines[4:8] == ["seat 0: J♠  [single]", "seat 1: pass", "seat 2: Q♠  [single]",
                          "seat 0: 2♥  [single]"]
    chop_line = "seat 1: 5♠ 5♣ 5♦ 5♥  [four of a kind] (chop)"
    assert (chop_line in lines) == chops
    assert row["chops_1"] == int(chops) and row["twos_chopped_0"] == int(chops)
    assert row["bombs_played_1"] == int(chops)
    if not chops:  # seat 1 is skipped; seat 0 went out, so seat 1 (next holder) leads
        assert lines[lines.index("seat 0 is out (place 1)") + 1:][:2] == ["seat 2: pass",
                                                                          "-- trick: seat 1 leads"]


@pytest.mark.parametrize("alone", [False, True])
def test_first_lead_contains_lowest_card(alone):
    rules = TienLenRules(three_spades_alone=alone)
    hands = ["JS QD 2C", "3S 4D 5C 9H", "6S 6D 7C", "8S 10H KD"]
    row, lines = play_hands(hands, rules, "heuristic")
    assert row["leader"] == 1 and row["three_spades_seat"] == 1
    assert first_play(lines) == ("seat 1: 3♠  [single]" if alone else "seat 1: 3♠ 4♦ 5♣  [sequence of 3]")
    # not a match's first game: the previous winner leads anything
    row, lines = play_hands(hands, rules, "greedy", first=False, prev_winner=2)
    assert row["leader"] == 2 and first_play(lines) == "seat 2: 6♠  [single]"
    # 3♠ not dealt: the lowest dealt card leads
    row, lines = play_hands(["5S 9D", "4C 4H", "6S 8H"], TienLenRules(players=3), "greedy")
    assert row["leader"] == 1 and row["three_spades_seat"] == -1
    assert first_play(lines) == "seat 1: 4♣  [single]"


def test_instant_win_priority_ties_and_ranking():
    dragon = "3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2S"
    four_twos = "3C 4C 5C 6C 7C 8C 9C 10C 2C 2D 2H"  # 2S is in the dragon hand
    rules = TienLenRules(instant_wins=("dragon", "four_twos"))
    hands = ["3D 4D 5D", four_twos.replace("2C 2D 2H", "2C 2D 2H JC"), dragon, "3H 4H"]
    # seat 1 lacks the 2S, so only the dragon qualifies
    row, lines = play_hands(hands, rules, "random")
    assert (row["instant_winner"], row["instant_kind"]) == (2, 0)
    # others ranked by cards left (fewest first), ties by play order after the winner
    assert [row[f"place_{s}"] for s in range(4)] == [3, 4, 1, 2]
    assert "instant win: seat 2 (dragon)" in lines
    # priority: dragon beats four 2s even later in play order
    hands = ["3D 4D 5D 6D", "2S 2C 2D 2H 3C", "3S 4S 5H 6S 7S 8S 9S 10S JS QS KS AS", "4H"]
    row, _ = play_hands(hands, rules, "random")
    assert (row["instant_winner"], row["instant_kind"]) == (2, 0)
    row, _ = play_hands(hands, TienLenRules(instant_wins=("four_twos",)), "random")
    assert (row["instant_winner"], row["instant_kind"]) == (1, 1)
    assert [row[f"place_{s}"] for s in range(4)] == [3, 1, 4, 2]
    # equal kinds: the earlier seat in play order from the leader (holder of the 3S) wins
    six_a = "4S 4C 5S 5C 7S 7C 8S 8C 10S 10C QS QC"
    six_b = "4D 4H 5D 5H 7D 7H 8D 8H 10D 10H QD QH"
    rules = TienLenRules(instant_wins=("six_pairs",), scoring="per_card")
    row, _ = play_hands(["3C", six_a, "3S 9C", six_b], rules, "random")
    assert (row["instant_winner"], row["instant_kind"]) == (3, 3)
    assert [row[f"place_{s}"] for s in range(4)] == [2, 4, 3, 1]
    assert [row[f"points_{s}"] for s in range(4)] == [-1, -12, -2, 15]


def test_match_winner_leads_next_game():
    rules = TienLenRules()
    K = 4
    cols = play_chunk(21, 0, 400, rules, "heuristic", K)
    for i in range(400):
        if i % K:
            prev_winner = next(s for s in range(4) if cols[f"place_{s}"][i - 1] == 1)
            assert cols["leader"][i] == prev_winner
