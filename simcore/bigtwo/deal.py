"""Big Two deal statistics: the deal kernel's events per seat (the deal itself is Tiến Lên's).

Hands are the engine's 52-bit masks with Big Two's suit order (card id ``4 * rank + suit``,
ranks 3..A, 2 = 0..12, suits ♦ ♣ ♥ ♠ = 0..3); deal ``i`` of a run is the Tiến Lên deal
``i`` (:func:`cardsim.simcore.tienlen.deal.deal_into`), so a deal and the game played
from it agree.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.primitives.bits import popcount
from cardsim.simcore.primitives.blocks import block_bounds, run_blocks
from cardsim.simcore.tienlen.deal import deal_into, deal_plan, rank_planes
from cardsim.simcore.tienlen.fives import STRAIGHT_VARIANTS, STRAIGHTS

#: Rows of the count table, in order (each per seat, and for the table: some seat has it).
EVENTS = (
    *(f"twos_{k}" for k in range(5)),
    "holds_three_diamonds",
    "four_of_a_kind",   # four cards of one rank (2s included)
    "full_house",       # a rank with >= 3 cards and another with >= 2
    "flush",            # >= 5 cards of one suit
    "straight",         # every rank of some straight window (switch straights), any suits
    "straight_flush",   # the five cards of a straight window in one suit
    "five_card_hand",   # any of the five above
)
EV_TWOS = 0
EV_THREE_DIAMONDS = 5
EV_FOUR, EV_FULL, EV_FLUSH, EV_STRAIGHT, EV_SFLUSH, EV_ANY_FIVE = range(6, 12)
N_EVENTS = len(EVENTS)
_U1 = np.uint64(1)
_U48 = np.uint64(48)
_SUIT_UNITS = np.uint64(0x1111111111111)


def window_masks(straights: str) -> np.ndarray:
    """The rank windows of a straight variant as masks of unit bits ``4 * rank`` (int64)."""
    return np.array([sum(1 << (4 * r) for r in ranks) for ranks, _top in STRAIGHTS[straights]], np.int64)


@njit(cache=True, inline="always")
def hand_events(h, windows):
    """Bit ``e`` set when the hand ``h`` has event ``EV_FOUR + e`` (four, full house, flush,
    straight, straight flush, any five-card hand)."""
    ge1, ge2, ge3, eq4 = rank_planes(h)
    f = 0
    if eq4 != 0:
        f |= 1
    n3 = popcount(ge3)
    if n3 >= 2 or (n3 == 1 and popcount(ge2) >= 2):
        f |= 2
    for s in range(4):
        if popcount((h >> np.uint64(s)) & _SUIT_UNITS) >= 5:
            f |= 4
    for w in range(windows.shape[0]):
        win = np.uint64(windows[w])
        if (ge1 & win) == win:
            f |= 8
            for s in range(4):
                if ((h >> np.uint64(s)) & win) == win:
                    f |= 16
    if f != 0:
        f |= 32
    return f


@njit(cache=True, nogil=True)
def _count_block(seed, start, stop, players, windows, plan, leaf, counts):
    """Add the event counts of deals ``start..stop-1`` into ``counts[N_EVENTS, players + 1]``."""
    slots = np.zeros(16, np.uint64)
    hands = np.zeros(8, np.uint64)
    for i in range(start, stop):
        deal_into(seed, i, plan, leaf, slots, hands)
        any_f = 0
        any_twos = 0
        three = 0
        for s in range(players):
            h = hands[s]
            twos = popcount(h >> _U48)
            counts[EV_TWOS + twos, s] += 1
            any_twos |= 1 << twos
            if h & _U1:
                counts[EV_THREE_DIAMONDS, s] += 1
                three = 1
            f = hand_events(h, windows)
            any_f |= f
            for e in range(6):
                counts[EV_FOUR + e, s] += (f >> e) & 1
        for k in range(5):
            counts[EV_TWOS + k, players] += (any_twos >> k) & 1
        counts[EV_THREE_DIAMONDS, players] += three
        for e in range(6):
            counts[EV_FOUR + e, players] += (any_f >> e) & 1


def deal_counts(seed, start, count, players, cards_per_player, straights, n_blocks):
    """Event counts over deals ``start .. start+count-1``: int64 ``(N_EVENTS, players + 1)``,
    the last column the table (some seat has the event). Blocks run in parallel; integer
    sums make the result independent of the split."""
    plan, leaf = deal_plan(players, cards_per_player)
    windows = window_masks(straights)
    bounds = block_bounds(count, n_blocks)
    partial = np.zeros((len(bounds), N_EVENTS, players + 1), np.int64)

    def run(b0, b1):
        for b in range(b0, b1):
            lo, hi = bounds[b]
            _count_block(np.uint64(seed), np.int64(start + lo), np.int64(start + hi), np.int64(players), windows,
                         plan, leaf, partial[b])

    run_blocks(run, len(bounds))
    return partial.sum(axis=0)


assert set(STRAIGHTS) == set(STRAIGHT_VARIANTS)
