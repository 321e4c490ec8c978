"""Uniformity of the random primitives (chi-square, |z| < 4) and determinism."""
import itertools
import math

import numpy as np
from numba import njit

from cardsim.simcore.primitives.maskdeal import deal_groups, random_subset, split_plan
from cardsim.simcore.primitives.rng import game_key, randbelow, shuffle_plan, shuffle_plan_host, shuffle_prefix
from cardsim.simcore.tienlen.deal import deal_hands


def chi_square_z(observed, expected):
    """z-score of Pearson's statistic (df = cells - 1, normal approximation)."""
    observed = np.asarray(observed, float)
    expected = np.asarray(expected, float)
    stat = ((observed - expected) ** 2 / expected).sum()
    df = len(observed) - 1
    return (stat - df) / math.sqrt(2 * df)


@njit(cache=True)
def _randbelow_counts(seed, n, draws):
    counts = np.zeros(n, np.int64)
    state = game_key(seed, 0)
    for _ in range(draws):
        state, k = randbelow(state, n)
        counts[k] += 1
    return counts


@njit(cache=True)
def _randbelow_top_half(seed, n, draws):
    hits = 0
    state = game_key(seed, 0)
    for _ in range(draws):
        state, k = randbelow(state, n)
        hits += k >= n // 2
    return hits


def test_randbelow_uniform():
    for n in (2, 3, 7, 52, 1000):
        counts = _randbelow_counts(1, n, 200_000)
        assert abs(chi_square_z(counts, np.full(n, 200_000 / n))) < 4, n


def test_randbelow_large_bound_rejection_path():
    # n just above 2**31 makes the naive multiply-shift visibly biased; ours is exact.
    n = 2**31 + 2**30
    hits = _randbelow_top_half(2, n, 400_000)
    p = (n - n // 2) / n
    assert abs(hits - 400_000 * p) / math.sqrt(400_000 * p * (1 - p)) < 4


@njit(cache=True)
def _shuffle_counts(seed, n, k, draws, index_of, n_cells):
    counts = np.zeros(n_cells, np.int64)
    deck = np.empty(n, np.int64)
    for i in range(draws):
        for c in range(n):
            deck[c] = c
        shuffle_prefix(game_key(seed, i), deck, k)
        key = 0
        for j in range(k):
            key = key * n + deck[j]
        counts[index_of[key]] += 1
    return counts


def test_shuffle_prefix_uniform_over_ordered_subsets():
    for n, k in ((4, 4), (6, 3), (52, 1)):
        arrangements = list(itertools.permutations(range(n), k))
        index_of = np.full(n**k, -1, np.int64)
        for idx, arr in enumerate(arrangements):
            index_of[sum(c * n ** (k - 1 - j) for j, c in enumerate(arr))] = idx
        draws = 100 * len(arrangements) + 50_000
        counts = _shuffle_counts(3, n, k, draws, index_of, len(arrangements))
        assert abs(chi_square_z(counts, np.full(len(arrangements), draws / len(arrangements)))) < 4


@njit(cache=True)
def _group_masks(seed, deck_mask, plan, leaf_slot, draws):
    out = np.zeros((draws, leaf_slot.shape[0]), np.uint64)
    slots = np.zeros(2 * leaf_slot.shape[0] + 2, np.uint64)
    groups = np.zeros(leaf_slot.shape[0], np.uint64)
    for i in range(draws):
        deal_groups(game_key(seed, i), np.uint64(deck_mask), plan, leaf_slot, slots, groups)
        out[i] = groups
    return out


def partitions(cards, sizes):
    if not sizes:
        yield ()
        return
    for first in itertools.combinations(cards, sizes[0]):
        rest = [c for c in cards if c not in first]
        for tail in partitions(rest, sizes[1:]):
            yield (sum(1 << c for c in first),) + tail


def test_mask_deal_uniform_over_partitions():
    # Balanced (p = 1/2), biased (p = j/2**d) and direct-sampling splits.
    for n_cards, sizes in ((6, [2, 2, 2]), (12, [3, 9]), (9, [1, 8]), (8, [2, 2, 2, 2]), (10, [2, 3, 5])):
        plan, leaf_slot = split_plan(sizes)
        cells = {p: i for i, p in enumerate(partitions(list(range(n_cards)), sizes))}
        draws = 200 * len(cells)
        masks = _group_masks(11, (1 << n_cards) - 1, plan, leaf_slot, draws)
        counts = np.zeros(len(cells))
        for row in masks:
            counts[cells[tuple(int(m) for m in row)]] += 1
        assert abs(chi_square_z(counts, np.full(len(cells), draws / len(cells)))) < 4, sizes
    assert split_plan([1, 8])[0][0, 5] == 0  # that case really used direct sampling
    assert split_plan([26, 26])[0][0, 5] == 1  # balanced: plain random words
    assert split_plan([10, 30])[0][0, 5] == 2  # p = 1/4


@njit(cache=True)
def _subsets(seed, mask, k, j, d, draws):
    out = np.zeros(draws, np.uint64)
    for i in range(draws):
        _, out[i] = random_subset(game_key(seed, i), np.uint64(mask), k, j, d)
    return out


def test_biased_subsets_uniform():
    mask = 0b1011011101  # 7 cards, not contiguous
    cards = [c for c in range(10) if mask >> c & 1]
    for k, j, d in ((2, 1, 2), (3, 3, 3), (5, 3, 2), (4, 1, 1), (2, 0, 0), (6, 0, 0)):
        cells = {sum(1 << c for c in combo): i for i, combo in enumerate(itertools.combinations(cards, k))}
        draws = 300 * len(cells)
        counts = np.zeros(len(cells))
        for sub in _subsets(4, mask, k, j, d, draws):
            counts[cells[int(sub)]] += 1
        assert abs(chi_square_z(counts, np.full(len(cells), draws / len(cells)))) < 4, (k, j, d)


def test_deals_partition_the_deck_and_are_addressable():
    for players, per in ((4, 13), (3, 17), (2, 13), (4, 5)):
        for index in range(50):
            hands = deal_hands(99, index, players, per)
            assert [bin(int(h)).count("1") for h in hands] == [per] * players
            union = 0
            for h in hands:
                assert union & int(h) == 0
                union |= int(h)
            assert union < 1 << 52
            assert np.array_equal(hands, deal_hands(99, index, players, per))
    assert not np.array_equal(deal_hands(99, 0, 4, 13), deal_hands(99, 1, 4, 13))
    assert not np.array_equal(deal_hands(99, 0, 4, 13), deal_hands(100, 0, 4, 13))


def test_each_card_equally_likely_in_each_seat():
    # 3 players x 17: card 0 goes to each seat w.p. 17/52 and is undealt w.p. 1/52.
    counts = np.zeros(4)
    for index in range(20_000):
        hands = deal_hands(5, index, 3, 17)
        seat = next((s for s in range(3) if int(hands[s]) & 1), 3)
        counts[seat] += 1
    assert abs(chi_square_z(counts, 20_000 * np.array([17, 17, 17, 1]) / 52)) < 4


def test_shuffle_plan_host_equals_the_kernel():
    # Python callers take the host plan (no compile); it must be the kernel's, element for element
    for n in (2, 3, 10, 52, 54, 108, 112, 160):
        for k in (0, 1, 2, 7, n - 1, n, n + 3):
            sizes, products = shuffle_plan(n, k)
            host_sizes, host_products = shuffle_plan_host(n, k)
            assert host_sizes.dtype == sizes.dtype and host_products.dtype == products.dtype
            assert np.array_equal(host_sizes, sizes) and np.array_equal(host_products, products), (n, k)
