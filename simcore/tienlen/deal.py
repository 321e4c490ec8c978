"""Tiến Lên deal kernel: random deals, instant-win predicates and deal statistics.

Hands are 52-bit masks (``uint64``, bit = 4·rank + suit). Deal ``i`` of a run is a
pure function of ``(seed, i)`` (see :mod:`simcore.primitives.rng`), uniform over all ways to
give each seat ``cards_per_player`` cards (see :mod:`simcore.primitives.maskdeal`).
"""
import numpy as np
from numba import njit

from cardsim.simcore.primitives.blocks import block_bounds, run_blocks
from cardsim.simcore.primitives.bits import popcount
from cardsim.simcore.primitives.maskdeal import deal_groups, split_plan
from cardsim.simcore.primitives.rng import game_key
from cardsim.simcore.tienlen.rules import INSTANT_WIN_KINDS

# Per-rank bit planes: bit 4r of each mask stands for rank r.
_RANK_UNITS = np.uint64(0x1111111111111)  # 13 ranks
_RANKS_3_TO_A = np.uint64(0x111111111111)  # 12 ranks, no 2s
_M55 = np.uint64(0x5555555555555)
_M33 = np.uint64(0x3333333333333)
_BLACK = np.uint64(0x3333333333333)  # spades, clubs under the default suit order
_TWOS_SHIFT = np.uint64(48)
_FULL_DECK = np.uint64((1 << 52) - 1)
_U1 = np.uint64(1)
_U2 = np.uint64(2)
_U3 = np.uint64(3)
_U4 = np.uint64(4)
_U8 = np.uint64(8)
_U12 = np.uint64(12)
_U16 = np.uint64(16)
_U15 = np.uint64(15)

# Predicate bits returned by hand_flags: bits 0..5 follow INSTANT_WIN_KINDS.
KIND_DRAGON, KIND_FOUR_TWOS, KIND_FIVE_PAIRS, KIND_SIX_PAIRS, KIND_THREE_TRIPLES, KIND_ONE_COLOUR = range(6)
FLAG_BOMB_FOUR = 6
FLAG_BOMB_DOUBLE_SEQUENCE = 7
N_KINDS = len(INSTANT_WIN_KINDS)

#: Rows of the count table produced by :func:`deal_counts`, in order.
EVENTS = (
    *INSTANT_WIN_KINDS,
    "instant_win",
    *(f"instant_win_{kind}" for kind in INSTANT_WIN_KINDS),
    *(f"twos_{k}" for k in range(5)),
    "holds_three_spades",
    "bomb_four",
    "bomb_double_sequence",
    "bomb_any",
)
EV_INSTANT_WIN = N_KINDS
EV_INSTANT_KIND = N_KINDS + 1
EV_TWOS = 2 * N_KINDS + 1
EV_THREE_SPADES = EV_TWOS + 5
EV_BOMB_FOUR = EV_THREE_SPADES + 1
EV_BOMB_DSEQ = EV_THREE_SPADES + 2
EV_BOMB_ANY = EV_THREE_SPADES + 3
N_EVENTS = len(EVENTS)
assert EV_BOMB_ANY == N_EVENTS - 1


@njit(cache=True, inline="always")
def rank_planes(hand):
    """Per-rank count planes of a hand: ``(ge1, ge2, ge3, eq4)``.

    Each is a mask with bit ``4r`` set when rank ``r`` has at least 1, 2, 3 or
    exactly 4 cards in ``hand``.
    """
    h = np.uint64(hand)
    x = h - ((h >> _U1) & _M55)
    x = (x & _M33) + ((x >> _U2) & _M33)  # nibble r = number of cards of rank r
    ge1 = (h | (h >> _U1) | (h >> _U2) | (h >> _U3)) & _RANK_UNITS
    ge2 = ((x >> _U1) | (x >> _U2)) & _RANK_UNITS
    ge3 = ((x >> _U2) | ((x >> _U1) & x)) & _RANK_UNITS
    eq4 = (x >> _U2) & _RANK_UNITS
    return ge1, ge2, ge3, eq4


@njit(cache=True, inline="always")
def hand_flags(hand):
    """:func:`hand_flags_colour` with the default suit order (♠ ♣ black)."""
    return hand_flags_colour(hand, _BLACK)


