"""Big Two's move generator (the Tiến Lên engine's five-card profile) against the pure-Python
reference, plus hand-built positions for every five-card type and comparison."""
import random

import numpy as np
import pytest

from references import bigtwo as ref
from cardsim.simcore.bigtwo.rules import BigTwoRules
from cardsim.simcore.tienlen.cards import parse_cards
from cardsim.simcore.tienlen.fives import FIVE_BASE, classify_five, five_key
from cardsim.simcore.tienlen.moves import class_name, legal_moves_bigtwo
from cardsim.simcore.tienlen.rules import FLUSH_ORDERS, STRAIGHT_VARIANTS

KIND_OF_CLASS = {0: "single", 1: "pair", 2: "triple", 3: "four", "straight": "straight", "flush": "flush",
                 "full house": "full house", "four of a kind + kicker": "four of a kind + kicker",
                 "straight flush": "straight flush"}


def cards(text):
    return parse_cards(text, "DCHS")


def rules_of(**settings):
    return BigTwoRules(**settings)


def kernel_class_and_top(mask, rules):
    """The engine's (class, table top) of a play, read back through the kernel's own generator."""
    five = rules.five_profile()
    masks, classes = legal_moves_bigtwo(np.uint64(mask), -1, -1, five, int(rules.four_card_quads), -1, False)
    for m, c in zip(masks, classes):
        if int(m) == mask:
            c = int(c)
            top = int(five_key(np.uint64(mask), c)) if c >= FIVE_BASE else mask.bit_length() - 1
            return c, top
    raise AssertionError(f"{mask:#x} is no play")


def kernel_moves(hand, rules, table=0, req=-1, alone=False):
    five = rules.five_profile()
    if table:
        cls, top = kernel_class_and_top(table, rules)
    else:
        cls, top = -1, -1
    masks, classes = legal_moves_bigtwo(np.uint64(hand), cls, top, five, int(rules.four_card_quads), req, alone)
    out = [int(m) for m in masks]
    assert len(out) == len(set(out))  # no play listed twice
    for m, c in zip(out, classes):  # every play's class is what the reference calls it
        kind = ref.combo(m, rules.straights, rules.flush_order, rules.four_card_quads)[0]
        assert (class_name(int(c)) if c >= FIVE_BASE else KIND_OF_CLASS[int(c)]) == kind
    return set(out)


def reference_moves(hand, rules, table=0, req=-1, alone=False):
    return ref.legal_moves(hand, table, rules.straights, rules.flush_order, rules.four_card_quads, req, alone)


def beats(rules, play, table):
    """Whether ``play`` (text) is a legal answer to ``table`` (text) for a hand holding it."""
    return cards(play) in kernel_moves(cards(play), rules, cards(table))


# ----------------------------------------------------------------------------- five-card types
@pytest.mark.parametrize("text,kind", [
    ("3D 4C 5H 6S 7D", "straight"),
    ("3D 5D 8D JD 2D", "flush"),
    ("9D 9C 9S 4H 4S", "full house"),
    ("QD QC QH QS 3D", "four of a kind + kicker"),
    ("5H 6H 7H 8H 9H", "straight flush"),
    ("3D 4C 5H 6S 8D", None),
    ("3D 3C 4H 4S 5D", None),  # two pairs are no combination
])
def test_every_five_card_type_is_recognised(text, kind):
    rules = BigTwoRules()
    m = cards(text)
    assert (ref.combo(m) or (None,))[0] == kind
    t = classify_five(np.uint64(m), 0)
    assert (class_name(FIVE_BASE + t) if t >= 0 else None) == kind
    assert (m in kernel_moves(m, rules)) == (kind is not None)


def test_five_card_types_beat_lower_types_only():
    rules = BigTwoRules()
    order = ["3D 4C 5H 6S 7D", "3D 5D 8D JD 2D", "4D 4C 4H 3S 3H", "5D 5C 5H 5S 6D", "6C 7C 8C 9C 10C"]
    for i, low in enumerate(order):
        for j, high in enumerate(order):
            if j == i:
                continue
            assert beats(rules, high, low) == (j > i), (high, low)
    # whatever the ranks: the lowest flush beats the highest straight, a low straight flush the highest four
    assert beats(rules, "3H 4H 5H 6H 8H", "10D JC QH KS AS")
    assert beats(rules, "3S 4S 5S 6S 7S", "2D 2C 2H 2S AD")


def test_comparisons_within_a_type():
    rules = BigTwoRules()
    assert beats(rules, "4D 5C 6H 7S 8D", "3D 4C 5H 6S 7D")  # higher window
    assert beats(rules, "3C 4D 5D 6D 7S", "3D 4C 5H 6S 7H")  # same window: the top card's suit
    assert not beats(rules, "3C 4D 5D 6D 7C", "3D 4C 5H 6S 7H")
    assert beats(rules, "3D 3C 3H 2D 2C", "4D 4C 4H 5S 5H") is False  # full house: the triple, not the pair
    assert beats(rules, "5D 5C 5H 3S 3H", "4D 4C 4H AS AH")
    assert beats(rules, "6D 6C 6H 6S 3D", "5D 5C 5H 5S 2S")  # four + kicker: the four, not the kicker
    assert beats(rules, "3S 4S 5S 6S 7S", "3H 4H 5H 6H 7H")  # straight flushes: window, then suit
    assert beats(rules, "4D 5D 6D 7D 8D", "3S 4S 5S 6S 7S")


