"""Readable pure-Python reference of Big Two's combinations and legal plays (slow; for cross-checks).

Written from ``docs/rules/bigtwo.md``, not from the kernels: cards are ids ``4 * rank + suit``
(ranks 3..A, 2 = 0..12; suits ♦ ♣ ♥ ♠ = 0..3), hands are int masks.

* :func:`combo` — what a card set is: ``(kind, strength)`` or ``None``; ``kind`` is one of
  :data:`KINDS`, ``strength`` a tuple compared within the kind.
* :func:`beats` — whether a play beats the table's.
* :func:`legal_moves` — brute-force enumeration (itertools) of the legal plays.
* :func:`payment` — what a loser pays for the cards left.
"""
from __future__ import annotations

from itertools import combinations

KINDS = ("single", "pair", "triple", "four", "straight", "flush", "full house", "four of a kind + kicker",
         "straight flush")
#: The five-card kinds, weakest first: a higher kind beats any hand of a lower one.
FIVE_KINDS = KINDS[4:]

#: Straight windows, weakest first: (ranks, rank of the card whose suit breaks ties).
_PLAIN = [(tuple(range(s, s + 5)), s + 4) for s in range(8)]  # 3-4-5-6-7 .. 10-J-Q-K-A
WINDOWS = {
    "no_twos": _PLAIN,
    "wheels": [((11, 12, 0, 1, 2), 2), ((12, 0, 1, 2, 3), 3)] + _PLAIN,  # A-2-3-4-5, 2-3-4-5-6 lowest
    "twos_high": _PLAIN + [((8, 9, 10, 11, 12), 12)],  # J-Q-K-A-2 highest
}


def cards(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


def mask_of(cs) -> int:
    m = 0
    for c in cs:
        m |= 1 << c
    return m


def combo(mask: int, straights: str = "no_twos", flush_order: str = "ranks", quads_alone: bool = False):
    """``(kind, strength)`` of a card set, or ``None`` if it is no Big Two combination."""
    cs = cards(mask)
    ranks = [c // 4 for c in cs]
    suits = [c % 4 for c in cs]
    n = len(cs)
    if n in (1, 2, 3) and len(set(ranks)) == 1:
        return KINDS[n - 1], (max(cs),)
    if n == 4:
        if quads_alone and len(set(ranks)) == 1:
            return "four", (max(cs),)
        return None
    if n != 5:
        return None
    window = None
    for w, (wr, top) in enumerate(WINDOWS[straights]):
        if sorted(wr) == sorted(ranks):
            window = (w, suits[ranks.index(top)])
    one_suit = len(set(suits)) == 1
    counts = sorted((ranks.count(r) for r in set(ranks)), reverse=True)
    if window is not None and one_suit:
        return "straight flush", window
    if counts[0] == 4:
        quad = max(r for r in ranks if ranks.count(r) == 4)
        return "four of a kind + kicker", (quad,)
    if counts == [3, 2]:
        triple = max(r for r in ranks if ranks.count(r) == 3)
        return "full house", (triple,)
    if one_suit:
        desc = tuple(sorted(ranks, reverse=True))
        return "flush", (desc, suits[0]) if flush_order == "ranks" else (suits[0], desc)
    if window is not None:
        return "straight", window
    return None


def beats(play, table) -> bool:
    """Whether combination ``play`` beats ``table`` (both from :func:`combo`)."""
    kind, strength = play
    tkind, tstrength = table
    if kind == tkind:
        return strength > tstrength
    return kind in FIVE_KINDS and tkind in FIVE_KINDS and FIVE_KINDS.index(kind) > FIVE_KINDS.index(tkind)


def legal_moves(hand: int, table_mask: int = 0, straights: str = "no_twos", flush_order: str = "ranks",
                quads_alone: bool = False, required: int = -1, alone: bool = False) -> set[int]:
    """The legal plays (masks, the pass excluded) of ``hand`` on ``table_mask`` (0: a lead).
    ``required``: a card the play must contain (the first lead); ``alone``: it must be that card alone."""
    table = combo(table_mask, straights, flush_order, quads_alone) if table_mask else None
    out = set()
    hand_cards = cards(hand)
    for n in (1, 2, 3, 4, 5):
        for cs in combinations(hand_cards, n):
            m = mask_of(cs)
            if required >= 0 and not (m >> required & 1):
                continue
            if alone and required >= 0 and m != 1 << required:
                continue
            c = combo(m, straights, flush_order, quads_alone)
            if c is None:
                continue
            if table is None or beats(c, table):
                out.add(m)
    return out


def payment(cards_left: int, doubling: bool = True) -> int:
    """Points a loser pays: one per card, x2 with 10-12 cards, x3 with 13 or more (doubling)."""
    if doubling and cards_left >= 13:
        return 3 * cards_left
    if doubling and cards_left >= 10:
        return 2 * cards_left
    return cards_left
