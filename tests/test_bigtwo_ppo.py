"""The published Big Two PPO agent as a seat (:mod:`cardsim.bigtwo_ppo`).

The encoding and the action indices are checked on states built by hand (positions from
the original's documented layout, ``docs/bigtwo-ppo.md``) and on states recorded by
running the original repository's own game code (``big2Game.py``, numpy only, outside
this repository): the 412 inputs it set, its legal action indices and, with the real
parameter file, the network's greedy choice. Those are stored here as numbers. The safe
unpickler is checked on pickles that would run code (nothing runs), and on truncated and
garbage files. Tests needing the real file (``modelParameters136500``) read it from
``CARDSIM_BIGTWO_PPO`` and are skipped without it; ``CARDSIM_BIGTWO_PPO_INDICES`` may name
the original's ``actionIndices.pkl`` for a full comparison of the action tables.
"""
from __future__ import annotations

import copyreg
import hashlib
import io
import os
import pickle
import sys
import types
from itertools import combinations

import numpy as np
import pytest

from cardsim import bigtwo_ppo as bt
from cardsim.simcore.framework.config import ConfigError

REAL_FILE = os.environ.get("CARDSIM_BIGTWO_PPO", "")
INDICES_FILE = os.environ.get("CARDSIM_BIGTWO_PPO_INDICES", "")
needs_real = pytest.mark.skipif(not (REAL_FILE and os.path.isfile(REAL_FILE)),
                                reason="set CARDSIM_BIGTWO_PPO to the original's modelParameters136500")


def ids(text: str) -> tuple[int, ...]:
    """Card ids of ``"3D 10S 2H"`` (Big Two ids: 3♦ = 0 ... 2♠ = 51)."""
    return tuple(bt.card_id(t) for t in text.split()) if text else ()


def nonzero(x) -> list[int]:
    return [int(i) for i in np.flatnonzero(x)]


def view(hand, cards_left=(13, 13, 13), plays=(), table="", passes=0) -> bt.BigTwoView:
    return bt.BigTwoView(ids(hand), tuple(cards_left), tuple((w, ids(c)) for w, c in plays), ids(table), passes)


