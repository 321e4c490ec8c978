"""Tiến Lên instant-win predicates on hand-built hands, and against a readable reference."""
import numpy as np
import pytest

from cardsim.simcore.framework.config import ConfigError
from cardsim.simcore.tienlen.cards import parse_cards
from cardsim.simcore.tienlen.deal import (
    FLAG_BOMB_DOUBLE_SEQUENCE,
    FLAG_BOMB_FOUR,
    deal_rows,
    hand_flags,
    resolve_instant_win,
)
from cardsim.simcore.tienlen.rules import INSTANT_WIN_KINDS


def kinds_of(text):
    flags = hand_flags(np.uint64(parse_cards(text)))
    return {kind for k, kind in enumerate(INSTANT_WIN_KINDS) if flags >> k & 1}


def reference_flags(mask):
    """Readable pure-Python version of hand_flags."""
    cards = [c for c in range(52) if mask >> c & 1]
    count = [0] * 13
    for c in cards:
        count[c // 4] += 1

    def run(min_count, length):
        return any(all(count[r] >= min_count for r in range(s, s + length)) for s in range(0, 12 - length + 1))

    kinds = {
        "dragon": all(count[r] >= 1 for r in range(12)),
        "four_twos": count[12] == 4,
        "five_consecutive_pairs": run(2, 5),
        "six_pairs": sum(n // 2 for n in count) >= 6,
        "three_consecutive_triples": run(3, 3),
        "one_colour": sum(c % 4 < 2 for c in cards) >= 12 or sum(c % 4 >= 2 for c in cards) >= 12,
    }
    flags = sum(1 << k for k, kind in enumerate(INSTANT_WIN_KINDS) if kinds[kind])
    if 4 in count:
        flags |= 1 << FLAG_BOMB_FOUR
    if run(2, 3):
        flags |= 1 << FLAG_BOMB_DOUBLE_SEQUENCE
    return flags


@pytest.mark.parametrize("text, expected", [
    # dragon: one of every rank 3..A; the 13th card is anything
    ("3S 4S 5C 6D 7H 8S 9S 10S JS QS KS AS 2H", {"dragon"}),
    ("3S 4S 5C 6D 7H 8S 9S 10S JS QS KS AS AH", {"dragon"}),
    ("3S 4S 5C 6D 7H 8S 9S 10S JS QS KS 2S 2H", set()),  # no ace: near miss
    # four 2s
    ("2S 2C 2D 2H 3S 5C 7D 9H JS KC AD 4H 6S", {"four_twos"}),
    ("2S 2C 2D AH 3S 5C 7D 9H JS KC AD 4H 6S", set()),  # three 2s only
    # six pairs (a four counts as two pairs; pairs of 2s count)
    ("3S 3C 5D 5H 7S 7C 9D 9H JS JC 2D 2H AS", {"six_pairs"}),
    ("3S 3C 3D 3H 7S 7C 9D 9H JS JC 2D 2H AS", {"six_pairs"}),
    ("3S 3C 5D 5H 7S 7C 9D 9H JS JC 2D KH AS", set()),  # five pairs
    # five consecutive pairs (no 2s): also six pairs here? 5 pairs + singles -> only five_consecutive
    ("3S 3C 4D 4H 5S 5C 6D 6H 7S 7C 9D JH KS", {"five_consecutive_pairs"}),
    ("QS QC KD KH AS AC 2D 2H 3S 3C 9D JH 5S", set()),  # Q K A 2 3 wraps: not consecutive
    ("3S 3C 4D 4H 5S 5C 6D 6H 8S 8C 9D JH KS", set()),  # gap at 7
    # three consecutive triples
    ("8S 8C 8D 9S 9C 9D 10S 10C 10D 3H 5H QH KS", {"three_consecutive_triples"}),
    ("KS KC KD AS AC AD 2S 2C 2D 3H 5H QH JS", set()),  # K A 2: 2s never in a sequence
    ("8S 8C 8D 9S 9C 9D JS JC JD 3H 5H QH KS", set()),
    # one colour: >= 12 black (spades + clubs) or red (diamonds + hearts)
    ("3S 4S 5S 6S 7S 8S 9C 10C JC QC KC AC 2D", {"one_colour", "dragon"}),
    ("3S 4S 5S 6S 7S 8S 9C 10C JC QC KC AD 2D", {"dragon"}),  # 11 black
    ("3D 4D 5D 6D 7D 8D 9H 9D JH QH KH AH 2H", {"one_colour"}),
    ("3D 4D 5D 6D 7D 8D 9H 9D JH QH KH AS 2S", set()),  # 11 red
])
def test_instant_win_predicates(text, expected):
    assert kinds_of(text) == expected


def test_bomb_flags():
    assert hand_flags(np.uint64(parse_cards("7S 7C 7D 7H"))) >> FLAG_BOMB_FOUR & 1
    assert not hand_flags(np.uint64(parse_cards("7S 7C 7D 8H"))) >> FLAG_BOMB_FOUR & 1
    assert hand_flags(np.uint64(parse_cards("5S 5C 6D 6H 7S 7C"))) >> FLAG_BOMB_DOUBLE_SEQUENCE & 1
    assert not hand_flags(np.uint64(parse_cards("5S 5C 6D 6H 8S 8C"))) >> FLAG_BOMB_DOUBLE_SEQUENCE & 1
    assert not hand_flags(np.uint64(parse_cards("KS KC AD AH 2S 2C"))) >> FLAG_BOMB_DOUBLE_SEQUENCE & 1


def test_kernel_matches_reference_on_random_hands():
    hands, _, _ = deal_rows(12345, 0, 20_000, 4, 13, 0)
    for mask in hands.reshape(-1)[:40_000]:
        assert hand_flags(np.uint64(mask)) == reference_flags(int(mask))


def test_kernel_matches_reference_on_rich_hands():
    # Random deals rarely qualify; build hands that do, from few ranks.
    rng = np.random.default_rng(1)
    for _ in range(3000):
        ranks = rng.choice(13, size=rng.integers(4, 9), replace=False)
        cards = [4 * r + s for r in ranks for s in range(4)]
        chosen = rng.choice(cards, size=min(13, len(cards)), replace=False)
        mask = sum(1 << int(c) for c in chosen)
        assert hand_flags(np.uint64(mask)) == reference_flags(mask), chosen


def test_instant_win_priority_and_ties():
    dragon, four_twos, five_pairs = 1 << 0, 1 << 1, 1 << 2
    all_kinds = (1 << 6) - 1
    flags = np.array([four_twos, dragon, 0, 0], np.int64)
    assert resolve_instant_win(flags, 4, 0, all_kinds) == (1, 0)  # dragon beats four 2s
    flags = np.array([dragon, 0, 0, dragon], np.int64)
    assert resolve_instant_win(flags, 4, 2, all_kinds) == (3, 0)  # play order from leader 2: 2, 3, 0
    assert resolve_instant_win(flags, 4, 0, all_kinds) == (0, 0)
    flags = np.array([five_pairs, four_twos, 0, 0], np.int64)
    assert resolve_instant_win(flags, 4, 0, all_kinds) == (1, 1)  # four 2s beat five pairs
    assert resolve_instant_win(flags, 4, 0, dragon | five_pairs) == (0, 2)  # four 2s disabled
    assert resolve_instant_win(flags, 4, 0, 0) == (-1, -1)


def test_suit_order_changes_names_colours_and_the_first_leader():
    from cardsim.simcore.tienlen.cards import card_name, hand_str
    from cardsim.simcore.tienlen.deal import hand_flags_colour
    from cardsim.simcore.tienlen.rules import TienLenRules

    rules = TienLenRules.from_settings({"suit_order": "HDCS"})  # hearts lowest, spades highest
    assert card_name(0, rules.suit_order) == "3♥" and card_name(51, rules.suit_order) == "2♠"
    assert hand_str(parse_cards("3S 3H", rules.suit_order), rules.suit_order) == "3♥ 3♠"
    # twelve spades and clubs are one colour whatever their ids: with ♠ < ♦ < ♣ < ♥ the
    # black cards sit at suit indices 0 and 2
    mixed = TienLenRules.from_settings({"suit_order": "SDCH"})
    black = parse_cards("3S 4S 5S 6S 7S 8S 9C 10C JC QC KC AC 2D", mixed.suit_order)
    assert hand_flags_colour(np.uint64(black), np.uint64(mixed.black_mask())) >> 5 & 1
    assert not hand_flags(np.uint64(black)) >> 5 & 1  # the default order would read them as mixed
    assert bin(mixed.black_mask()).count("1") == 26
    with pytest.raises(ConfigError):
        TienLenRules.from_settings({"suit_order": "SSDH"})


def test_suit_order_in_a_replay(capsys):
    from cardsim.cli.main import main

    assert main(["replay", "tienlen", "--seed", "3", "--game", "0", "--set", "suit_order=HDCS",
                 "--policy", "greedy"]) == 0
    lines = capsys.readouterr().out.splitlines()
    first_play = next(line for line in lines if line.startswith("seat ") and ": " in line and "pass" not in line)
    assert "3♥" in first_play  # the lowest card under this order leads
