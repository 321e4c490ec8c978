"""Tứ Sắc deal kernel: random deals of the 112-card deck and deal statistics.

Representation
--------------
Copies of a type are identical, so the deck is an array of 112 *type ids* (0..27, each
4 times, see :mod:`.cards`) and a deal is a partial Fisher-Yates shuffle of that
multiset (:func:`simcore.rng.shuffle_prefix_planned`, batched exact draws): the first
``21 + 20 (players - 1)`` positions are dealt in consecutive blocks, seat 0 (dealer)
first; the rest is the stock. The deck is reset to the sorted order before every deal,
so deal ``i`` is a pure function of ``(seed, i)``.

A hand is held as four 28-bit **bit planes** ``ge1, ge2, ge3, eq4`` (bit ``t`` set when
type ``t`` is held at least 1, 2, 3 times / exactly 4 times), built with a 4-step carry
per card (``eq4 |= ge3 & b; ge3 |= ge2 & b; ge2 |= ge1 & b; ge1 |= b``), all in
registers. Every deal event is then one or two mask tests: weak hand =
``ge1 & GENERALS == 0 and ge3 == 0 and ge1 & SOLDIERS != SOLDIERS``; triple (exactly 3)
= ``ge3 & ~eq4``; the number of Generals = four popcounts. A 28-count vector would
need a memory histogram and per-type loops for the same tests. (The meld engine,
:mod:`.melds`, works on count vectors; :func:`planes_to_counts` converts.)

Counting: each seat's flags and General bucket form a small key; one histogram
increment per seat per deal (plus two for the table) is expanded into events once per
block, as in the Tiến Lên kernel. Blocks run in parallel (``prange``); integer sums
make the counts independent of the block split and the thread count.
"""
import numpy as np
from numba import njit, prange

from simcore.bits import popcount
from simcore.rng import game_key, shuffle_plan, shuffle_prefix_planned
from simcore.tusac.cards import COPIES, GENERAL_TYPES, N_TYPES, SOLDIER_TYPES

_U1 = np.uint64(1)
GENERALS_MASK = np.uint64(sum(1 << t for t in GENERAL_TYPES))
SOLDIERS_MASK = np.uint64(sum(1 << t for t in SOLDIER_TYPES))

#: Sorted deck of type ids (each type 4 times).
BASE_DECK = np.repeat(np.arange(N_TYPES, dtype=np.uint8), COPIES)

# Hand flag bits.
F_WEAK, F_TRIPLE, F_QUAD, F_FULL_SOLDIERS, F_THREE_PLUS, F_GENERAL = 1, 2, 4, 8, 16, 32
GENERAL_BUCKETS = 9  # generals_0 .. generals_7, generals_8plus

#: Per-seat events (rows of the count table), each also counted for the table (any seat).
SEAT_EVENTS = (
    "weak_hand",
    "dealt_triple",
    "dealt_quadruple",
    "dealt_triple_or_quadruple",
    "full_colour_soldiers",
    "has_general",
    *(f"generals_{k}" for k in range(GENERAL_BUCKETS - 1)),
    f"generals_{GENERAL_BUCKETS - 1}plus",
)
_FLAG_EVENTS = (F_WEAK, F_TRIPLE, F_QUAD, F_THREE_PLUS, F_FULL_SOLDIERS, F_GENERAL)
EV_GENERALS = len(_FLAG_EVENTS)
#: Table-only events: number of weak hands at the table (0..4).
TABLE_EVENTS = tuple(f"weak_hands_{k}" for k in range(5))
EV_WEAK_HANDS = len(SEAT_EVENTS)
EVENTS = SEAT_EVENTS + TABLE_EVENTS
N_EVENTS = len(EVENTS)
_FLAG_BITS = np.array(_FLAG_EVENTS, np.int64)

