"""Big Two games on the Tiến Lên engine: every logged move legal by the reference rules, the
first lead, turn order with and without the pass lock-out, the end at the first player out
and the payments."""
import numpy as np
import pytest

from references import bigtwo as ref
from cardsim.simcore.bigtwo.rules import BigTwoRules
from cardsim.simcore.bigtwo.tasks import bigtwo_columns
from cardsim.simcore.tienlen.engine import ST_NCARDS, ST_PLACE, ST_SIZE, seat_points
from cardsim.simcore.tienlen.log import LOG_DEAL, LOG_LEAD, LOG_OUT, LOG_PASS, LOG_PLAY
from cardsim.simcore.tienlen.play import play_chunk, play_logged


def check_game(rules, row, log):
    """Replay one game's move log with the reference rules; returns counters of what happened."""
    P = rules.players
    hands, pos = {}, 0
    while log[pos][0] == LOG_DEAL:
        hands[int(log[pos][1])] = int(log[pos][2])
        pos += 1
    assert sorted(hands) == list(range(P))
    lowest = min(c for h in hands.values() for c in ref.cards(h))
    leader = next(s for s in range(P) if hands[s] >> lowest & 1)
    assert row["leader"] == leader
    assert row["three_diamonds_seat"] == next((s for s in range(P) if hands[s] & 1), -1)
    stats = {"replays_after_pass": 0, "plays": 0, "fives": 0}
    table, last, turn, passed, first_play, out = 0, None, None, set(), True, None
    locks = rules.pass_locks

    def next_turn(t):
        while True:
            t = (t + 1) % P
            if t == last:
                return None  # the trick ends: ``last`` leads
            if locks and t in passed:
                continue
            return t

    for kind, seat, a, *_ in (tuple(int(x) for x in rec) for rec in log[pos:]):
        assert out is None, "nothing happens after the first player is out"
        if kind == LOG_LEAD:
            assert turn is None and seat == (leader if last is None else last)
            table, passed, turn = 0, set(), seat
        elif kind == LOG_PASS:
            assert seat == turn and table != 0, "the leader cannot pass"
            passed.add(seat)
            turn = next_turn(seat)
        elif kind == LOG_PLAY:
            assert seat == turn and a & hands[seat] == a
            play = ref.combo(a, rules.straights, rules.flush_order, rules.four_card_quads)
            assert play is not None, f"{a:#x} is no combination"
            if table:
                assert ref.beats(play, ref.combo(table, rules.straights, rules.flush_order, rules.four_card_quads))
            if first_play:
                assert a >> lowest & 1 and (not rules.three_diamonds_alone or a == 1 << lowest)
                first_play = False
            if seat in passed:
                stats["replays_after_pass"] += 1
            stats["plays"] += 1
            stats["fives"] += bin(a).count("1") == 5
            hands[seat] &= ~a
            table, last = a, seat
            turn = next_turn(seat) if hands[seat] else None
        elif kind == LOG_OUT:
            assert hands[seat] == 0 and a == 1
            out = seat
    assert out is not None and row["winner"] == out and row[f"place_{out}"] == 1
    left = {s: bin(hands[s]).count("1") for s in range(P)}
    order = sorted((s for s in range(P) if s != out), key=lambda s: (left[s], (s - out) % P))
    for place, s in enumerate(order, start=2):
        assert row[f"place_{s}"] == place and row[f"cards_left_{s}"] == left[s]
        assert row[f"points_{s}"] == -ref.payment(left[s], rules.doubling)
    assert row[f"points_{out}"] == sum(ref.payment(left[s], rules.doubling) for s in range(P) if s != out)
    return stats


CASES = [
    ({}, ["random"] * 4, 150),
    ({}, ["heuristic", "greedy", "learned", "random"], 120),
    ({"pass_locks": True, "straights": "wheels", "flush_order": "suit"}, ["random"] * 4, 120),
    ({"three_diamonds_alone": True, "four_card_quads": True, "straights": "twos_high"},
     ["heuristic", "random", "heuristic", "random"], 120),
    ({"players": 3, "cards_per_player": 17, "doubling": False}, ["random", "heuristic", "greedy"], 100),
    ({"players": 2}, ["heuristic", "random"], 100),
]


