"""Tiến Lên move generator (numba) against the pure-Python reference, plus hand-built rules."""
import random

import numpy as np
import pytest

from references import tienlen as ref
from cardsim.simcore.tienlen.cards import parse_cards
from cardsim.simcore.tienlen.moves import CLS_DSEQ3, CLS_SINGLE, CLS_TRIPLE, classify, legal_moves

CHOPS = {"seed": 0, "southern": 1}
CHOP_LENGTHS = {"at_least": 0, "exact": 1}
BAPS = {"none": 0, "all": 1, "four_pairs": 2}


def kernel_moves(hand, table=None, chop="seed", passed=False, bap="none", req=-1, alone=False, length="at_least"):
    cls, top = table if table is not None else (-1, -1)
    masks, classes = legal_moves(np.uint64(hand), cls, top, CHOPS[chop], passed, BAPS[bap], req, alone,
                                 CHOP_LENGTHS[length])
    for m, c in zip(masks, classes):
        assert classify(m) == c
    return [int(m) for m in masks]


def reference_moves(combos, hand, table=None, chop="seed", passed=False, bap="none", req=-1, alone=False,
                    length="at_least"):
    kw = dict(chop_rules=chop, passed=passed, bombs_after_pass=bap, required=req, alone=alone, chop_length=length)
    return sorted((m for m in combos if ref.is_legal(hand, m, table, **kw)), key=ref.move_key)


def table_of(text):
    mask = parse_cards(text)
    return ref.combo(mask)


def random_table(rng):
    """A random (class, top) to beat, biased towards 2s and bombs."""
    u = rng.random()
    if u < 0.3:  # 1-4 twos
        k = rng.randint(1, 4)
        return k - 1, 48 + rng.randint(k - 1, 3)
    if u < 0.55:  # same-rank sets
        k = rng.randint(1, 4)
        return k - 1, 4 * rng.randint(0, 11) + rng.randint(k - 1, 3)
    if u < 0.8:  # sequences
        L = rng.randint(3, 12)
        return 4 + L - 3, 4 * rng.randint(L - 1, 11) + rng.randint(0, 3)
    L = rng.randint(3, 6)  # double sequences
    return 14 + L - 3, 4 * rng.randint(L - 1, 11) + rng.randint(1, 3)