#: States met while the original's own game code played seeded random games (numpy seed
#: per state: 1, 4, 397, 5, 2, 31, 2, 1, 54): the seat's hand, the opponents' counts in
#: play order after it, every play so far as (who: 0 = the seat, 1..3 = the opponents
#: after it; cards), the table and the passes since; the nonzero positions of the 412
#: inputs the original built; its legal indices with their cards; and, run through the
#: published parameters, the greedy index, its probability among the legal ones and the
#: value head's output.
RECORDED = {
    'first': dict(
        hand='3H 3S 5H 7S 8C 10H 10S JD JC QH KH AD AC', cards_left=(13, 13, 12),
        plays=[(3, '3D')],
        table='3D', passes=0,
        inputs=[0, 15, 17, 21, 22, 38, 39, 46, 59, 65, 70, 82, 93, 102, 117, 125, 127, 130, 131, 139, 148, 149, 152,
                162, 167, 171, 174, 184, 190, 193, 196, 207, 213, 218, 219, 230, 235, 240, 241, 253, 255, 259, 262,
                275, 278, 281, 284, 298, 325, 351, 383, 396, 401, 409],
        legal={0: '3H', 1: '3S', 2: '5H', 3: '7S', 4: '8C', 5: '10H', 6: '10S', 7: 'JD', 8: 'JC', 9: 'QH', 10: 'KH',
               11: 'AD', 12: 'AC', 1694: 'pass'},
        best=3, best_prob=0.640337, value=-0.776719),
    '2': dict(
        hand='5H 7D 9S 10D 10S JC JS AD', cards_left=(5, 8, 12),
        plays=[(1, '3D'), (2, '10H'), (3, '2H'), (1, '2S'), (1, 'KH'), (2, '2D'), (0, '2C'), (0, '6C 6S 7H 7S'),
               (1, 'JD JH AC AS'), (1, 'QC'), (2, 'AH'), (2, '5D 5C')],
        table='5D 5C', passes=1,
        inputs=[2, 15, 26, 35, 50, 60, 73, 79, 83, 95, 104, 105, 118, 124, 127, 140, 148, 149, 165, 167, 290, 300,
                302, 306, 309, 320, 328, 330, 334, 351, 359, 368, 373, 376, 377, 378, 379, 380, 381, 382, 385, 397,
                402, 410],
        legal={22: '10D 10S', 28: 'JC JS', 1694: 'pass'},
        best=22, best_prob=0.998803, value=-0.642468),
    '3': dict(
        hand='4D 5H 7C 7S 9S JH QD QC QS KD KC KH AH', cards_left=(13, 6, 12),
        plays=[(2, '3D'), (3, '2C'), (2, '2H'), (2, 'AD AC'), (2, '6D 6C 6S')],
        table='6D 6C 6S', passes=1,
        inputs=[1, 13, 24, 37, 48, 58, 61, 70, 82, 83, 94, 104, 118, 125, 141, 145, 149, 150, 163, 168, 171, 172, 185,
                192, 193, 194, 208, 211, 215, 216, 230, 234, 237, 238, 252, 257, 259, 260, 275, 279, 298, 318, 326,
                327, 332, 334, 335, 351, 358, 375, 376, 380, 381, 386, 399, 403, 410],
        legal={64: 'QD QC QS', 73: 'KD KC KH', 1694: 'pass'},
        best=64, best_prob=0.956253, value=-0.364955),
    '4': dict(
        hand='4S 5D 5C 6H 7D 9S 10H JS QD QH QS', cards_left=(7, 6, 10),
        plays=[(2, '3D'), (3, '7H'), (0, '2C'), (2, '2H'), (2, 'AD AH'), (2, '8S'), (3, 'KH'), (2, '2S'), (2, '5H'),
               (3, 'KC'), (1, 'AC'), (0, 'AS'), (1, '2D'), (1, '4D 4H JC JH')],
        table='4D 4H JC JH', passes=2,
        inputs=[1, 16, 24, 35, 39, 46, 58, 61, 69, 81, 92, 101, 116, 126, 139, 147, 162, 170, 185, 189, 193, 194, 207,
                213, 215, 216, 229, 236, 237, 238, 292, 300, 303, 309, 318, 326, 328, 332, 333, 334, 349, 372, 373,
                375, 376, 377, 378, 379, 380, 381, 382, 391, 398, 404, 411],
        legal={164: '5D 5C QD QH', 165: '5D 5C QD QS', 167: '5D 5C QH QS', 1694: 'pass'},
        best=165, best_prob=0.940713, value=-1.180491),
    'straight': dict(
        hand='3C 5C 5H 6C 8S 9S 10H JD QD QC QS AS', cards_left=(12, 12, 7),
        plays=[(0, '3D'), (1, 'KH'), (2, 'AH'), (3, '2S'), (3, '4S 5S 6S 7H 8H')],
        table='4S 5S 6S 7H 8H', passes=0,
        inputs=[0, 14, 24, 36, 39, 46, 59, 61, 69, 80, 93, 104, 108, 116, 126, 130, 139, 147, 152, 162, 167, 174, 185,
                189, 193, 194, 196, 207, 212, 215, 216, 218, 229, 236, 237, 238, 240, 253, 258, 297, 324, 328, 346,
                360, 364, 366, 373, 377, 382, 386, 406, 408, 409],
        legal={1012: '5C 5H QD QC QS', 1568: '8S 9S 10H JD QD', 1569: '8S 9S 10H JD QC', 1570: '8S 9S 10H JD QS',
               1694: 'pass'},
        best=1568, best_prob=0.938743, value=-0.630505),
    'flush': dict(
        hand='3C 6H 6S 9S JD JC JS QD QC AD 2C', cards_left=(11, 6, 12),
        plays=[(3, '3D'), (0, '5C'), (1, '9C'), (2, '10D'), (1, 'AS'), (0, '2D'), (2, '2S'), (2, '4H JH QH AH 2H')],
        table='4H JH QH AH 2H', passes=1,
        inputs=[0, 14, 25, 37, 39, 47, 60, 61, 72, 82, 96, 101, 105, 106, 118, 124, 127, 128, 140, 148, 149, 150, 163,
                167, 171, 185, 190, 193, 209, 211, 232, 234, 296, 302, 318, 328, 332, 333, 338, 351, 369, 377, 378,
                379, 381, 382, 395, 398, 407, 410],
        legal={938: '6H 6S JD JC JS', 1568: 'JD JC JS QD QC', 1694: 'pass'},
        best=938, best_prob=1.0, value=1.81052),
    'five-other': dict(
        hand='3H 6D 7D 7C 9C 10D 10C JS QH 2D 2C 2H', cards_left=(12, 7, 7),
        plays=[(3, '3D'), (0, 'KH'), (1, 'AH'), (2, '2S'), (2, '4S 5S 6S 7H 8H'), (3, '5C 5H QD QC QS')],
        table='5C 5H QD QC QS', passes=0,
        inputs=[0, 15, 25, 35, 48, 57, 61, 70, 80, 83, 94, 102, 117, 123, 127, 139, 146, 149, 162, 170, 185, 191, 210,
                211, 215, 216, 232, 234, 237, 238, 254, 257, 259, 260, 297, 301, 319, 333, 337, 339, 346, 366, 367,
                368, 370, 373, 377, 382, 392, 408, 409],
        legal={1312: '7D 7C 2D 2C 2H', 1654: '10D 10C 2D 2C 2H', 1694: 'pass'},
        best=1694, best_prob=1.0, value=0.411298),
    'control': dict(
        hand='6C 7C 8H QS 2D 2S', cards_left=(12, 10, 9),
        plays=[(2, '3D'), (3, '3S'), (0, '2H'), (0, '9D 9H'), (3, '10H 10S'), (0, 'KD KC'), (0, 'JH'), (1, 'QD'),
               (2, '2C'), (2, '3C'), (3, 'JD'), (0, 'AS')],
        table='', passes=0,
        inputs=[3, 14, 26, 36, 49, 59, 75, 82, 100, 101, 105, 122, 126, 127, 297, 322, 331, 348, 361, 367, 371, 372,
                378, 380, 381, 400],
        legal={0: '6C', 1: '7C', 2: '8H', 3: 'QS', 4: '2D', 5: '2S', 25: '2D 2S'},
        best=1, best_prob=0.795677, value=3.416261),
    'quads-in-hand': dict(
        hand='3H 4D 4C 4H 4S 5C 6C 6S 7C 8S JC AS', cards_left=(12, 7, 12),
        plays=[(0, '3D'), (1, '9H'), (3, 'JH'), (2, '2H'), (2, '5D 6D 10D JD AD')],
        table='5D 6D 10D JD AD', passes=1,
        inputs=[0, 15, 20, 23, 35, 39, 40, 41, 42, 45, 58, 61, 62, 63, 64, 65, 67, 81, 83, 84, 85, 86, 89, 104, 105,
                106, 107, 108, 112, 124, 130, 131, 135, 146, 149, 152, 153, 157, 170, 171, 174, 180, 190, 196, 197,
                203, 214, 218, 228, 234, 241, 253, 258, 297, 319, 326, 332, 338, 351, 375, 381, 394, 396, 407, 410],
        legal={917: '4D 4C 4H 6C 6S', 1029: '4D 4H 4S 6C 6S', 1239: '4C 4H 4S 6C 6S', 1694: 'pass'},
        best=1029, best_prob=0.583254, value=-0.729433),
}