@njit(cache=True, inline="always")
def hand_flags_colour(hand, black):
    """Instant-win predicates and dealt bombs of one hand, as bit flags.

    Bit ``k < 6`` is set when the hand qualifies for ``INSTANT_WIN_KINDS[k]``; bit 6
    when it holds a four of a kind; bit 7 when it holds a 3-pair double sequence.
    ``black`` is the 52-bit mask of black cards (``TienLenRules.black_mask()``).
    """
    h = np.uint64(hand)
    black = np.uint64(black)
    ge1, ge2, ge3, eq4 = rank_planes(h)
    flags = 0
    if (ge1 & _RANKS_3_TO_A) == _RANKS_3_TO_A:
        flags |= 1 << KIND_DRAGON
    if (h >> _TWOS_SHIFT) == _U15:
        flags |= 1 << KIND_FOUR_TWOS
    p = ge2 & _RANKS_3_TO_A
    run3 = p & (p >> _U4) & (p >> _U8)
    if (run3 & (run3 >> _U8)) != 0:  # pairs at r..r+4
        flags |= 1 << KIND_FIVE_PAIRS
    if popcount(ge2) + popcount(eq4) >= 6:
        flags |= 1 << KIND_SIX_PAIRS
    t = ge3 & _RANKS_3_TO_A
    if (t & (t >> _U4) & (t >> _U8)) != 0:
        flags |= 1 << KIND_THREE_TRIPLES
    if popcount(h & black) >= 12 or popcount(h & (_FULL_DECK ^ black)) >= 12:
        flags |= 1 << KIND_ONE_COLOUR
    if eq4 != 0:
        flags |= 1 << FLAG_BOMB_FOUR
    if run3 != 0:
        flags |= 1 << FLAG_BOMB_DOUBLE_SEQUENCE
    return flags


def deal_plan(players, cards_per_player):
    """Split plan (see :mod:`simcore.primitives.maskdeal`) for one seat group per player plus the undealt rest."""
    sizes = [cards_per_player] * players
    rest = 52 - players * cards_per_player
    if rest:
        sizes.append(rest)
    return split_plan(sizes)


@njit(cache=True, inline="always")
def deal_into(seed, index, plan, leaf_slot, slots, groups):
    """Deal game ``index`` of run ``seed``: ``groups[s]`` is seat ``s``'s hand mask.

    ``plan, leaf_slot = deal_plan(players, cards_per_player)``; ``slots`` and
    ``groups`` are uint64 scratch of length >= 10 and >= 5. The undealt cards, if
    any, land in ``groups[players]``. Returns the RNG state after the deal, from
    which a game kernel continues drawing.
    """
    return deal_groups(game_key(seed, index), _FULL_DECK, plan, leaf_slot, slots, groups)


@njit(cache=True, inline="always")
def first_leader(hands, players):
    """Seat holding the lowest dealt card (the 3♠ when it is dealt)."""
    best_seat = 0
    best = np.uint64(0xFFFFFFFFFFFFFFFF)
    for s in range(players):
        low = hands[s] & (~hands[s] + _U1)  # lowest set bit
        if low != 0 and low < best:
            best = low
            best_seat = s
    return best_seat


@njit(cache=True, inline="always")
def resolve_instant_win(flags, players, leader, enabled_mask):
    """Winner of the instant-win check: ``(seat, kind)`` or ``(-1, -1)``.

    ``flags[s]`` are :func:`hand_flags` values; the highest-priority enabled kind
    wins, equal kinds go to the earlier seat in play order from ``leader``.
    """
    for kind in range(N_KINDS):
        if (enabled_mask >> kind) & 1:
            for step in range(players):
                seat = (leader + step) % players
                if (flags[seat] >> kind) & 1:
                    return seat, kind
    return -1, -1


def deal_hands(seed, index, players, cards_per_player):
    """The hands of one deal: ``uint64[players]`` masks (for replay and tests)."""
    plan, leaf_slot = deal_plan(players, cards_per_player)
    return _deal_hands(seed, index, players, plan, leaf_slot)


@njit(cache=True)
def _deal_hands(seed, index, players, plan, leaf_slot):
    slots = np.zeros(10, np.uint64)
    groups = np.zeros(5, np.uint64)
    deal_into(seed, index, plan, leaf_slot, slots, groups)
    return groups[:players].copy()


# Histogram keys: per seat ``flags | twos << 8 | holds_3s << 11``; for the table
# ``OR of flags | (bit per 2s-count seen) << 8 | 3s dealt << 13``. One increment per
# seat per deal instead of one per event; expanded into events once per block.
_SEAT_KEYS = 1 << 12
_TABLE_KEYS = 1 << 14