_SEAT_KEYS = 64 * GENERAL_BUCKETS  # flags | bucket << 6
_TABLE_KEYS = 64 * 8  # OR of flags | weak count << 6
_GEN_KEYS = 1 << GENERAL_BUCKETS  # bit per General bucket seen


def deal_plan(players):
    """``(hand_sizes int64[players], shuffle sizes, shuffle products)`` of a deal."""
    sizes = np.array([21] + [20] * (players - 1), np.int64)
    g, p = shuffle_plan(len(BASE_DECK), int(sizes.sum()))
    return sizes, g, p


@njit(cache=True, inline="always")
def deal_into(seed, index, deck, base, group_sizes, products):
    """Deal ``index`` of run ``seed`` into ``deck`` (reset from ``base``); returns the RNG state.

    ``deck[:21]`` is the dealer's hand, then 20 cards per other seat; the tail is the
    stock in random order only up to the dealt prefix (its order is not used).
    """
    deck[:] = base
    return shuffle_prefix_planned(game_key(seed, index), deck, group_sizes, products)


@njit(cache=True, inline="always")
def hand_planes(deck, lo, hi):
    """Bit planes ``(ge1, ge2, ge3, eq4)`` of the cards ``deck[lo:hi]``."""
    ge1 = np.uint64(0)
    ge2 = np.uint64(0)
    ge3 = np.uint64(0)
    eq4 = np.uint64(0)
    for j in range(lo, hi):
        b = _U1 << np.uint64(deck[j])
        eq4 |= ge3 & b
        ge3 |= ge2 & b
        ge2 |= ge1 & b
        ge1 |= b
    return ge1, ge2, ge3, eq4


@njit(cache=True, inline="always")
def hand_flags(ge1, ge2, ge3, eq4):
    """``(flags, generals)``: the ``F_*`` bits of a hand and its number of General cards."""
    flags = 0
    if ge3 & ~eq4:
        flags |= F_TRIPLE
    if eq4:
        flags |= F_QUAD
    if ge3:
        flags |= F_THREE_PLUS
    if (ge1 & SOLDIERS_MASK) == SOLDIERS_MASK:
        flags |= F_FULL_SOLDIERS
    if ge1 & GENERALS_MASK:
        flags |= F_GENERAL
    if flags & (F_THREE_PLUS | F_FULL_SOLDIERS | F_GENERAL) == 0:
        flags |= F_WEAK
    generals = (popcount(ge1 & GENERALS_MASK) + popcount(ge2 & GENERALS_MASK)
                + popcount(ge3 & GENERALS_MASK) + popcount(eq4 & GENERALS_MASK))
    return flags, generals


@njit(cache=True)
def planes_to_counts(ge1, ge2, ge3, eq4):
    """28 counts (int8) from bit planes."""
    out = np.zeros(N_TYPES, np.int8)
    for t in range(N_TYPES):
        b = _U1 << np.uint64(t)
        out[t] = ((ge1 & b) != 0) + ((ge2 & b) != 0) + ((ge3 & b) != 0) + ((eq4 & b) != 0)
    return out