@pytest.mark.parametrize("settings,policies,n", CASES)
def test_every_logged_move_is_legal(settings, policies, n):
    rules = BigTwoRules(**settings)
    cols, log, nlog = play_logged(5, 0, n, rules, policies)
    cols = bigtwo_columns(cols)
    total = {"replays_after_pass": 0, "plays": 0, "fives": 0}
    for i in range(n):
        row = {k: int(v[i]) for k, v in cols.items()}
        for key, value in check_game(rules, row, log[i, :nlog[i]]).items():
            total[key] += value
    assert total["fives"] > 0  # five-card hands are played
    if rules.pass_locks:
        assert total["replays_after_pass"] == 0
    elif "random" in policies and rules.players > 2:  # (two players: a pass ends the trick)
        assert total["replays_after_pass"] > 0  # a pass does not lock a player out of the trick


def test_search_plays_legally():
    rules = BigTwoRules()
    policies = ["search:8", "heuristic", "random", "heuristic"]
    cols, log, nlog = play_logged(9, 0, 12, rules, policies)
    cols = bigtwo_columns(cols)
    for i in range(12):
        check_game(rules, {k: int(v[i]) for k, v in cols.items()}, log[i, :nlog[i]])


def test_payments():
    """Losers pay one point per card, x2 at 10-12 cards, x3 at 13; the winner gets the total."""
    for doubling, expected in ((True, [68, -39, -20, -9]), (False, [32, -13, -10, -9])):
        prm = BigTwoRules(doubling=doubling).kernel_params()
        st = np.zeros(ST_SIZE, np.int64)
        hands = np.zeros(8, np.uint64)
        for s, (place, left) in enumerate([(1, 0), (4, 13), (3, 10), (2, 9)]):
            st[ST_PLACE + s] = place
            st[ST_NCARDS + s] = left
        assert [int(seat_points(st, hands, prm, s)) for s in range(4)] == expected


def test_points_sum_to_zero_and_the_game_ends_at_the_first_out():
    rules = BigTwoRules()
    cols = play_chunk(3, 0, 400, rules, "heuristic")
    points = np.stack([cols[f"points_{s}"] for s in range(4)])
    assert (points.sum(axis=0) == 0).all()
    left = np.stack([cols[f"cards_left_{s}"] for s in range(4)])
    assert ((left == 0).sum(axis=0) == 1).all()  # exactly one player out
    assert (left.max(axis=0) > 0).all()


def _win_rate(hero, villain, seed, n=600):
    wins = 0
    for seat in range(4):
        policies = [villain] * 4
        policies[seat] = hero
        cols = play_chunk(seed + seat, 0, n, BigTwoRules(), policies)
        wins += int((cols[f"place_{seat}"] == 1).sum())
    return wins / (4 * n)


@pytest.mark.parametrize("villain", ["random", "greedy"])
def test_heuristic_beats_simple_players(villain):
    rate = _win_rate("heuristic", villain, 11)
    assert rate > 0.25 + 4 * (0.25 * 0.75 / 2400) ** 0.5


def test_search_never_peeks_at_hidden_cards():
    """Re-dealing the cards a search seat cannot see (each opponent keeping its count)
    leaves its Big Two decision unchanged."""
    from cardsim.simcore.tienlen.engine import ST_FLOOR, ST_PLAYED
    from cardsim.simcore.tienlen.play import deal_with_state
    from cardsim.simcore.tienlen.probes import decide, search_position

    rules = BigTwoRules()
    policies = ["search:32", "heuristic", "heuristic", "heuristic"]
    rng = np.random.default_rng(5)
    searched = 0
    for index in range(5):
        dealt, _ = deal_with_state(3, index, 4, 13)
        for nth in (0, 2, 4):
            pos = search_position(dealt, rules, policies, 0, nth, search_state=1000 + index)
            if pos is None:
                continue
            st, hands, srng, opp_ll = pos
            move, cls, used = decide(st, hands, rules, 32, srng, opp_ll)
            searched += used > 0
            seen = int(hands[0]) | int(st[ST_PLAYED]) | ((1 << int(st[ST_FLOOR])) - 1)
            for _ in range(3):
                cards = [c for c in range(52) if not seen >> c & 1]
                rng.shuffle(cards)
                other, pos_ = hands.copy(), 0
                for o in (1, 2, 3):
                    n = int(st[ST_NCARDS + o])
                    other[o] = np.uint64(sum(1 << c for c in cards[pos_:pos_ + n]))
                    pos_ += n
                assert decide(st, other, rules, 32, srng, opp_ll) == (move, cls, used)
    assert searched >= 4


def test_search_beats_the_heuristic():
    rate = _win_rate("search:64", "heuristic", 21, n=200)
    assert rate > 0.25 + 3 * (0.25 * 0.75 / 800) ** 0.5
