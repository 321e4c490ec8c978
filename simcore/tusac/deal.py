"""Tứ Sắc deal kernel: random deals of the 112-card deck and deal statistics.

Representation
--------------
Copies of a type are identical, so the deck is an array of 112 *type ids* (0..27, each
4 times, see :mod:`.cards`) and a deal is a partial Fisher-Yates shuffle of that
multiset (:func:`simcore.primitives.rng.shuffle_prefix_planned`, batched exact draws, three per
32-bit word, see :data:`DRAWS_PER_WORD`): the first ``21 + 20 (players - 1)``
positions are dealt in consecutive blocks, seat 0 (dealer) first; the rest is the
stock. The deck is reset to the sorted order before every deal,
so deal ``i`` is a pure function of ``(seed, i)``. The counting kernel shuffles four
deals at once (:func:`shuffle4_planned`: draw for draw the same permutations as
``shuffle_prefix_planned``, ~1.4x faster because a Fisher-Yates step is latency-bound).

A hand is held as four 28-bit **bit planes** ``ge1, ge2, ge3, eq4`` (bit ``t`` set when
type ``t`` is held at least 1, 2, 3 times / exactly 4 times), built with a 4-step carry
per card (``eq4 |= ge3 & b; ge3 |= ge2 & b; ge2 |= ge1 & b; ge1 |= b``), all in
registers, the four seats interleaved (:func:`deal_planes`). Every deal event is then
one or two mask tests: weak hand = ``ge1 & GENERALS == 0 and ge3 == 0 and
ge1 & SOLDIERS != SOLDIERS``; triple (exactly 3)
= ``ge3 & ~eq4``; the number of Generals = four popcounts. A 28-count vector would
need a memory histogram and per-type loops for the same tests. (The meld engine,
:mod:`.melds`, works on count vectors; :func:`planes_to_counts` converts.)

Counting: each seat's triple / quadruple / full-soldier bits and General bucket form a
small key (:func:`seat_key`; key 0 = weak hand); one histogram
increment per seat per deal (plus two for the table) is expanded into events once per
block, as in the Tiến Lên kernel. Blocks run in parallel (:func:`cardsim.simcore.primitives.blocks.run_blocks`); integer sums
make the counts independent of the block split and the thread count.
"""
import numpy as np
from numba import njit

from cardsim.simcore.primitives.arrays import copy1
from cardsim.simcore.primitives.blocks import block_bounds, run_blocks
from cardsim.simcore.primitives.bits import popcount
from cardsim.simcore.primitives.rng import game_key, next_u64, shuffle_plan_host, shuffle_prefix_planned
from cardsim.simcore.tusac.cards import COPIES, GENERAL_TYPES, N_TYPES, SOLDIER_TYPES

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

# Per-seat histogram key: triple | quad << 1 | full soldiers << 2 | General bucket << 3;
# key 0 is exactly a weak hand. Table keys: OR of the 3 low bits | weak count << 3, and
# separately a bit per General bucket seen.
_SEAT_KEYS = 8 * GENERAL_BUCKETS
_TABLE_KEYS = 8 * 8
_GEN_KEYS = 1 << GENERAL_BUCKETS


#: Draws batched per 32-bit word. ``112 * 111 * 110 < 2**26``, so groups of 3 keep the
#: rejection chance of a batch below 2**-11; a constant group size keeps the inner loop
#: of :func:`simcore.primitives.rng.shuffle_prefix_planned` perfectly predicted (about 20 % faster
#: than :func:`simcore.primitives.rng.shuffle_plan_host`'s greedy 3/4 groups). Any grouping is exact.
DRAWS_PER_WORD = 3


def shuffle_plan_fixed(n, k, group=DRAWS_PER_WORD):
    """A plan for :func:`shuffle_prefix_planned` with groups of ``group`` draws (last may be shorter)."""
    k = min(k, n - 1)
    sizes, products = [], []
    i = 0
    while i < k:
        size = min(group, k - i)
        product = 1
        for j in range(size):
            product *= n - i - j
        if product > 1 << 26:
            return shuffle_plan_host(n, k)
        sizes.append(size)
        products.append(product)
        i += size
    return np.array(sizes, np.int64), np.array(products, np.uint64)


