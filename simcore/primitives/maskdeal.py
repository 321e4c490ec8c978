"""Uniform random deals of a deck of distinct cards held as one ``uint64`` mask.

A deal splits the deck mask into groups of fixed sizes (one group per seat, plus the
undealt rest). Instead of shuffling 52 cards one swap at a time, the kernel splits
masks in two, recursively: the left part of a mask ``M`` with ``m`` cards is a
uniformly random ``k``-subset of ``M``, drawn as ``B & M`` for a random word ``B``
whose bits are independent Bernoulli(p), accepted when ``popcount(B & M) == k``.
Conditioned on its size, ``B & M`` is uniform over the ``k``-subsets (the bits are
exchangeable), so the deal is exactly uniform over ordered partitions. With
``p = j / 2**d`` close to ``k / m`` each try costs ``d`` random words; a 4 x 13 deal
needs about 22 words (~1/3 of a Fisher-Yates shuffle's draws and no memory swaps).
Very unbalanced splits use direct sampling of the few cards instead.

:func:`split_plan` (plain Python, once per run) turns group sizes into a table of
split steps; :func:`deal_groups` (``@njit``) executes it for one game.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from cardsim.simcore.primitives.bits import popcount
from cardsim.simcore.primitives.rng import next_u64, randbelow

#: Columns of a split-plan row.
PLAN_PARENT, PLAN_LEFT, PLAN_RIGHT, PLAN_K, PLAN_NUM, PLAN_BITS = range(6)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_U1 = np.uint64(1)


def _best_bias(m: int, k: int) -> tuple[int, int]:
    """Choose ``(j, d)``: bits with ``P(1) = j / 2**d`` (``d = 0``: direct sampling)."""
    small = min(k, m - k)
    if small == 0:
        return 0, 0
    best_cost, best = small * 1.5 + 1.0, (0, 0)  # direct: ~1 draw per card, a few repeats
    for d in (1, 2, 3):
        for j in range(1, 2**d):
            p = j / 2**d
            accept = math.comb(m, k) * p**k * (1 - p) ** (m - k)
            cost = d / accept
            if cost < best_cost - 1e-12:
                best_cost, best = cost, (j, d)
    return best


def split_plan(group_sizes: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Plan the recursive halving of a deck into groups of the given sizes.

    Parameters
    ----------
    group_sizes : list of int
        Cards in each group, summing to the deck size (<= 64).

    Returns
    -------
    plan : int64 array, shape (n_steps, 6)
        Rows ``(parent, left, right, k, j, d)``: slot ``left`` receives a random
        ``k``-subset of slot ``parent`` (Bernoulli ``j / 2**d`` bits, ``d = 0`` for
        direct sampling) and slot ``right`` the rest. Slot 0 is the whole deck.
    leaf_slot : int64 array, shape (n_groups,)
        The slot holding each group's cards after the last step.
    """
    sizes = [int(s) for s in group_sizes]
    if any(s < 0 for s in sizes) or sum(sizes) > 64:
        raise ValueError("group sizes must be >= 0 and sum to <= 64")
    steps: list[list[int]] = []
    leaf_slot = [0] * len(sizes)
    next_slot = 1

    def split(lo: int, hi: int, slot: int) -> None:
        nonlocal next_slot
        if hi - lo == 1:
            leaf_slot[lo] = slot
            return
        total = sum(sizes[lo:hi])
        # Cut where the left part is closest to half the cards: p near 1/2 is cheapest.
        mid = min(range(lo + 1, hi), key=lambda c: abs(2 * sum(sizes[lo:c]) - total))
        k = sum(sizes[lo:mid])
        left, right = next_slot, next_slot + 1
        next_slot += 2
        j, d = _best_bias(total, k)
        steps.append([slot, left, right, k, j, d])
        split(lo, mid, left)
        split(mid, hi, right)

    split(0, len(sizes), 0)
    plan = np.array(steps, dtype=np.int64).reshape(-1, 6)
    return plan, np.array(leaf_slot, dtype=np.int64)


@njit(cache=True, inline="always")
def _biased_word(state, j, d):
    """A word whose bits are independently 1 with probability ``j / 2**d``."""
    below = np.uint64(0)  # bit-sliced "random d-bit value < j"
    equal = _ALL
    for b in range(d - 1, -1, -1):
        state, x = next_u64(state)
        if (j >> b) & 1:
            below |= equal & ~x
            equal &= x
        else:
            equal &= ~x
    return state, below


@njit(cache=True, inline="always")
def _nth_bit(mask, n):
    """The ``n``-th lowest set bit of ``mask`` (as a one-bit mask)."""
    for _ in range(n):
        mask &= mask - _U1
    return mask & (~mask + _U1)


@njit(cache=True)
def _direct_subset(state, mask, m, k):
    """Uniform ``k``-subset of ``mask`` (``m`` bits) by drawing cards one at a time."""
    take_complement = 2 * k > m
    want = m - k if take_complement else k
    chosen = np.uint64(0)
    got = 0
    while got < want:
        state, idx = randbelow(state, m)
        bit = _nth_bit(mask, idx)
        if (chosen & bit) == 0:  # a repeat is redrawn: keeps the subset uniform
            chosen |= bit
            got += 1
    if take_complement:
        chosen = mask ^ chosen
    return state, chosen


@njit(cache=True, inline="always")
def random_subset(state, mask, k, j, d):
    """Uniform random ``k``-subset of the set bits of ``mask``. Returns ``(state, subset)``."""
    m = popcount(mask)
    if k == 0:
        return state, np.uint64(0)
    if k == m:
        return state, mask
    if d == 0:
        return _direct_subset(state, mask, m, k)
    if d == 1:  # p = 1/2: a plain random word (the common, balanced split)
        while True:
            state, bits = next_u64(state)
            sub = bits & mask
            if popcount(sub) == k:
                return state, sub
    while True:
        state, bits = _biased_word(state, j, d)
        sub = bits & mask
        if popcount(sub) == k:
            return state, sub


@njit(cache=True, inline="always")
def deal_groups(state, deck_mask, plan, leaf_slot, slots, out):
    """Deal ``deck_mask`` into groups following a :func:`split_plan`.

    ``slots`` is scratch (uint64, length >= 2 * n_groups); ``out[g]`` receives the
    mask of group ``g``. Returns the new RNG state.
    """
    slots[0] = np.uint64(deck_mask)
    for s in range(plan.shape[0]):
        parent = slots[plan[s, PLAN_PARENT]]
        state, left = random_subset(state, parent, plan[s, PLAN_K], plan[s, PLAN_NUM], plan[s, PLAN_BITS])
        slots[plan[s, PLAN_LEFT]] = left
        slots[plan[s, PLAN_RIGHT]] = parent ^ left
    for g in range(leaf_slot.shape[0]):
        out[g] = slots[leaf_slot[g]]
    return state
