"""Tiến Lên card ids and notation.

A card id is ``4 * rank + suit`` with ranks 3 4 5 6 7 8 9 10 J Q K A 2 (0..12) and suits
in the table's order, lowest first (default ♠ ♣ ♦ ♥ = 0..3, switch ``suit_order``), so
3♠ = 0 and 2♥ = 51, and "higher card" is "higher bit" of a hand mask (a 52-bit
``uint64``). Only names and colours depend on the suit order; the kernels see ids.
"""
from __future__ import annotations

RANKS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
SUITS = ("♠", "♣", "♦", "♥")
SUIT_LETTERS = ("S", "C", "D", "H")
N_CARDS = 52
TWO_RANK = 12
THREE_OF_SPADES = 0


_SYMBOL = dict(zip(SUIT_LETTERS, SUITS))


def card_name(card: int, suit_order: str = "SCDH") -> str:
    """``card_name(0) == '3♠'``; suit index ``i`` is ``suit_order[i]`` (lowest suit first)."""
    return RANKS[card // 4] + _SYMBOL[suit_order[card % 4]]


def mask_cards(mask: int) -> list[int]:
    """Card ids in a hand mask, ascending."""
    mask = int(mask)
    return [c for c in range(N_CARDS) if mask >> c & 1]


def hand_str(mask: int, suit_order: str = "SCDH") -> str:
    """Space-separated card names of a mask, lowest first (``"pass"`` when empty)."""
    cards = mask_cards(mask)
    return " ".join(card_name(c, suit_order) for c in cards) if cards else "pass"


def parse_cards(text: str, suit_order: str = "SCDH") -> int:
    """Parse ``"3S 4h 10♦ 2H"`` (suit letter or symbol) into a mask."""
    mask = 0
    for token in text.replace(",", " ").split():
        rank_text, suit_text = token[:-1].upper(), token[-1].upper()
        suit_text = {"♠": "S", "♣": "C", "♦": "D", "♥": "H"}.get(suit_text, suit_text)
        if rank_text not in RANKS or suit_text not in SUIT_LETTERS:
            raise ValueError(f"bad card {token!r}")
        card = 4 * RANKS.index(rank_text) + suit_order.index(suit_text)
        if mask >> card & 1:
            raise ValueError(f"duplicate card {token!r}")
        mask |= 1 << card
    return mask