@njit(cache=True)
def _count_block(seed, start, stop, hand_sizes, group_sizes, products, counts):
    players = hand_sizes.shape[0]
    base = BASE_DECK.copy()
    deck = base.copy()
    seat_hist = np.zeros((players, _SEAT_KEYS), np.int64)
    table_hist = np.zeros(_TABLE_KEYS, np.int64)
    gen_hist = np.zeros(_GEN_KEYS, np.int64)
    for i in range(start, stop):
        deal_into(seed, i, deck, base, group_sizes, products)
        lo = 0
        any_flags = 0
        weak = 0
        seen = 0
        for s in range(players):
            hi = lo + hand_sizes[s]
            ge1, ge2, ge3, eq4 = hand_planes(deck, lo, hi)
            lo = hi
            f, g = hand_flags(ge1, ge2, ge3, eq4)
            bucket = min(g, GENERAL_BUCKETS - 1)
            seat_hist[s, f | (bucket << 6)] += 1
            any_flags |= f
            weak += f & F_WEAK
            seen |= 1 << bucket
        table_hist[any_flags | (weak << 6)] += 1
        gen_hist[seen] += 1
    for s in range(players):
        for key in range(_SEAT_KEYS):
            n = seat_hist[s, key]
            if n:
                for e in range(EV_GENERALS):
                    if key & _FLAG_BITS[e]:
                        counts[e, s] += n
                counts[EV_GENERALS + (key >> 6), s] += n
    for key in range(_TABLE_KEYS):
        n = table_hist[key]
        if n:
            for e in range(EV_GENERALS):
                if key & _FLAG_BITS[e]:
                    counts[e, players] += n
            counts[EV_WEAK_HANDS + (key >> 6), players] += n
    for key in range(_GEN_KEYS):
        n = gen_hist[key]
        if n:
            for k in range(GENERAL_BUCKETS):
                if (key >> k) & 1:
                    counts[EV_GENERALS + k, players] += n


@njit(cache=True, parallel=True)
def _deal_counts(seed, start, count, hand_sizes, group_sizes, products, n_blocks):
    players = hand_sizes.shape[0]
    partial = np.zeros((n_blocks, N_EVENTS, players + 1), np.int64)
    for b in prange(n_blocks):
        lo = start + (count * b) // n_blocks
        hi = start + (count * (b + 1)) // n_blocks
        _count_block(seed, lo, hi, hand_sizes, group_sizes, products, partial[b])
    return partial.sum(axis=0)


def deal_counts(seed, start, count, players, n_blocks):
    """Event counts over deals ``start .. start+count-1``.

    Returns
    -------
    counts : int64 array, shape (N_EVENTS, players + 1)
        Row ``e`` is ``EVENTS[e]``; column ``s`` counts deals where seat ``s`` has the
        event, the last column deals where the table has it (any seat). Rows of
        ``TABLE_EVENTS`` (``weak_hands_k``: exactly ``k`` weak hands at the table) are
        only meaningful in the last column (zeros elsewhere).
    """
    hand_sizes, g, p = deal_plan(players)
    return _deal_counts(np.uint64(seed), start, count, hand_sizes, g, p, n_blocks)


@njit(cache=True, parallel=True)
def _deal_rows(seed, start, count, hand_sizes, group_sizes, products):
    players = hand_sizes.shape[0]
    out = np.zeros((count, players + 1, N_TYPES), np.int8)
    weak = np.zeros(count, np.int8)
    for i in prange(count):
        base = BASE_DECK.copy()
        deck = base.copy()
        deal_into(seed, start + i, deck, base, group_sizes, products)
        lo = 0
        for s in range(players + 1):
            hi = lo + hand_sizes[s] if s < players else deck.shape[0]
            for j in range(lo, hi):
                out[i, s, deck[j]] += 1
            if s < players:
                ge1, ge2, ge3, eq4 = hand_planes(deck, lo, hi)
                f, g = hand_flags(ge1, ge2, ge3, eq4)
                if f & F_WEAK:
                    weak[i] |= 1 << s
            lo = hi
    return out, weak


def deal_rows(seed, start, count, players):
    """Per-deal detail for deals ``start .. start+count-1``.

    Returns
    -------
    counts : int8 array, shape (count, players + 1, 28)
        Type counts of each seat's hand; index ``players`` is the stock.
    weak : int8 array, shape (count,)
        Bit ``s`` set when seat ``s``'s hand is weak.
    """
    hand_sizes, g, p = deal_plan(players)
    return _deal_rows(np.uint64(seed), start, count, hand_sizes, g, p)


def deal_hands(seed, index, players):
    """Type counts ``int8[players + 1, 28]`` of one deal (the last row is the stock)."""
    return deal_rows(seed, index, 1, players)[0][0]
