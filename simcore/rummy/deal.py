"""Deal kernel shared by Loba and Continental (is the contract in the dealt hand?) and the stock draw of play.

Deal ``i`` of a run covers every round (hand) of a game; round ``r`` (of ``R``) is an
independent deal whose RNG stream is ``game_key(seed, i * R + r)``, so any round of any
deal can be replayed alone and counts do not depend on chunking or threads.

Layout of round ``r``'s shuffled pack (``H`` cards each, ``P`` players, ``K`` draws),
a partial Fisher-Yates (:func:`simcore.primitives.rng.shuffle_prefix_planned`) of the two-deck
pack, only as deep as needed:

- seat ``s`` holds ``deck[s*H : (s+1)*H]``;
- ``deck[P*H]`` is turned up to start the discard pile;
- the stock follows; as in play (:mod:`cardsim.simcore.rummy.play`) seat ``f = r % P`` plays
  first in round ``r``, so seat ``s``'s ``t``-th draw (``t = 0..K-1``) is
  ``deck[P*H + 1 + t*P + (s - f) % P]``: stock cards taken in turn order, every player drawing
  from the stock, nobody taking a discard, no claims, no reshuffle. This is the
  simplification behind the ``*_after_K`` events (the seat's hand plus its first K
  stock draws, ignoring its own discards: "could the contract be formed from these
  H + K cards").
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.primitives.blocks import block_bounds, run_blocks
from cardsim.simcore.primitives.rng import game_key, randbelow, shuffle_plan_host, shuffle_prefix_planned
from cardsim.simcore.rummy.cards import add_card, make_deck
from cardsim.simcore.rummy.melds import contract_ok

#: Parallel blocks per chunk; any value gives the same counts.
BLOCKS_PER_CHUNK = 64


def prefix_length(players: int, cards: int, draws: int) -> int:
    """Cards of the pack a round needs: the hands, the up-card and ``draws`` rounds of stock draws."""
    return players * cards + 1 + draws * players


def round_plans(deck_size: int, players: int, round_cards, draws: int):
    """Shuffle plans of every round, padded: ``(sizes[R, G], products[R, G], lengths[R])``."""
    plans = [shuffle_plan_host(deck_size, prefix_length(players, h, draws)) for h in round_cards]
    g = max(len(p[0]) for p in plans)
    sizes = np.zeros((len(plans), g), np.int64)
    products = np.ones((len(plans), g), np.uint64)
    lengths = np.zeros(len(plans), np.int64)
    for r, (s, p) in enumerate(plans):
        sizes[r, : len(s)] = s
        products[r, : len(p)] = p
        lengths[r] = len(s)
    return sizes, products, lengths


@njit(cache=True, forceinline=True)
def shuffle_round(seed, index, r, n_rounds, deck, deck_base, sizes, products, lengths):
    """Shuffle round ``r`` of deal ``index`` into ``deck`` (a copy of ``deck_base``)."""
    deck[:] = deck_base
    state = game_key(seed, index * n_rounds + r)
    g = lengths[r]
    return shuffle_prefix_planned(state, deck, sizes[r, :g], products[r, :g])


@njit(cache=True, forceinline=True)
def hand_of(deck, lo, hi):
    a1 = np.uint64(0)
    a2 = np.uint64(0)
    j = 0
    for c in range(lo, hi):
        a1, a2, j = add_card(a1, a2, j, np.int64(deck[c]))
    return a1, a2, j


@njit(cache=True, nogil=True)
def _count_block(seed, start, stop, players, n_rounds, rk, rm, rh, draws, deck_base, sizes, products, lengths,
                 mp, counts):
    """Add counts of deals ``start..stop-1`` into ``counts[R, 2, players + 1]``."""
    deck = deck_base.copy()
    for i in range(start, stop):
        for r in range(n_rounds):
            shuffle_round(seed, i, r, n_rounds, deck, deck_base, sizes, products, lengths)
            h = rh[r]
            any0 = 0
            any1 = 0
            for s in range(players):
                a1, a2, j = hand_of(deck, s * h, (s + 1) * h)
                ok = contract_ok(a1, a2, j, rk[r], rm[r], mp)
                if ok:
                    counts[r, 0, s] += 1
                    any0 = 1
                if draws > 0:
                    if not ok:
                        base = players * h + 1 + (s - r % players) % players  # seat r % P draws first
                        for t in range(draws):
                            a1, a2, j = add_card(a1, a2, j, np.int64(deck[base + t * players]))
                        ok = contract_ok(a1, a2, j, rk[r], rm[r], mp)
                    if ok:
                        counts[r, 1, s] += 1
                        any1 = 1
            counts[r, 0, players] += any0
            counts[r, 1, players] += any1


def deal_counts(seed, start, count, players, rounds, draws, deck_jokers, mp, n_blocks=BLOCKS_PER_CHUNK):
    """Contract counts over deals ``start .. start+count-1``.

    Parameters
    ----------
    rounds : list of ``(k tríos, m escaleras, cards dealt)``
    draws : int
        ``K`` for the ``after_K`` counts (0: not computed, row 1 stays 0).
    mp : tuple
        Meld rules (see :mod:`simcore.rummy.melds`).

    Returns
    -------
    counts : int64 array, shape (R, 2, players + 1)
        ``[r, 0, s]``: deals where seat ``s`` holds round ``r``'s contract as dealt;
        ``[r, 1, s]``: with its first ``draws`` stock cards; column ``players``: any seat.
    """
    deck_base = make_deck(deck_jokers)
    rk = np.array([k for k, _, _ in rounds], np.int64)
    rm = np.array([m for _, m, _ in rounds], np.int64)
    rh = np.array([h for _, _, h in rounds], np.int64)
    sizes, products, lengths = round_plans(deck_base.shape[0], players, rh, draws)
    mp = tuple(int(x) for x in mp)
    bounds = block_bounds(count, n_blocks)
    partial = np.zeros((max(len(bounds), 1), len(rounds), 2, players + 1), np.int64)
    block_of = {u0: b for b, (u0, _) in enumerate(bounds)}

    def run_block(u0: int, u1: int) -> None:  # integer counts per block, summed below: any split gives the same
        _count_block(np.uint64(seed), np.int64(start + u0), np.int64(start + u1), np.int64(players),
                     np.int64(len(rounds)), rk, rm, rh, np.int64(draws), deck_base, sizes, products, lengths, mp,
                     partial[block_of[u0]])

    run_blocks(run_block, count, len(bounds))
    return partial.sum(axis=0)


@njit(cache=True)
def _shuffled(seed, index, r, n_rounds, deck_base, sizes, products, lengths):
    deck = deck_base.copy()
    shuffle_round(seed, index, r, n_rounds, deck, deck_base, sizes, products, lengths)
    return deck


def shuffled_round(seed, index, r, players, rounds, draws, deck_jokers) -> np.ndarray:
    """The whole shuffled pack of round ``r`` of deal ``index`` (for replay and tests)."""
    deck_base = make_deck(deck_jokers)
    rh = np.array([h for _, _, h in rounds], np.int64)
    sizes, products, lengths = round_plans(deck_base.shape[0], players, rh, draws)
    return _shuffled(np.uint64(seed), index, r, len(rounds), deck_base, sizes, products, lengths)


@njit(cache=True, forceinline=False)
def draw_stock(deck, sp, pile, npile, state):
    """Top of the stock (``deck[sp:]``, taken from ``sp`` upwards) in play; when the stock is empty the
    pile minus its top is shuffled (stream ``state``) into a new stock. Returns ``(card or -1, sp,
    npile, state, reshuffled)``."""
    D = deck.shape[0]
    resh = 0
    if sp >= D:
        if npile <= 1:
            return -1, sp, npile, state, 0
        n = npile - 1
        sp = D - n
        for i in range(n):
            deck[sp + i] = pile[i]
        for i in range(n - 1):  # Fisher-Yates on deck[sp:]
            state, k = randbelow(state, n - i)
            t = deck[sp + i]
            deck[sp + i] = deck[sp + i + k]
            deck[sp + i + k] = t
        pile[0] = pile[npile - 1]
        npile = 1
        resh = 1
    c = np.int64(deck[sp])
    deck[sp] = -1
    return c, sp + 1, npile, state, resh