def random_hand(rng):
    if rng.random() < 0.5:
        return sum(1 << c for c in rng.sample(range(52), rng.choice([1, 5, 9, 13, 13, 13, 17])))
    # rich in pairs, fours and runs: cards from a few consecutive ranks
    lo = rng.randint(0, 8)
    pool = sorted({c for c in range(52) if lo <= c // 4 <= lo + rng.randint(3, 5)} | {48, 49, 50, 51})
    return sum(1 << c for c in rng.sample(pool, min(len(pool), rng.randint(6, 16))))


def test_generator_matches_reference_on_random_positions():
    rng = random.Random(20240611)
    checked = 0
    for _ in range(2000):
        hand = random_hand(rng)
        combos = ref.all_combos(hand)
        positions = [dict()]  # a free lead
        low = min(ref.cards(hand))
        positions.append(dict(req=low))
        positions.append(dict(req=low, alone=True))
        for _ in range(6):
            positions.append(dict(table=random_table(rng), chop=rng.choice(["seed", "southern"]),
                                  passed=rng.random() < 0.3, bap=rng.choice(list(BAPS)),
                                  length=rng.choice(list(CHOP_LENGTHS))))
        for pos in positions:
            got = kernel_moves(hand, **pos)
            want = reference_moves(combos, hand, **pos)
            assert got == want, (hex(hand), pos)
            checked += 1
    assert checked == 2000 * 9


def test_big_hands_count_products():
    # 26 cards: 6 full ranks give 6**6 double sequences of six pairs, among others
    hand = parse_cards("3S 3C 3D 3H 4S 4C 4D 4H 5S 5C 5D 5H 6S 6C 6D 6H 7S 7C 7D 7H 8S 8C 8D 8H 2S 2H")
    moves = kernel_moves(hand)
    assert moves == reference_moves(ref.all_combos(hand), hand)
    assert sum(1 for m in moves if classify(np.uint64(m)) == 14 + 6 - 3) == 6 ** 6


def test_classify():
    assert classify(np.uint64(0)) == -1
    assert classify(np.uint64(parse_cards("7S"))) == CLS_SINGLE
    assert classify(np.uint64(parse_cards("7S 7H 7D"))) == CLS_TRIPLE
    assert classify(np.uint64(parse_cards("3S 4S 5D"))) == 4
    assert classify(np.uint64(parse_cards("3S 4S 5D 6D 7D 8D 9D 10D JD QD KD AD"))) == 13
    assert classify(np.uint64(parse_cards("KS AS 2D"))) == -1  # no 2 in a sequence
    assert classify(np.uint64(parse_cards("3S 4S 6D"))) == -1
    assert classify(np.uint64(parse_cards("3S 3C 4S 4D 5D 5H"))) == CLS_DSEQ3
    assert classify(np.uint64(parse_cards("3S 3C 4S 4D"))) == -1
    assert classify(np.uint64(parse_cards("3S 3C 3H 4S 4D 5D 5H"))) == -1
    assert classify(np.uint64(parse_cards("QS QC KS KD AD AH 2S 2C"))) == -1


def plays(hand_text, table_text=None, **kw):
    hand = parse_cards(hand_text)
    table = table_of(table_text) if table_text else None
    got = kernel_moves(hand, table, **kw)
    assert got == reference_moves(ref.all_combos(hand), hand, table, **kw)
    return {int(m) for m in got}


def has(moves, text):
    return parse_cards(text) in moves


FOUR = "9S 9C 9D 9H"
DSEQ3 = "5S 5C 6S 6C 7S 7C"
DSEQ4 = "JS JC QS QC KS KC AS AC"
DSEQ5 = "4D 4H 5D 5H 6D 6H 7D 7H 8D 8H"


@pytest.mark.parametrize("chop", ["seed", "southern"])
def test_single_two_is_chopped_by_four_and_three_pairs(chop):
    moves = plays(f"{FOUR} {DSEQ3} 2H", "2D", chop=chop)
    assert has(moves, FOUR) and has(moves, DSEQ3) and has(moves, "2H")
    moves = plays(f"{FOUR} {DSEQ3} 2C", "2D", chop=chop)
    assert not has(moves, "2C")


@pytest.mark.parametrize("length", ["at_least", "exact"])
def test_seed_ladder(length):
    kw = dict(length=length)
    assert plays(f"{FOUR} {DSEQ3}", "2S 2H", **kw) == set()  # a pair of 2s needs four pairs
    assert has(plays(DSEQ4, "2S 2H", **kw), DSEQ4)
    assert has(plays(DSEQ4, "2S", **kw), DSEQ4) == (length == "at_least")  # 4 pairs on one 2: "or more"
    assert has(plays(DSEQ5, "2S 2H", **kw), DSEQ5) == (length == "at_least")
    assert plays(f"{FOUR} {DSEQ4}", "2S 2C 2H", **kw) == set()
    assert has(plays(DSEQ5, "2S 2C 2H", **kw), DSEQ5)
    six_pairs = "3S 3C 4S 4C 5S 5C 6S 6C 7S 7C 8S 8C"
    assert has(plays(six_pairs, "2S 2C 2H", **kw), six_pairs) == (length == "at_least")
    assert plays(six_pairs, "2S 2C 2D 2H", **kw) == set()  # four 2s: never
    # bombs beat only higher bombs of the same type and length
    assert has(plays(FOUR, "4S 4C 4D 4H"), FOUR)
    assert plays(FOUR, "10S 10C 10D 10H") == set()
    assert plays(FOUR, "3S 3C 4S 4D 5D 5H") == set()
    assert has(plays(DSEQ3, "3S 3C 4S 4D 5D 5H"), DSEQ3)
    assert not has(plays(DSEQ4, "3S 3C 4S 4D 5D 5H"), DSEQ4)
    assert plays(DSEQ3, FOUR) == set()


def test_issue_example_four_pairs_chop_a_single_two():
    """Issue 13: a single 2♣ on the table; 9-10-J-Q in pairs is offered (seed: 'o más')."""
    hand = "9C 9H 10S 10C 10H JC JD JH QS QC 2S 2D 2H"
    run = parse_cards("9C 9H 10S 10C JC JD QS QC")
    assert run in plays(hand, "2C")
    assert run not in plays(hand, "2C", length="exact")  # the old reading: exactly 3 pairs


def test_southern_ladder():
    kw = dict(chop="southern")
    assert has(plays(FOUR, "2S 2H", **kw), FOUR)
    assert has(plays(FOUR, "3S 3C 4S 4D 5D 5H", **kw), FOUR)
    assert has(plays(FOUR, "4S 4C 4D 4H", **kw), FOUR)
    assert plays(FOUR, "10S 10C 10D 10H", **kw) == set()
    assert plays(FOUR, "JS JC QS QC KS KC AS AC", **kw) == set()
    for table in ("2S", "2S 2H", "3S 3C 4S 4D 5D 5H", "KS KC KD KH"):
        assert has(plays(DSEQ4, table, **kw), DSEQ4), table
    assert plays(f"{FOUR} {DSEQ4} {DSEQ5}", "2S 2C 2H", **kw) == set()  # three 2s: no chop
    assert plays(DSEQ3, "2S 2H", **kw) == set()


@pytest.mark.parametrize("chop", ["seed", "southern"])
def test_four_twos_unbeatable(chop):
    hand = "3S 3C 3D 3H 4S 4C 5S 5C 6S 6C 7S 7C 8S 8C AS AC AD AH"
    assert plays(hand, "2S 2C 2D 2H", chop=chop) == set()


def test_bombs_after_pass():
    hand = f"{FOUR} {DSEQ3} 2H"
    assert plays(hand, "2D", passed=True, bap="none") == set()
    assert plays(hand, "2D", passed=True, bap="all") == {parse_cards(FOUR), parse_cards(DSEQ3)}
    assert plays(hand, "2D", passed=True, bap="four_pairs") == set()
    assert plays(DSEQ4, "2S 2H", passed=True, bap="four_pairs") == {parse_cards(DSEQ4)}
    assert plays("3S 5S 6H 9S", "4H", passed=True, bap="all") == set()


def test_required_card_on_first_lead():
    moves = plays("3S 3H 4D 5C 9S", req=0)
    assert moves == {parse_cards(t) for t in ("3S", "3S 3H", "3S 4D 5C")}
    assert plays("3S 3H 4D 5C 9S", req=0, alone=True) == {parse_cards("3S")}
    # lowest dealt card other than 3S (fewer players): same rule
    assert plays("4C 4H 5D 6C", req=5, alone=False) == {parse_cards(t) for t in ("4C", "4C 4H", "4C 5D 6C")}
