"""Exact deal probabilities for Tứ Sắc (generating functions, plain Python integers).

The 112 cards are distinct physical cards: a hand holding ``k`` copies of a type can be
chosen in ``C(4, k)`` ways for that type, so the number of n-card hands with per-type
counts in an allowed set is the coefficient of ``x**n`` in a product of per-type
polynomials ``sum_k C(4, k) x**k``. Seat 0 (the dealer) holds 21 cards, the others 20.
The table ("any seat") weak-hand rate is exact with two players (``p0 + p1 - p01``) and
bracketed by Bonferroni otherwise (``S1 - S2 <= P <= S1``), reported when narrow.
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from itertools import product
from math import comb

from cardsim.simcore.tusac.cards import GENERAL_TYPES, N_TYPES, SOLDIER_TYPES

OTHER_TYPES = [t for t in range(N_TYPES) if t not in GENERAL_TYPES and t not in SOLDIER_TYPES]


def poly_mul(a, b, limit):
    out = [0] * (limit + 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b[: limit + 1 - i]):
                out[i + j] += x * y
    return out


def poly_pow(a, e, limit):
    out = [1]
    for _ in range(e):
        out = poly_mul(out, a, limit)
    return out


def type_poly(allowed):
    return [comb(4, k) if k in allowed else 0 for k in range(5)]


def prob(poly, n):
    return Fraction(poly[n] if n < len(poly) else 0, comb(112, n))


def weak_count_poly(n):
    """Hands with no General, no type >= 3 and not all four Soldier colours."""
    low = type_poly({0, 1, 2})
    others = poly_pow(low, len(OTHER_TYPES), n)
    soldiers_all = poly_pow(low, 4, n)
    soldiers_full = poly_pow(type_poly({1, 2}), 4, n)
    soldiers = [a - (soldiers_full[i] if i < len(soldiers_full) else 0) for i, a in enumerate(soldiers_all)]
    return poly_mul(others, soldiers, n)


def p_weak(n):
    return prob(weak_count_poly(n), n)


def p_all_types_in(allowed, n):
    return prob(poly_pow(type_poly(allowed), N_TYPES, n), n)


def p_full_soldiers(n):
    return prob(poly_mul(poly_pow(type_poly({1, 2, 3, 4}), 4, n), poly_pow(type_poly(range(5)), 24, n), n), n)


def p_generals(k, n):
    return Fraction(comb(16, k) * comb(96, n - k), comb(112, n))


# ---- two hands at once (for table rates) ----------------------------------

def _weak_allowed(t, k):
    if t in GENERAL_TYPES:
        return k == 0
    return k <= 2


@lru_cache(maxsize=None)  # the table value asks for each pair of seats: few distinct sizes
def p_both_weak(n1, n2):
    """P(two given disjoint hands of n1 and n2 cards are both weak)."""
    def add(poly, i, j, v):
        poly[(i, j)] = poly.get((i, j), 0) + v

    def mul(a, b):
        out = {}
        for (i, j), x in a.items():
            for (k, m), y in b.items():
                if i + k <= n1 and j + m <= n2:
                    add(out, i + k, j + m, x * y)
        return out

    def pair_poly(t):
        poly = {}
        for k1 in range(5):
            for k2 in range(5 - k1):
                if _weak_allowed(t, k1) and _weak_allowed(t, k2):
                    add(poly, k1, k2, comb(4, k1) * comb(4 - k1, k2))
        return poly

    total = {(0, 0): 1}
    for t in OTHER_TYPES + list(GENERAL_TYPES):
        total = mul(total, pair_poly(t))
    soldiers = {}
    options = [(k1, k2) for k1 in range(3) for k2 in range(3)]
    for alloc in product(options, repeat=4):
        if all(a[0] for a in alloc) or all(a[1] for a in alloc):
            continue  # one of the hands would hold full-colour soldiers
        w = 1
        for k1, k2 in alloc:
            w *= comb(4, k1) * comb(4 - k1, k2)
        add(soldiers, sum(a[0] for a in alloc), sum(a[1] for a in alloc), w)
    total = mul(total, soldiers)
    return Fraction(total.get((n1, n2), 0), comb(112, n1) * comb(112 - n1, n2))


#: A Bonferroni bracket wider than this is not reported (it would say little).
MAX_BRACKET = Fraction(1, 500)
DEALER_CARDS, OTHER_CARDS = 21, 20


def hand_sizes(players: int) -> list[int]:
    return [DEALER_CARDS] + [OTHER_CARDS] * (players - 1)


def seat_probabilities(size: int) -> dict[str, Fraction]:
    """Exact per-seat probabilities of the deal events for a hand of ``size`` cards."""
    out = {
        "weak_hand": p_weak(size),
        "dealt_triple": 1 - p_all_types_in({0, 1, 2, 4}, size),
        "dealt_quadruple": 1 - p_all_types_in({0, 1, 2, 3}, size),
        "dealt_triple_or_quadruple": 1 - p_all_types_in({0, 1, 2}, size),
        "full_colour_soldiers": p_full_soldiers(size),
        "has_general": 1 - p_generals(0, size),
    }
    for k in range(8):
        out[f"generals_{k}"] = p_generals(k, size)
    out["generals_8plus"] = 1 - sum(p_generals(k, size) for k in range(8))
    return out


def exact_table(rules) -> list[tuple[str, object, Fraction, Fraction]]:
    """Rows ``(event, seat, low, high)``: ``seat`` an int or ``"any"``; ``low == high``
    when exact, else a guaranteed bracket of the exact value."""
    sizes = hand_sizes(rules.players)
    per_seat = [seat_probabilities(size) for size in sizes]
    rows = []
    for event in per_seat[0]:
        rows += [(event, s, per_seat[s][event], per_seat[s][event]) for s in range(rules.players)]
        if event == "weak_hand":
            s1 = sum(p[event] for p in per_seat)
            s2 = sum(p_both_weak(sizes[a], sizes[b]) for a in range(len(sizes)) for b in range(a + 1, len(sizes)))
            low, high = s1 - s2, (s1 - s2 if rules.players == 2 else s1)
            if high - low <= MAX_BRACKET:
                rows.append((event, "any", low, high))
                if rules.mulligan:
                    rows.append(("mulligan", "any", low, high))
    return rows