def deal_plan(players):
    """``(hand_sizes int64[players], shuffle sizes, shuffle products)`` of a deal."""
    sizes = np.array([21] + [20] * (players - 1), np.int64)
    g, p = shuffle_plan_fixed(len(BASE_DECK), int(sizes.sum()))
    return sizes, g, p


@njit(cache=True, forceinline=True)
def deal_into(seed, index, deck, base, group_sizes, products):
    """Deal ``index`` of run ``seed`` into ``deck`` (reset from ``base``); returns the RNG state.

    ``deck[:21]`` is the dealer's hand, then 20 cards per other seat; the remaining
    cards are the stock as a set (their order is not a uniform shuffle).
    """
    copy1(deck, base)
    return shuffle_prefix_planned(game_key(seed, index), deck, group_sizes, products)


_LOW32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)
_S32 = np.uint64(32)


@njit(cache=True, forceinline=True)
def _batch_word(state, buffered, spare, product):
    """One accepted 32-bit batch word, exactly as in :func:`simcore.primitives.rng.shuffle_prefix_planned`."""
    while True:
        if buffered:
            word = spare & _LOW32
            buffered = False
        else:
            state, x = next_u64(state)
            word = x >> _S32
            spare = x
            buffered = True
        low = (word * product) & _LOW32
        if low >= product or low >= (_TWO32 - product) % product:
            break
    return state, buffered, spare, word


@njit(cache=True, forceinline=True)
def shuffle4_planned(sa, sb, sc, sd, da, db, dc, dd, group_sizes, products):
    """:func:`simcore.primitives.rng.shuffle_prefix_planned` of four decks at once, draw for draw.

    Each deck gets exactly the permutation (and each state exactly the final value)
    that ``shuffle_prefix_planned`` gives it alone (tested). One Fisher-Yates step is
    latency-bound (multiply chain, dependent swap), so four independent chains in one
    loop run about 1.4x faster than four calls. Returns the four states.
    """
    n = da.shape[0]
    ba = bb = bc = bd = False
    pa = pb = pc = pd = np.uint64(0)
    i = 0
    for g in range(group_sizes.shape[0]):
        product = products[g]
        sa, ba, pa, wa = _batch_word(sa, ba, pa, product)
        sb, bb, pb, wb = _batch_word(sb, bb, pb, product)
        sc, bc, pc, wc = _batch_word(sc, bc, pc, product)
        sd, bd, pd, wd = _batch_word(sd, bd, pd, product)
        for _ in range(group_sizes[g]):
            bound = np.uint64(n - i)
            za = wa * bound
            zb = wb * bound
            zc = wc * bound
            zd = wd * bound
            ka = i + np.int64(za >> _S32)
            kb = i + np.int64(zb >> _S32)
            kc = i + np.int64(zc >> _S32)
            kd = i + np.int64(zd >> _S32)
            wa = za & _LOW32
            wb = zb & _LOW32
            wc = zc & _LOW32
            wd = zd & _LOW32
            t = da[i]
            da[i] = da[ka]
            da[ka] = t
            t = db[i]
            db[i] = db[kb]
            db[kb] = t
            t = dc[i]
            dc[i] = dc[kc]
            dc[kc] = t
            t = dd[i]
            dd[i] = dd[kd]
            dd[kd] = t
            i += 1
    return sa, sb, sc, sd


@njit(cache=True, forceinline=True)
def deal4_into(seed, index, decks, base, group_sizes, products):
    """Deals ``index .. index + 3`` into ``decks[0..3]``, identical to four :func:`deal_into` calls."""
    for k in range(4):
        copy1(decks[k], base)
    return shuffle4_planned(game_key(seed, index), game_key(seed, index + 1), game_key(seed, index + 2),
                            game_key(seed, index + 3), decks[0], decks[1], decks[2], decks[3],
                            group_sizes, products)


@njit(cache=True, forceinline=True)
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


