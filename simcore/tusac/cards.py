"""Tứ Sắc card types and notation.

The 112 cards are 28 *types* (colour x character), 4 identical copies each. Copies are
indistinguishable for every rule of the game, so the kernels only ever handle types:

- a **type id** is ``7 * colour + character`` with colours red, yellow, green, white
  (0..3) and characters General, Advisor, Elephant, Chariot, Horse, Cannon, Soldier
  (0..6); so the red General is 0 and the white Soldier is 27;
- a **hand** is a vector of 28 counts in 0..4 (``counts[t]`` copies of type ``t``).

Within one colour the characters form two independent families: the *command* family
(General, Advisor, Elephant) and the *field* family (Chariot, Horse, Cannon). Soldiers
are the only cards whose melds cross colours.

Notation: a card is ``<colour letter><character letter>`` with colours ``R Y G W`` and
characters ``G A E C H N S`` (N = cannon, C = chariot), e.g. ``RG`` = red General,
``WS`` = white Soldier. ``parse_hand("RG RG YA")`` gives a count vector.
"""
from __future__ import annotations

import numpy as np

COLOURS = ("red", "yellow", "green", "white")
CHARACTERS = ("General", "Advisor", "Elephant", "Chariot", "Horse", "Cannon", "Soldier")
COLOUR_LETTERS = "RYGW"
CHARACTER_LETTERS = "GAECHNS"
N_COLOURS = 4
N_CHARACTERS = 7
N_TYPES = 28
COPIES = 4
N_CARDS = N_TYPES * COPIES  # 112

GENERAL, ADVISOR, ELEPHANT, CHARIOT, HORSE, CANNON, SOLDIER = range(7)
COMMAND_CHARS = (GENERAL, ADVISOR, ELEPHANT)
FIELD_CHARS = (CHARIOT, HORSE, CANNON)


def type_id(colour: int, character: int) -> int:
    """``7 * colour + character``."""
    return N_CHARACTERS * colour + character


def colour_of(t: int) -> int:
    return t // N_CHARACTERS


def character_of(t: int) -> int:
    return t % N_CHARACTERS


GENERAL_TYPES = tuple(type_id(c, GENERAL) for c in range(N_COLOURS))
SOLDIER_TYPES = tuple(type_id(c, SOLDIER) for c in range(N_COLOURS))


def type_name(t: int) -> str:
    """``type_name(0) == 'RG'`` (red General)."""
    return COLOUR_LETTERS[colour_of(t)] + CHARACTER_LETTERS[character_of(t)]


def long_name(t: int) -> str:
    """``long_name(27) == 'white Soldier'``."""
    return f"{COLOURS[colour_of(t)]} {CHARACTERS[character_of(t)]}"


def parse_type(token: str) -> int:
    """Parse ``"RG"`` / ``"ws"`` into a type id."""
    tok = token.strip().upper()
    if len(tok) != 2 or tok[0] not in COLOUR_LETTERS or tok[1] not in CHARACTER_LETTERS:
        raise ValueError(f"bad card {token!r} (expected colour R/Y/G/W + character G/A/E/C/H/N/S)")
    return type_id(COLOUR_LETTERS.index(tok[0]), CHARACTER_LETTERS.index(tok[1]))


def parse_hand(text: str) -> np.ndarray:
    """Parse ``"RG RG YA 2WS"`` into an int8 count vector (``2WS`` = two white Soldiers)."""
    counts = np.zeros(N_TYPES, np.int8)
    for token in text.replace(",", " ").split():
        k = 1
        if token[0].isdigit():
            k, token = int(token[0]), token[1:]
        counts[parse_type(token)] += k
    if (counts > COPIES).any():
        bad = type_name(int(np.argmax(counts > COPIES)))
        raise ValueError(f"more than {COPIES} copies of {bad}")
    return counts


def hand_str(counts) -> str:
    """Inverse of :func:`parse_hand`: ``"2RG YA"`` (``"-"`` for an empty hand)."""
    parts = []
    for t in range(N_TYPES):
        k = int(counts[t])
        if k:
            parts.append((f"{k}" if k > 1 else "") + type_name(t))
    return " ".join(parts) if parts else "-"
