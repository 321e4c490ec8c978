"""Addressable random numbers for the kernels.

Every game's randomness is a pure function of ``(run seed, game index)``: the key of
game ``i`` is ``game_key(seed, i)`` and its stream is SplitMix64 started at that key
(Steele, Lea & Flood 2014). The state is one ``uint64`` held in a register, so a
game can be replayed alone and results do not depend on chunking or threads.

Bounded integers use Lemire's multiply-shift on 32-bit halves with rejection, so
they are exactly uniform.

All functions are ``@njit`` and take/return ``np.uint64``; callers thread the state
through explicitly::

    state = game_key(seed, index)
    state, r = next_u64(state)
    state, k = randbelow(state, 52)      # k in [0, 52)
"""
import numpy as np
from numba import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_LOW32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
#: Mixed into the seed so that ``seed=0, index=0`` is not the all-zero key.
_SEED_SALT = np.uint64(0x6A09E667F3BCC909)


@njit(cache=True, forceinline=True)
def mix64(z):
    """SplitMix64 finaliser: a bijective avalanche of one ``uint64``."""
    z = np.uint64(z)
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True, forceinline=True)
def game_key(seed, index):
    """Initial RNG state of game ``index`` of the run with ``seed`` (both < 2**64)."""
    return mix64(mix64(np.uint64(seed) ^ _SEED_SALT) + np.uint64(index) * GOLDEN)


#: Salt of the search stream: a search policy's own randomness (determinizations,
#: rollouts) must not shift the game's stream, so that the deal, the stock and the
#: other seats' random choices stay the same whatever the seats' policies.
_SEARCH_SALT = np.uint64(0xBB67AE8584CAA73B)


@njit(cache=True, forceinline=True)
def search_key(seed, index):
    """Initial state of the search stream of game ``index`` (independent of :func:`game_key`)."""
    return mix64(game_key(seed, index) ^ _SEARCH_SALT)


@njit(cache=True, forceinline=True)
def next_u64(state):
    """Advance the SplitMix64 stream. Returns ``(new_state, 64 random bits)``."""
    state = np.uint64(state) + GOLDEN
    return state, mix64(state)


@njit(cache=True, forceinline=True)
def randbelow(state, n):
    """Exactly uniform integer in ``[0, n)`` for ``1 <= n < 2**32``.

    Returns ``(new_state, value)``. Uses the high 32 bits of each 64-bit draw
    (Lemire 2019, with the rare rejection step).
    """
    nn = np.uint64(n)
    state, r = next_u64(state)
    m = (r >> _S32) * nn
    low = m & _LOW32
    if low < nn:
        threshold = (_TWO32 - nn) % nn
        while low < threshold:
            state, r = next_u64(state)
            m = (r >> _S32) * nn
            low = m & _LOW32
    return state, np.int64(m >> _S32)


#: Largest product of bounds drawn from one 32-bit word (rejection chance <= 2**-6).
_BATCH_LIMIT = np.uint64(1 << 26)


@njit(cache=True)
def shuffle_plan(n, k):
    """Batching plan for :func:`shuffle_prefix_planned` on a deck of ``n`` cards.

    Returns ``(group_sizes int64[g], products uint64[g])``: consecutive draws with
    bounds ``n-i, n-i-1, ...`` grouped while their product stays <= 2**26.
    """
    k = min(k, n - 1)  # the last position of a full shuffle is forced
    sizes = np.zeros(max(k, 1), np.int64)
    products = np.zeros(max(k, 1), np.uint64)
    g = 0
    i = 0
    while i < k:
        product = np.uint64(1)
        group = 0
        while i + group < k:
            bound = np.uint64(n - i - group)
            if product * bound > _BATCH_LIMIT:
                break
            product *= bound
            group += 1
        sizes[g] = group
        products[g] = product
        g += 1
        i += group
    return sizes[:g], products[:g]


def shuffle_plan_host(n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`shuffle_plan` computed in Python, for callers outside kernels.

    The same plan, element for element (``tests/test_rng_and_dealing.py`` compares them); a run needs
    its plan once, and compiling the kernel cost a first run about a CPU second.
    """
    k = min(k, n - 1)
    sizes, products = [], []
    i = 0
    while i < k:
        product, group = 1, 0
        while i + group < k and product * (n - i - group) <= int(_BATCH_LIMIT):
            product *= n - i - group
            group += 1
        sizes.append(group)
        products.append(product)
        i += group
    return np.array(sizes, np.int64), np.array(products, np.uint64)


@njit(cache=True, forceinline=True)
def shuffle_prefix_planned(state, deck, group_sizes, products):
    """Partial Fisher-Yates of ``deck`` following a :func:`shuffle_plan`.

    After the call ``deck[:k]`` is a uniform random ``k``-subset in random order
    (``k`` = the plan's total). Several bounded draws share one 32-bit word
    (Brackett-Rozinsky & Lemire 2024, "batched ranged random integer generation"),
    exactly uniform thanks to a rejection step on the whole batch. Returns the new
    RNG state.
    """
    n = deck.shape[0]
    buffered = False
    spare = np.uint64(0)
    i = 0
    for g in range(group_sizes.shape[0]):
        product = products[g]
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
        for j in range(group_sizes[g]):
            z = word * np.uint64(n - i)
            pick = i + np.int64(z >> _S32)
            word = z & _LOW32
            tmp = deck[i]
            deck[i] = deck[pick]
            deck[pick] = tmp
            i += 1
    return state


@njit(cache=True)
def shuffle_prefix(state, deck, k):
    """Partial Fisher-Yates: make ``deck[:k]`` a uniform random ``k``-subset in random order.

    Convenience wrapper computing the plan each call; hot loops should compute
    :func:`shuffle_plan` once and call :func:`shuffle_prefix_planned`.
    """
    sizes, products = shuffle_plan(deck.shape[0], k)
    return shuffle_prefix_planned(state, deck, sizes, products)