@njit(cache=True, forceinline=True)
def _add_card(ge1, ge2, ge3, eq4, t):
    b = _U1 << np.uint64(t)
    return ge1 | b, ge2 | (ge1 & b), ge3 | (ge2 & b), eq4 | (ge3 & b)


@njit(cache=True, forceinline=True)
def deal_planes(deck, planes):
    """Bit planes of the four hands at the fixed offsets 0, 21, 41, 61 of a dealt deck.

    ``planes[s] = (ge1, ge2, ge3, eq4)`` of seat ``s`` (dealer 21 cards, others 20).
    The four hands are built in one interleaved loop (four independent dependency
    chains: about twice as fast as one hand after the other). With fewer than 4
    players the extra rows hold stock cards and are to be ignored.
    """
    z = np.uint64(0)
    a0 = b0 = c0 = d0 = z
    a1 = b1 = c1 = d1 = z
    a2 = b2 = c2 = d2 = z
    a3 = b3 = c3 = d3 = z
    for j in range(20):
        a0, b0, c0, d0 = _add_card(a0, b0, c0, d0, deck[j])
        a1, b1, c1, d1 = _add_card(a1, b1, c1, d1, deck[21 + j])
        a2, b2, c2, d2 = _add_card(a2, b2, c2, d2, deck[41 + j])
        a3, b3, c3, d3 = _add_card(a3, b3, c3, d3, deck[61 + j])
    a0, b0, c0, d0 = _add_card(a0, b0, c0, d0, deck[20])
    planes[0, 0], planes[0, 1], planes[0, 2], planes[0, 3] = a0, b0, c0, d0
    planes[1, 0], planes[1, 1], planes[1, 2], planes[1, 3] = a1, b1, c1, d1
    planes[2, 0], planes[2, 1], planes[2, 2], planes[2, 3] = a2, b2, c2, d2
    planes[3, 0], planes[3, 1], planes[3, 2], planes[3, 3] = a3, b3, c3, d3


@njit(cache=True, forceinline=True)
def hand_flags(ge1, ge2, ge3, eq4):
    """``(flags, generals)``: the ``F_*`` bits of a hand and its number of General cards."""
    # Branch-free: these tests are close to coin flips on random hands.
    g = ge1 & GENERALS_MASK
    triple = np.int64((ge3 & ~eq4) != 0)
    quad = np.int64(eq4 != 0)
    three_plus = np.int64(ge3 != 0)
    full = np.int64((ge1 & SOLDIERS_MASK) == SOLDIERS_MASK)
    general = np.int64(g != 0)
    weak = 1 - (three_plus | full | general)
    flags = (weak * F_WEAK) | (triple * F_TRIPLE) | (quad * F_QUAD) | (full * F_FULL_SOLDIERS) \
        | (three_plus * F_THREE_PLUS) | (general * F_GENERAL)
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


@njit(cache=True, forceinline=True)
def seat_key(ge1, ge2, ge3, eq4):
    """Histogram key of a hand: ``triple | quad << 1 | full soldiers << 2 | bucket << 3``."""
    generals = (popcount(ge1 & GENERALS_MASK) + popcount(ge2 & GENERALS_MASK)
                + popcount(ge3 & GENERALS_MASK) + popcount(eq4 & GENERALS_MASK))
    return (np.int64((ge3 & ~eq4) != 0) | (np.int64(eq4 != 0) << 1)
            | (np.int64((ge1 & SOLDIERS_MASK) == SOLDIERS_MASK) << 2)
            | (min(generals, GENERAL_BUCKETS - 1) << 3))


@njit(cache=True, forceinline=True)
def _key_flags(key):
    """``F_*`` flags of a seat key."""
    triple = key & 1
    quad = (key >> 1) & 1
    full = (key >> 2) & 1
    general = np.int64((key >> 3) > 0)
    return ((triple * F_TRIPLE) | (quad * F_QUAD) | (full * F_FULL_SOLDIERS)
            | ((triple | quad) * F_THREE_PLUS) | (general * F_GENERAL) | (np.int64(key == 0) * F_WEAK))