#: SHA-256 of the original's inverse action tables (``actionIndices.pkl``: pairs, triples,
#: four- and five-card position sets in index order, as "i,j;i,j,k;..."), indices 13..1693.
ORIGINAL_TABLES_SHA256 = "9e09f3c31dc1d93bd5e2b0c843150c102a784eadb06adc61a35588c6a84b6949"


def recorded_view(r) -> bt.BigTwoView:
    return view(r["hand"], r["cards_left"], r["plays"], r["table"], r["passes"])


# ----------------------------------------------------------------------------- actions
def test_action_space_sizes_and_offsets():
    sizes = {k: sum(1 for i in range(bt.PASS_INDEX) if len(bt.action_positions(i)) == k) for k in range(1, 6)}
    assert sizes == {1: 13, 2: 33, 3: 31, 4: 330, 5: 1287}
    assert bt.N_ACTIONS == 1695 and bt.PASS_INDEX == 1694 and bt.action_positions(1694) == ()
    assert bt.SIZE_OFFSET == {1: 0, 2: 13, 3: 46, 4: 77, 5: 407}
    # spot values of the original's tables (its inverse lists, offset by the size's first index)
    assert bt.action_positions(15) == (0, 3)  # third pair
    assert bt.action_positions(76) == (10, 11, 12)  # last triple
    assert bt.action_positions(77 + 11) == (0, 1, 5, 8)
    assert bt.action_positions(406) == (9, 10, 11, 12)
    assert bt.action_positions(407 + 4) == (0, 1, 2, 3, 8)
    assert bt.action_positions(1693) == (8, 9, 10, 11, 12)


def test_action_tables_match_the_original():
    text = ";".join(",".join(str(p) for p in bt.action_positions(i)) for i in range(13, 1694))
    assert hashlib.sha256(text.encode()).hexdigest() == ORIGINAL_TABLES_SHA256


@pytest.mark.skipif(not (INDICES_FILE and os.path.isfile(INDICES_FILE)),
                    reason="set CARDSIM_BIGTWO_PPO_INDICES to the original's actionIndices.pkl")
def test_action_tables_equal_the_original_file():
    two, three, four, five, *inverse = bt.read_arrays(INDICES_FILE)  # the safe unpickler reads it too
    for k, forward, inv in zip((2, 3, 4, 5), (two, three, four, five), inverse):
        for i, pos in enumerate(inv.tolist()):
            assert bt.action_positions(bt.SIZE_OFFSET[k] + i) == tuple(pos)
            assert forward[tuple(pos)] == i