def test_flush_order_switch():
    ranks = BigTwoRules(flush_order="ranks")
    suit = BigTwoRules(flush_order="suit")
    high_hearts = "AH KH 5H 4H 3H"
    low_spades = "AS QS JS 9S 8S"
    assert beats(ranks, high_hearts, low_spades) and not beats(ranks, low_spades, high_hearts)
    assert beats(suit, low_spades, high_hearts) and not beats(suit, high_hearts, low_spades)
    assert beats(suit, "2S 8S 7S 5S 3S", "2H KH QH JH 9H")  # suit first, whatever the ranks
    assert beats(ranks, "KS 5S 4S 3S 6S", "QD JD 9D 8D 6D")  # ranks: the highest rank first, not the suit
    assert beats(ranks, "KD 9D 8D 7D 5D", "KS 9S 8S 6S 5S")  # ... then the next ranks
    assert beats(ranks, "KS 9S 8S 7S 5S", "KD 9D 8D 7D 5D")  # equal ranks: the suit


@pytest.mark.parametrize("straights", STRAIGHT_VARIANTS)
def test_straight_variants(straights):
    rules = BigTwoRules(straights=straights)
    wheel = cards("AD 2C 3H 4S 5D")
    two_low = cards("2C 3H 4S 5D 6D")
    two_high = cards("JD QC KH AS 2D")
    plays = kernel_moves(wheel | two_low | two_high, rules)
    assert (wheel in plays) == (straights == "wheels")
    assert (two_low in plays) == (straights == "wheels")
    assert (two_high in plays) == (straights == "twos_high")
    assert cards("QC KH AS 2D 3H") not in plays  # no wrap
    if straights == "wheels":  # A-2-3-4-5 < 2-3-4-5-6 < 3-4-5-6-7
        assert beats(rules, "2C 3H 4S 5D 6D", "AD 2S 3C 4D 5C")
        assert beats(rules, "3D 4C 5H 6S 7D", "2C 3H 4S 5D 6S")
    if straights == "twos_high":
        assert beats(rules, "JD QC KH AS 2D", "10S JS QD KC AC")


def test_first_lead_contains_three_diamonds():
    rules = BigTwoRules()
    hand = cards("3D 3C 4H 5S 6D 7D 9D JD QD KD 2S AS AH")
    plays = kernel_moves(hand, rules, req=0)
    assert plays and all(m & 1 for m in plays)
    assert cards("3D 3C") in plays and cards("3D 4H 5S 6D 7D") in plays and cards("3D 7D 9D JD QD") in plays
    assert kernel_moves(hand, rules, req=0, alone=True) == {1}


def test_four_card_quads_switch():
    hand = cards("8D 8C 8H 8S 3D")
    assert cards("8D 8C 8H 8S") not in kernel_moves(hand, BigTwoRules())
    quads = BigTwoRules(four_card_quads=True)
    assert cards("8D 8C 8H 8S") in kernel_moves(hand, quads)
    assert cards("9D 9C 9H 9S") in kernel_moves(cards("9D 9C 9H 9S"), quads, cards("8D 8C 8H 8S"))
    assert not kernel_moves(cards("9D 9C 9H 3S 3C"), quads, cards("8D 8C 8H 8S"))  # only a higher four


def test_no_bombs():
    """A four + kicker or a straight flush never beats a single, a pair or a triple (no chops)."""
    rules = BigTwoRules()
    hand = cards("5D 5C 5H 5S 6D 7D 8D 9D")
    assert not kernel_moves(hand, rules, cards("2S"))
    assert not kernel_moves(hand, rules, cards("2H 2S"))


# ----------------------------------------------------------------------------- against the reference
def _random_position(rng, rules):
    deck = list(range(52))
    rng.shuffle(deck)
    hand = ref.mask_of(deck[:13])
    other = ref.mask_of(deck[13:26])
    table = 0
    if rng.random() < 0.75:
        plays = sorted(ref.legal_moves(other, 0, rules.straights, rules.flush_order, rules.four_card_quads))
        fives = [m for m in plays if bin(m).count("1") == 5]
        pool = fives if fives and rng.random() < 0.6 else plays
        table = rng.choice(pool)
    req = -1
    if table == 0 and rng.random() < 0.3:
        req = min(deck[:13])
    return hand, table, req


@pytest.mark.parametrize("straights", STRAIGHT_VARIANTS)
@pytest.mark.parametrize("flush_order", FLUSH_ORDERS)
def test_kernel_equals_reference_on_random_positions(straights, flush_order):
    rng = random.Random(f"{straights}-{flush_order}")
    rules = BigTwoRules(straights=straights, flush_order=flush_order, four_card_quads=straights == "wheels")
    for _ in range(60):
        hand, table, req = _random_position(rng, rules)
        alone = req >= 0 and rng.random() < 0.3
        assert kernel_moves(hand, rules, table, req, alone) == reference_moves(hand, rules, table, req, alone)


def test_kernel_equals_reference_on_five_card_rich_hands():
    """Hands built around long suits and runs, where the five-card walks are long."""
    rng = random.Random(7)
    rules = BigTwoRules()
    for _ in range(25):
        suit = rng.randrange(4)
        hand = ref.mask_of(rng.sample([4 * r + suit for r in range(13)], 9))
        rest = [c for c in range(52) if not hand >> c & 1]
        hand |= ref.mask_of(rng.sample(rest, 4))
        others = [c for c in range(52) if not hand >> c & 1]
        table_plays = sorted(m for m in ref.legal_moves(ref.mask_of(rng.sample(others, 13)), 0)
                             if bin(m).count("1") == 5)
        for table in [0] + rng.sample(table_plays, min(3, len(table_plays))):
            assert kernel_moves(hand, rules, table) == reference_moves(hand, rules, table)
