"""Exact Tứ Sắc deal probabilities for the tests, computed here from the rules alone.

An independent oracle for the product's generating functions (``cardsim.simcore.tusac.exact``):
no product code. The pack: 4 colours x 7 characters = 28 types, 4 copies of each (112 distinct
cards); each colour has one General type and one Soldier type. A hand of ``n`` cards is a
uniform ``n``-subset of the 112 cards. Counting is a dynamic programme over the types, one at
a time, choosing ``k`` of a type's 4 copies in ``C(4, k)`` ways, with the state the cards taken
so far and, where a question needs it, the set of Soldier colours held (a bit mask) -- not the
product's polynomial products and differences.

A hand is *weak* when it holds no General, no type three or four times, and not a Soldier of
every colour (``docs/rules/tusac.md``).
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import comb

COPIES = 4
CARDS = 112
#: (kind, colour) of each of the 28 types
TYPES = [(kind, colour) for colour in range(4) for kind in ("general", "soldier", "o1", "o2", "o3", "o4", "o5")]


def _count(n, allowed, need_all_soldiers=None):
    """Hands of ``n`` cards whose per-type counts ``k`` satisfy ``allowed(kind, k)``; with
    ``need_all_soldiers`` True (False) only those holding (not holding) a Soldier of every colour."""
    states = {(0, 0): 1}  # (cards, soldier colour mask) -> ways
    for kind, colour in TYPES:
        nxt = {}
        for (c, mask), ways in states.items():
            for k in range(COPIES + 1):
                if c + k > n or not allowed(kind, k):
                    continue
                m = mask | (1 << colour) if kind == "soldier" and k > 0 else mask
                nxt[(c + k, m)] = nxt.get((c + k, m), 0) + ways * comb(COPIES, k)
        states = nxt
    total = 0
    for (c, mask), ways in states.items():
        if c != n:
            continue
        if need_all_soldiers is not None and (mask == 15) != need_all_soldiers:
            continue
        total += ways
    return total


def _weak_type(kind, k):
    return k == 0 if kind == "general" else k <= 2


def p_weak(n):
    """P(an ``n``-card hand is weak)."""
    return Fraction(_count(n, _weak_type, need_all_soldiers=False), comb(CARDS, n))


def p_all_types_in(allowed, n):
    """P(every type is held a number of times in ``allowed``)."""
    allowed = set(allowed)
    return Fraction(_count(n, lambda kind, k: k in allowed), comb(CARDS, n))


def p_full_soldiers(n):
    """P(a Soldier of every colour)."""
    return Fraction(_count(n, lambda kind, k: True, need_all_soldiers=True), comb(CARDS, n))


def p_generals(g, n):
    """P(exactly ``g`` General cards), by the same programme (types other than Generals unrestricted)."""
    states = {(0, 0): 1}  # (cards, generals) -> ways
    for kind, _ in TYPES:
        nxt = {}
        for (c, gs), ways in states.items():
            for k in range(COPIES + 1):
                if c + k <= n:
                    key = (c + k, gs + (k if kind == "general" else 0))
                    nxt[key] = nxt.get(key, 0) + ways * comb(COPIES, k)
        states = nxt
    return Fraction(states.get((n, g), 0), comb(CARDS, n))


@lru_cache(maxsize=None)
def p_both_weak(n1, n2):
    """P(two given disjoint hands of ``n1`` and ``n2`` cards are both weak): the programme over
    both hands at once (``k1`` and ``k2`` of a type's copies: ``C(4, k1) C(4 - k1, k2)`` ways),
    Soldier types first with both hands' colour masks, then the rest."""
    states = {(0, 0, 0, 0): 1}
    order = [t for t in TYPES if t[0] == "soldier"] + [t for t in TYPES if t[0] != "soldier"]
    for i, (kind, colour) in enumerate(order):
        nxt = {}
        for (c1, c2, m1, m2), ways in states.items():
            for k1 in range(COPIES + 1):
                for k2 in range(COPIES + 1 - k1):
                    if c1 + k1 > n1 or c2 + k2 > n2 or not (_weak_type(kind, k1) and _weak_type(kind, k2)):
                        continue
                    b = 1 << colour if kind == "soldier" else 0
                    key = (c1 + k1, c2 + k2, m1 | (b if k1 else 0), m2 | (b if k2 else 0))
                    nxt[key] = nxt.get(key, 0) + ways * comb(COPIES, k1) * comb(COPIES - k1, k2)
        states = nxt
        if i == 3:  # the four Soldier types are done: drop the hands with every colour, then the masks
            merged = {}
            for (a, b, m1, m2), w in states.items():
                if m1 != 15 and m2 != 15:
                    merged[(a, b, 0, 0)] = merged.get((a, b, 0, 0), 0) + w
            states = merged
    total = sum(w for (c1, c2, _, _), w in states.items() if c1 == n1 and c2 == n2)
    return Fraction(total, comb(CARDS, n1) * comb(CARDS - n1, n2))