def big_two_plays(hand):
    """Every Big Two combination in ``hand`` (singles, pairs, triples, two pairs, four of
    a kind, straights, flushes, full houses)."""
    hand = sorted(hand)
    out = [(c,) for c in hand]
    for k in (2, 3, 4):
        for combo in combinations(hand, k):
            ranks = [c // 4 for c in combo]
            if len(set(ranks)) == 1 or (k == 4 and ranks[0] == ranks[1] and ranks[2] == ranks[3]):
                out.append(combo)
    for combo in combinations(hand, 5):
        ranks = sorted(c // 4 for c in combo)
        straight = all(b == a + 1 for a, b in zip(ranks, ranks[1:]))
        flush = len({c % 4 for c in combo}) == 1
        full = sorted([ranks.count(r) for r in set(ranks)]) == [2, 3]
        if straight or flush or full:
            out.append(combo)
    return out


HANDS = [
    "3D 3C 3H 3S 4D 5D 6D 7D 9C 9H JS 2D 2S",
    "3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD 2D",
    "10D 10C 10H 10S JD JC JH JS QD QC QH QS KD",
    "3S 5H 7C 9D JS KH 2C",
    "AS 2S",
]


@pytest.mark.parametrize("text", HANDS + ["random"])
def test_every_play_has_one_index_and_back(text):
    rng = np.random.default_rng(7)
    hands = [ids(text)] if text != "random" else [tuple(rng.choice(52, 13, replace=False)) for _ in range(20)]
    for hand in hands:
        plays = big_two_plays(hand)
        index = [bt.action_index(hand, p) for p in plays]
        assert min(index) >= 0 and len(set(index)) == len(index) and bt.PASS_INDEX not in index
        for p, i in zip(plays, index):
            assert bt.action_cards(hand, i) == tuple(sorted(p))
            assert len(bt.action_positions(i)) == len(p)
        assert bt.action_index(hand, ()) == bt.PASS_INDEX and bt.action_cards(hand, bt.PASS_INDEX) == ()
        # the hand's order does not matter
        assert [bt.action_index(list(reversed(hand)), p) for p in plays] == index


def test_every_index_decodes_in_a_full_hand():
    hand = ids(HANDS[0])
    seen = set()
    for i in range(bt.N_ACTIONS):
        cards = bt.action_cards(hand, i)
        assert bt.action_index(hand, cards) == i
        seen.add(cards)
    assert len(seen) == bt.N_ACTIONS


def test_index_edges():
    hand = ids("3D 4D 5D")
    assert bt.action_cards(hand, bt.action_index(ids(HANDS[0]), ids("2D"))) is None  # position 11 of 3 cards
    assert bt.action_index(ids(HANDS[0]), ids("3D 3C 3H 3S 4D 5D")) == -1  # six cards
    # four cards: two position pairs, each at most 3 apart (any set fitting the windows has an index)
    assert bt.action_index(ids(HANDS[0]), ids("3D 3C 4D 5D")) == 77 + bt._SETS[4].index((0, 1, 4, 5))
    assert bt.action_index(ids(HANDS[0]), ids("3D 4D 5D 6D")) == -1  # positions 0 4 5 6
    assert bt.action_index(ids(HANDS[0]), ids("3D 9C JS 2S")) == -1  # no four-card index
    with pytest.raises(ValueError, match="not in the hand"):
        bt.action_index(hand, ids("6D"))
    with pytest.raises(ValueError):
        bt.action_positions(1695)
    mask = bt.legal_mask(ids(HANDS[0]), [ids("3D"), ids("9C 9H"), (), ids("3D 3C 3H 3S 4D 5D")])
    assert nonzero(mask) == [0, 13 + bt._SETS[2].index((8, 9)), 1694]


# ----------------------------------------------------------------------------- encoding by hand
def test_hand_slots():
    # 3♦ 3♣ 3♥ 3♠ 4♦ 5♦ 6♦ 7♦ 9♣ 9♥ J♠ 2♦ 2♠: four 3s, a run 3..7, six diamonds
    x = bt.encode(view(HANDS[0]))
    slots = [
        [0, 13, 17, 18, 19, 20, 21],  # 3♦: rank 0, ♦, pair, triple, four, straight, flush
        [0, 14, 17, 18, 19, 20],  # 3♣
        [0, 15, 17, 18, 19, 20],  # 3♥
        [0, 16, 17, 18, 19, 20],  # 3♠
        [1, 13, 20, 21],  # 4♦
        [2, 13, 20, 21],  # 5♦
        [3, 13, 20, 21],  # 6♦
        [4, 13, 20, 21],  # 7♦
        [6, 14, 17],  # 9♣
        [6, 15, 17],  # 9♥
        [8, 16],  # J♠
        [12, 13, 17, 21],  # 2♦
        [12, 16, 17],  # 2♠
    ]
    expected = [22 * s + o for s, offs in enumerate(slots) for o in offs]
    assert [i for i in nonzero(x) if i < 286] == expected
    # opponents' counts (13 each) and a free lead: the rest
    assert [i for i in nonzero(x) if i >= 286] == [298, 325, 352, 400]


def test_short_hand_and_runs_through_two():
    # J Q K A 2 is a straight (2 is the top rank), 2 3 is not a run
    x = bt.encode(view("JD QC KH AS 2D 3S 4S", cards_left=(1, 2, 3)))
    hand = [i for i in nonzero(x) if i < 286]
    assert max(hand) < 22 * 7
    assert [22 * s + 20 in hand for s in range(7)] == [False, False, True, True, True, True, True]
    assert [i for i in nonzero(x) if 286 <= i < 367] == [286, 314, 342]


def test_opponent_blocks_and_played_cards():
    x = bt.encode(view("3D", cards_left=(13, 5, 1), plays=[
        (1, "AD"),  # next opponent: ace of diamonds, a single (no kind)
        (2, "2H 2S"),  # a pair of twos
        (3, "4D 5C 6H 7S 8D"),  # a plain straight: straight AND "not a flush" (the full-house position)
        (3, "3C 5C 7C 9C JC"),  # a flush
        (1, "6D 6C 6H 9S 9D"),  # a full house
        (2, "KD KC KH KS"),  # a four-card hand
        (0, "2D"),  # the seat's own play: only the played-card record
        (2, "QH"),
    ]))
    assert [i for i in nonzero(x) if 286 <= i < 313] == [286 + 12, 286 + 13, 286 + 26]
    assert [i for i in nonzero(x) if 313 <= i < 340] == [313 + 4, 313 + 19, 313 + 20, 313 + 21, 313 + 23]
    assert [i for i in nonzero(x) if 340 <= i < 367] == [340, 340 + 24, 340 + 25, 340 + 26]
    # Q♥ K♦ K♣ K♥ K♠ A♦ 2♦ 2♥ 2♠ (Q♦ = 367)
    assert [i for i in nonzero(x) if 367 <= i < 383] == [369, 371, 372, 373, 374, 375, 379, 381, 382]


@pytest.mark.parametrize("table, passes, expected", [
    ("", 2, [400]),  # the seat leads: control only
    ("7H", 2, [387, 398, 401, 411]),  # rank 4, ♥, single, two passes
    ("9D 9S", 0, [389, 399, 402, 409]),  # top card 9♠, pair
    ("5D 5C 5S", 1, [385, 399, 403, 410]),
    ("4D 4C 8H 8S", 0, [388, 399, 404, 409]),  # two pairs: the top card
    ("KD KC KH KS", 0, [393, 399, 405, 409]),  # four of a kind
    ("6D 7C 8H 9S 10D", 1, [388, 406, 408, 410]),  # plain straight: middle card's rank 8 (5), no suit, 23 and 25
    ("3C 5C 7C 9C JC", 0, [391, 397, 407, 409]),  # flush: top card J♣
    ("3H 4H 5H 6H 7H", 0, [387, 398, 406, 407, 409]),  # straight flush: 23 and 24, top card
    ("4H 4S JD JC JH", 0, [391, 408, 409]),  # full house: the middle card (J♦), no suit
    ("3D 3C QD QC QS", 2, [392, 408, 411]),
    ("3D 4D 5C 6H 7S 8D", 0, [388, 396, 409]),  # not Big Two (another game's run): the top card, no kind
])
def test_table_block(table, passes, expected):
    x = bt.encode(view("3D", plays=[(3, table)] if table else [], table=table, passes=passes))
    assert [i for i in nonzero(x) if i >= 383] == expected


@pytest.mark.parametrize("name", list(RECORDED))
def test_recorded_states_encode_as_the_original(name):
    r = RECORDED[name]
    v = recorded_view(r)
    assert nonzero(bt.encode(v)) == r["inputs"]
    hand = v.hand
    assert {bt.action_index(hand, ids(c) if c != "pass" else ()): c for c in r["legal"].values()} == r["legal"]
    mask = bt.legal_mask(hand, [ids(c) if c != "pass" else () for c in r["legal"].values()])
    assert nonzero(mask) == sorted(r["legal"])


@pytest.mark.parametrize("kwargs, match", [
    (dict(hand="3D 3D"), "distinct"),
    (dict(hand=""), "1..13"),
    (dict(hand="3D", cards_left=(13, 14, 1)), "cards_left"),
    (dict(hand="3D", cards_left=(13, 13)), "cards_left"),
    (dict(hand="3D", table="4D", passes=3), "passes"),
    (dict(hand="3D", plays=[(1, "")]), "passes are left out"),
    (dict(hand="3D", plays=[(4, "4D")]), "player"),
])
def test_encode_refuses_bad_views(kwargs, match):
    with pytest.raises(ValueError, match=match):
        bt.encode(view(**kwargs))


# ----------------------------------------------------------------------------- the safe loader
def synthetic_arrays(seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(shape) * 0.05).astype(dtype) for _, shape in bt.PARAMETER_SHAPES]


def joblib_style_bytes(arrays, aligned=False, protocol=3) -> bytes:
    """What ``joblib.dump(arrays, path)`` writes, made without joblib: each array is a
    ``joblib.numpy_pickle.NumpyArrayWrapper`` header whose raw bytes follow its BUILD
    opcode (newer joblib: a padding-length byte and padding first)."""
    module = types.ModuleType("joblib.numpy_pickle")

    class NumpyArrayWrapper:
        def __init__(self, a):
            self.state = {"subclass": np.ndarray, "shape": a.shape, "order": "C", "dtype": a.dtype, "allow_mmap": True}
            if aligned:
                self.state["numpy_array_alignment_bytes"] = 16
            self.array = a

        def __reduce_ex__(self, protocol):
            return copyreg.__newobj__, (type(self),), self.state

    NumpyArrayWrapper.__module__ = "joblib.numpy_pickle"
    NumpyArrayWrapper.__qualname__ = "NumpyArrayWrapper"
    module.NumpyArrayWrapper = NumpyArrayWrapper

    class Pickler(pickle._Pickler):
        def save(self, obj, save_persistent_id=True):
            super().save(obj, save_persistent_id)
            if isinstance(obj, NumpyArrayWrapper):
                if self.proto >= 4:
                    self.framer.commit_frame(force=True)
                if aligned:  # straight to the file, past the framer, as joblib writes
                    pad = 16 - (self._file.tell() + 1) % 16
                    self._file.write(bytes([pad]) + b"\xff" * pad)
                self._file.write(obj.array.tobytes("C"))

    saved = {k: sys.modules.get(k) for k in ("joblib", "joblib.numpy_pickle")}
    sys.modules["joblib"] = types.ModuleType("joblib")
    sys.modules["joblib.numpy_pickle"] = module
    try:
        buf = io.BytesIO()
        p = Pickler(buf, protocol=protocol)
        p._file = buf
        p.dump([NumpyArrayWrapper(a) for a in arrays])
        return buf.getvalue()
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v


def write(tmp_path, data: bytes, name="params.pkl"):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def one_line_error(path) -> str:
    with pytest.raises(ConfigError) as err:
        bt.load_parameters(path)
    text = str(err.value)
    assert "\n" not in text and text.startswith("bigtwo-ppo: ")
    return text


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_loads_plain_pickles_of_arrays(tmp_path, protocol):
    arrays = synthetic_arrays()
    params = bt.load_parameters(write(tmp_path, pickle.dumps(arrays, protocol=protocol)))
    for (name, _), a in zip(bt.PARAMETER_SHAPES, arrays):
        assert params[name].dtype == np.float64 and np.array_equal(params[name], a.astype(np.float64))


@pytest.mark.parametrize("aligned, protocol", [(False, 3), (True, 3), (True, 4)])
def test_loads_joblib_files(tmp_path, aligned, protocol):
    arrays = synthetic_arrays(1)
    data = joblib_style_bytes(arrays, aligned, protocol)
    assert b"joblib.numpy_pickle" in data
    params = bt.load_parameters(write(tmp_path, data))
    for (name, _), a in zip(bt.PARAMETER_SHAPES, arrays):
        assert np.array_equal(params[name], a)


class _Runs:
    def __init__(self, func, *args):
        self.func, self.args = func, args

    def __reduce__(self):
        return self.func, self.args


def test_refuses_pickles_that_run_code(tmp_path):
    marker = tmp_path / "ran"
    arrays = synthetic_arrays()
    cases = {
        "posix.system": pickle.dumps(arrays[:3] + [_Runs(os.system, f"touch {marker}")] + arrays[4:]),
        "builtins.eval": pickle.dumps([_Runs(eval, f"open({str(marker)!r}, 'w').close()")]),
        "__builtin__.exec": pickle.dumps(_Runs(exec, f"open({str(marker)!r}, 'w').close()"), protocol=0),
        "os.system": b"cos\nsystem\n(S'touch " + str(marker).encode() + b"'\ntR.",  # written by hand, protocol 0
        "builtins.getattr": pickle.dumps(_Runs(getattr, [], "append")),
        "_codecs.encode with 'rot13'": pickle.dumps(_Runs(__import__("_codecs").encode, "abc", "rot13"), protocol=2),
        "a state for function": b"\x80\x02c_codecs\nencode\n}b.",  # BUILD on an allowed function
        "a state for type": b"\x80\x02cnumpy\nndarray\n}b.",
    }
    for name, data in cases.items():
        text = one_line_error(write(tmp_path, data))
        assert f"refused: the pickle asks for {name}" in text, text
        assert not marker.exists()


def test_refuses_joblib_headers_that_are_not_number_arrays(tmp_path):
    data = joblib_style_bytes(synthetic_arrays())
    bad = data.replace(b"X\x02\x00\x00\x00f4", b"X\x02\x00\x00\x00O8", 1)  # object dtype
    assert bad != data
    assert "numbers only" in one_line_error(write(tmp_path, bad))
    obj = pickle.dumps([np.array([1, "a"], dtype=object)] + synthetic_arrays()[1:])
    assert "fc1/w is not a numeric array" in one_line_error(write(tmp_path, obj))


def test_refuses_truncated_and_garbage_files(tmp_path):
    good = pickle.dumps(synthetic_arrays())
    joblib_good = joblib_style_bytes(synthetic_arrays())
    for data in (good[:len(good) // 2], good[:-1], good[:10], joblib_good[:300], joblib_good[:-5]):
        assert "not a readable parameter pickle" in one_line_error(write(tmp_path, data))
    rng = np.random.default_rng(3)
    for data in (b"", b"hello world\n", rng.bytes(5000), b"\x80\x04\x95garbage", b"\x1f\x8b\x08\x00zz"):
        one_line_error(write(tmp_path, data))
    assert "compressed" in one_line_error(write(tmp_path, b"\x1f\x8b\x08\x00zz"))
    assert "cannot read the file" in one_line_error(tmp_path / "missing.pkl")
    assert "cannot read the file" in one_line_error(tmp_path)


def test_refuses_wrong_structure(tmp_path):
    arrays = synthetic_arrays()
    assert "expected a list of 10 arrays, found list of 9" in one_line_error(write(tmp_path, pickle.dumps(arrays[:9])))
    assert "found dict" in one_line_error(write(tmp_path, pickle.dumps({"a": arrays[0]})))
    swapped = arrays[:2] + [arrays[4]] + arrays[3:4] + [arrays[2]] + arrays[5:]
    assert "fc2/w has shape (256, 1695), expected (512, 256)" in one_line_error(write(tmp_path, pickle.dumps(swapped)))
    nan = [a.copy() for a in arrays]
    nan[5][7] = np.nan
    assert "pi/b holds non-finite numbers" in one_line_error(write(tmp_path, pickle.dumps(nan)))


# ----------------------------------------------------------------------------- the network and the seat
@pytest.fixture(scope="module")
def synthetic_params():
    return bt.Parameters({name: a.astype(np.float64) for (name, _), a in zip(bt.PARAMETER_SHAPES, synthetic_arrays(5))})


def test_forward_and_probabilities(synthetic_params):
    r = RECORDED["straight"]
    v = recorded_view(r)
    logits, value = bt.forward(synthetic_params, bt.encode(v))
    assert logits.shape == (1695,) and np.shape(value) == ()
    batch, values = bt.forward(synthetic_params, np.stack([bt.encode(v)] * 3))
    assert batch.shape == (3, 1695) and np.allclose(batch[1], logits) and values.shape == (3,)
    mask = bt.legal_mask(v.hand, [ids(c) if c != "pass" else () for c in r["legal"].values()])
    p = bt.probabilities(logits, mask)
    assert np.isclose(p.sum(), 1.0) and (p[~mask] == 0).all() and (p[mask] > 0).all()
    plays = [ids(c) if c != "pass" else () for c in r["legal"].values()]
    j = bt.choose(synthetic_params, v, plays)
    assert list(r["legal"])[j] == int(np.argmax(np.where(mask, logits, -np.inf)))


def observation(seat=2, hand="3C 5C 5H 6C 8S 9S 10H JD QD QC QS AS", legal=None):
    """A Tiến Lên-shaped observation of seat 2 (Big Two card names), as
    :meth:`cardsim.step_api.Env.observation` gives it."""
    order = sorted(ids(hand))
    names = [bt.RANKS[c // 4] + "♦♣♥♠"[c % 4] for c in order]
    if legal is None:  # pass, the straight 8♠-Q♦, the full house Q-5
        legal = [(), ids("8S 9S 10H JD QD"), ids("5C 5H QD QC QS")]
    actions = []
    for play in legal:
        aid = sum(1 << order.index(c) for c in play)
        text = "pass" if not play else " ".join(names[order.index(c)] for c in sorted(play)) + " [hand]"
        actions.append([aid, text])
    return {
        "game": "bigtwo", "seat": seat, "to_move": seat, "decision": "play", "hand": names,
        "cards_left": [12, 7, 12, 12],
        "table": {"cards": ["4♠", "5♠", "6♠", "7♥", "8♥"], "combination": "straight", "by": 1},
        "passed": [], "places": [0, 0, 0, 0], "must_contain": None, "played": [],
        "history": ["deal seat 2: ...", "-- trick: seat 2 leads", "seat 2: 3♦  [single]", "seat 3: K♥  [single]",
                    "seat 0: A♥  [single]", "seat 1: 2♠  [single]", "seat 2: pass", "seat 3: pass", "seat 0: pass",
                    "-- trick: seat 1 leads", "seat 1: 4♠ 5♠ 6♠ 7♥ 8♥  [straight]"],
        "legal_actions": sorted(actions),
    }


def test_view_from_observation():
    v = bt.view_from_observation(observation())
    r = RECORDED["straight"]  # the same position, seen by the original from seat 2's chair
    assert v == recorded_view(r)
    assert nonzero(bt.encode(v)) == r["inputs"]
    obs = observation()
    obs["table"]["by"] = 3  # two passes since
    assert bt.view_from_observation(obs).passes == 2
    obs["table"]["by"] = 2  # the seat's own play came round: it leads
    assert bt.view_from_observation(obs).table == ()
    obs["table"] = None
    assert bt.view_from_observation(obs).table == ()
    with pytest.raises(ValueError, match="four seats"):
        bt.view_from_observation(dict(obs, cards_left=[13, 13, 13]))


def test_seat_plays_a_legal_action(synthetic_params):
    seat = bt.BigTwoPPOSeat(synthetic_params)
    obs = observation()
    legal = [a for a, _ in obs["legal_actions"]]
    action = seat(obs, legal)
    assert action in legal and seat(observation(), legal) == action  # no state between calls
    scores = seat.scores(obs, legal)
    assert set(scores) == set(legal) and np.isclose(sum(scores.values()), 1.0)
    assert max(scores, key=lambda a: (scores[a], -a)) == action
    bad = observation()
    bad["legal_actions"][1][1] = "3C 5C [pair]"
    with pytest.raises(ValueError, match="its text says"):
        seat(bad, [a for a, _ in bad["legal_actions"]])
    with pytest.raises(ValueError, match="does not hold"):
        seat(obs, [1 << 12 | 1 << 13])


def test_seat_loads_a_file(tmp_path):
    path = write(tmp_path, joblib_style_bytes(synthetic_arrays(5)))
    seat = bt.BigTwoPPOSeat(str(path))
    obs = observation()
    assert seat(obs, [a for a, _ in obs["legal_actions"]]) in [a for a, _ in obs["legal_actions"]]


def test_seat_in_a_stepped_tienlen_game(synthetic_params):
    """The observation plumbing on a real stepper: Tiến Lên has the shape the Big Two
    stepper will have (its own card order, ♠ ♣ ♦ ♥, and plays the network has no index
    for, such as runs of six, which the seat never picks)."""
    import cardsim

    seat = bt.BigTwoPPOSeat(synthetic_params, suit_order="SCDH")
    env = cardsim.env("tienlen", seed=3)
    decisions = 0
    while not env.done:
        s = env.to_move
        if s == 0:
            obs = env.observation(0)
            legal = env.legal_actions()
            action = seat(obs, legal)
            assert action in legal
            decisions += 1
        else:
            action = env.policy_action()
        env.step(action)
    assert decisions > 0


def bigtwo_env_or_skip(**kwargs):
    import cardsim

    try:
        return cardsim.env("bigtwo", **kwargs)
    except ConfigError as exc:
        pytest.skip(f"no Big Two stepper here ({exc})")


def test_seat_in_stepped_bigtwo_games(synthetic_params):
    """Every seat of four Big Two games is the network: each observation's view agrees
    with the observation's own fields, every legal action has an index, and the seat
    picks a legal one."""
    seat = bt.BigTwoPPOSeat(synthetic_params)
    for index in range(4):
        env = bigtwo_env_or_skip(seed=11, index=index)
        while not env.done:
            s = env.to_move
            obs = env.observation(s)
            v = bt.view_from_observation(obs)
            assert sorted(v.hand) == sorted(bt.card_id(c) for c in obs["hand"])
            assert {c for _, p in v.plays for c in p} == {bt.card_id(c) for c in obs["played"]}
            for who in range(4):
                held = len(v.hand) if who == 0 else v.cards_left[who - 1]
                assert sum(len(p) for w, p in v.plays if w == who) == 13 - held
            if obs["table"] and obs["table"]["by"] != s:
                assert v.table == ids(" ".join(obs["table"]["cards"])) and 0 <= v.passes <= 2
            else:
                assert v.table == ()
            legal = env.legal_actions()
            texts = dict(obs["legal_actions"])
            assert all(bt.action_index(v.hand, bt._action_cards(v.hand, a, texts[a], "DCHS")) >= 0 for a in legal)
            action = seat(obs, legal)
            assert action in legal
            env.step(action)


# ----------------------------------------------------------------------------- the published parameters
@pytest.fixture(scope="module")
def real_params():
    return bt.load_parameters(REAL_FILE)


@needs_real
@pytest.mark.parametrize("name", list(RECORDED))
def test_real_network_agrees_with_the_original(real_params, name):
    r = RECORDED[name]
    v = recorded_view(r)
    logits, value = bt.forward(real_params, bt.encode(v))
    plays = [ids(c) if c != "pass" else () for c in r["legal"].values()]
    mask = bt.legal_mask(v.hand, plays)
    p = bt.probabilities(logits, mask)
    assert np.isclose(p.sum(), 1.0) and (p[~mask] == 0).all()
    assert int(np.argmax(p)) == r["best"]
    assert p[r["best"]] == pytest.approx(r["best_prob"], abs=2e-6)
    assert float(value) == pytest.approx(r["value"], abs=2e-5)
    assert list(r["legal"])[bt.choose(real_params, v, plays)] == r["best"]


@needs_real
def test_real_seat_on_an_observation(real_params):
    obs = observation()
    legal = [a for a, _ in obs["legal_actions"]]
    action = bt.BigTwoPPOSeat(real_params)(obs, legal)
    # the recorded choice: the straight 8♠ 9♠ 10♥ J♦ Q♦ (index 1568)
    assert dict(obs["legal_actions"])[action].startswith("8♠ 9♠ 10♥ J♦ Q♦")


# ----------------------------------------------------------------------------- --policy SEAT=bigtwo-ppo:FILE
def test_the_seat_plays_big_two_runs_from_the_command_line(tmp_path, capsys):
    from cli_helpers import run

    path = write(tmp_path, pickle.dumps(synthetic_arrays()))
    args = ("play", "bigtwo", "--games", 6, "--seed", 3, "--policy", f"0=bigtwo-ppo:{path}", "--json")
    code, first, err = run(capsys, *args)
    assert code == 0, err
    again = run(capsys, *args, "--chunk-size", 2)[1]
    assert again == first  # a function of the observation only: same data whatever the chunks
    code, _, err = run(capsys, "play", "tienlen", "--games", 2, "--seed", 3, "--policy", f"0=bigtwo-ppo:{path}")
    assert code == 2 and "plays bigtwo with 4 players" in err and len(err.strip().splitlines()) == 1, err
    code, _, err = run(capsys, "play", "bigtwo", "--games", 2, "--seed", 3, "--set", "players=3", "--policy",
                       f"0=bigtwo-ppo:{path}")
    assert code == 2 and "4 players" in err, err
    bad = write(tmp_path, b"\x80\x02cos\nsystem\n.", "bad.pkl")
    code, _, err = run(capsys, "play", "bigtwo", "--games", 2, "--seed", 3, "--policy", f"0=bigtwo-ppo:{bad}")
    assert code == 2 and "refused" in err and len(err.strip().splitlines()) == 1, err