@njit(cache=True, nogil=True)
def _count_block(seed, start, stop, players, enabled_mask, black, plan, leaf_slot, counts):
    """Add event counts of deals ``start..stop-1`` into ``counts[N_EVENTS, players+1]``."""
    slots = np.zeros(10, np.uint64)
    hands = np.zeros(5, np.uint64)
    flags = np.zeros(4, np.int64)
    seat_hist = np.zeros((players, _SEAT_KEYS), np.int64)
    table_hist = np.zeros(_TABLE_KEYS, np.int64)
    for i in range(start, stop):
        deal_into(seed, i, plan, leaf_slot, slots, hands)
        any_flags = 0
        any_twos = 0
        dealt_three_spades = 0
        for s in range(players):
            f = hand_flags_colour(hands[s], black)
            flags[s] = f
            twos = popcount(hands[s] >> _TWOS_SHIFT)
            three_spades = np.int64(hands[s] & _U1)
            seat_hist[s, f | (twos << 8) | (three_spades << 11)] += 1
            any_flags |= f
            any_twos |= 1 << twos
            dealt_three_spades |= three_spades
        table_hist[any_flags | (any_twos << 8) | (dealt_three_spades << 13)] += 1
        if any_flags & enabled_mask:
            winner, kind = resolve_instant_win(flags, players, first_leader(hands, players), enabled_mask)
            counts[EV_INSTANT_WIN, winner] += 1
            counts[EV_INSTANT_WIN, players] += 1
            counts[EV_INSTANT_KIND + kind, winner] += 1
            counts[EV_INSTANT_KIND + kind, players] += 1
    for s in range(players):
        for key in range(_SEAT_KEYS):
            n = seat_hist[s, key]
            if n:
                _add_flag_events(counts, s, key & 0xFF, n)
                counts[EV_TWOS + ((key >> 8) & 7), s] += n
                counts[EV_THREE_SPADES, s] += n * ((key >> 11) & 1)
    for key in range(_TABLE_KEYS):
        n = table_hist[key]
        if n:
            _add_flag_events(counts, players, key & 0xFF, n)
            for k in range(5):
                counts[EV_TWOS + k, players] += n * ((key >> (8 + k)) & 1)
            counts[EV_THREE_SPADES, players] += n * ((key >> 13) & 1)


@njit(cache=True, inline="always")
def _add_flag_events(counts, column, f, n):
    for kind in range(N_KINDS):
        counts[kind, column] += n * ((f >> kind) & 1)
    bomb_four = (f >> FLAG_BOMB_FOUR) & 1
    bomb_dseq = (f >> FLAG_BOMB_DOUBLE_SEQUENCE) & 1
    counts[EV_BOMB_FOUR, column] += n * bomb_four
    counts[EV_BOMB_DSEQ, column] += n * bomb_dseq
    counts[EV_BOMB_ANY, column] += n * (bomb_four | bomb_dseq)


def deal_counts(seed, start, count, players, cards_per_player, enabled_mask, n_blocks, black=int(_BLACK)):
    """Event counts over deals ``start .. start+count-1``.

    Returns
    -------
    counts : int64 array, shape (N_EVENTS, players + 1)
        Row ``e`` is ``EVENTS[e]``; column ``s`` counts deals where seat ``s`` has the
        event, the last column deals where the table has it (any seat; for
        ``instant_win*`` the resolved winner). The deals are split into ``n_blocks``
        contiguous blocks run in parallel; integer sums make the result independent
        of the split and of the thread count.
    """
    plan, leaf_slot = deal_plan(players, cards_per_player)
    bounds = block_bounds(count, n_blocks)
    partial = np.zeros((len(bounds), N_EVENTS, players + 1), np.int64)
    args = (np.int64(players), np.int64(enabled_mask), np.uint64(black), plan, leaf_slot)

    def run(b0, b1):
        for b in range(b0, b1):
            lo, hi = bounds[b]
            _count_block(np.uint64(seed), np.int64(start + lo), np.int64(start + hi), *args, partial[b])

    run_blocks(run, len(bounds))
    return partial.sum(axis=0)


@njit(cache=True, nogil=True)
def _deal_rows(seed, start, players, enabled_mask, black, plan, leaf_slot, hands_out, winner_out, kind_out):
    """Hands, instant-win seat and kind of deals ``start .. start+len(hands_out)-1``."""
    slots = np.zeros(10, np.uint64)
    hands = np.zeros(5, np.uint64)
    flags = np.zeros(4, np.int64)
    for i in range(hands_out.shape[0]):
        deal_into(seed, start + i, plan, leaf_slot, slots, hands)
        for s in range(players):
            hands_out[i, s] = np.int64(hands[s])
            flags[s] = hand_flags_colour(hands[s], black)
        winner, kind = resolve_instant_win(flags, players, first_leader(hands, players), enabled_mask)
        winner_out[i] = winner
        kind_out[i] = kind


def deal_rows(seed, start, count, players, cards_per_player, enabled_mask, black=int(_BLACK)):
    """Per-deal detail for deals ``start .. start+count-1``.

    Returns
    -------
    hands : int64 array, shape (count, players)
        Each seat's hand as a 52-bit mask.
    winner, kind : int8 arrays, shape (count,)
        Instant-win seat and kind index into ``INSTANT_WIN_KINDS`` (``-1``: none).
    """
    plan, leaf_slot = deal_plan(players, cards_per_player)
    hands_out = np.zeros((count, players), np.int64)
    winner_out = np.full(count, -1, np.int8)
    kind_out = np.full(count, -1, np.int8)
    args = (np.int64(players), np.int64(enabled_mask), np.uint64(black), plan, leaf_slot)

    def run(i0, i1):
        _deal_rows(np.uint64(seed), np.int64(start + i0), *args, hands_out[i0:i1], winner_out[i0:i1],
                   kind_out[i0:i1])

    run_blocks(run, count)
    return hands_out, winner_out, kind_out