@njit(cache=True, forceinline=True)
def _tally(planes, players, seat_hist, table_hist, gen_hist):
    any_key = 0
    weak = 0
    seen = 0
    for s in range(players):
        key = seat_key(planes[s, 0], planes[s, 1], planes[s, 2], planes[s, 3])
        seat_hist[s * _SEAT_KEYS + key] += 1
        any_key |= key
        weak += np.int64(key == 0)
        seen |= 1 << (key >> 3)
    table_hist[(any_key & 7) | (weak << 3)] += 1
    gen_hist[seen] += 1


@njit(cache=True, nogil=True)
def _count_block(seed, start, stop, hand_sizes, group_sizes, products, counts):
    players = hand_sizes.shape[0]
    base = BASE_DECK.copy()
    deck = base.copy()
    seat_hist = np.zeros(players * _SEAT_KEYS, np.int64)
    table_hist = np.zeros(_TABLE_KEYS, np.int64)
    gen_hist = np.zeros(_GEN_KEYS, np.int64)
    planes = np.zeros((4, 4), np.uint64)
    decks = np.zeros((4, base.shape[0]), np.uint8)
    i = start
    while i + 3 < stop:  # four deals at a time (the same deals as one at a time)
        deal4_into(seed, i, decks, base, group_sizes, products)
        for k in range(4):
            deal_planes(decks[k], planes)
            _tally(planes, players, seat_hist, table_hist, gen_hist)
        i += 4
    while i < stop:
        deal_into(seed, i, deck, base, group_sizes, products)
        deal_planes(deck, planes)
        _tally(planes, players, seat_hist, table_hist, gen_hist)
        i += 1
    for s in range(players):
        for key in range(_SEAT_KEYS):
            n = seat_hist[s * _SEAT_KEYS + key]
            if n:
                f = _key_flags(key)
                for e in range(EV_GENERALS):
                    if f & _FLAG_BITS[e]:
                        counts[e, s] += n
                counts[EV_GENERALS + (key >> 3), s] += n
    for key in range(_TABLE_KEYS):
        n = table_hist[key]
        if n:
            f = _key_flags(key & 7)  # without the General bits: F_GENERAL unset, F_WEAK wrong
            f &= ~(F_WEAK | F_GENERAL)
            if key >> 3:
                f |= F_WEAK
            for e in range(EV_GENERALS):
                if f & _FLAG_BITS[e]:
                    counts[e, players] += n
            counts[EV_WEAK_HANDS + (key >> 3), players] += n
    for key in range(_GEN_KEYS):
        n = gen_hist[key]
        if n:
            if key & ~1:
                counts[EV_GENERALS - 1, players] += n  # has_general: some seat has a bucket > 0
            for k in range(GENERAL_BUCKETS):
                if (key >> k) & 1:
                    counts[EV_GENERALS + k, players] += n


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
    bounds = block_bounds(count, n_blocks)
    partial = np.zeros((len(bounds), N_EVENTS, players + 1), np.int64)

    def run(b0, b1):
        for b in range(b0, b1):
            lo, hi = bounds[b]
            _count_block(np.uint64(seed), np.int64(start + lo), np.int64(start + hi), hand_sizes, g, p, partial[b])

    run_blocks(run, len(bounds))
    return partial.sum(axis=0)


@njit(cache=True, nogil=True)
def _deal_rows(seed, start, hand_sizes, group_sizes, products, out, weak):
    """Type counts ``out[i]`` and weak-hand bits ``weak[i]`` of deal ``start + i``."""
    players = hand_sizes.shape[0]
    for i in range(out.shape[0]):
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
    out = np.zeros((count, players + 1, N_TYPES), np.int8)
    weak = np.zeros(count, np.int8)

    def run(i0, i1):
        _deal_rows(np.uint64(seed), np.int64(start + i0), hand_sizes, g, p, out[i0:i1], weak[i0:i1])

    run_blocks(run, count)
    return out, weak


def deal_hands(seed, index, players):
    """Type counts ``int8[players + 1, 28]`` of one deal (the last row is the stock)."""
    return deal_rows(seed, index, 1, players)[0][0]
