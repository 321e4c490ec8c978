"""Tứ Sắc policies (random, heuristic): each a ``choose`` function of a decision and an RNG
state, called by the engine through :func:`choose` (the search policy is in :mod:`.search`).

Decisions
---------
``DEC_TAKE``: take an exposed card with one of ``n`` meld options (``okind``, ``opts``,
``orev`` from :mod:`.claims`) or decline (-1, when ``allow_decline``); the choice is the
option index or -1. ``DEC_DISCARD``: a legal type to discard, or -1 when there is none.
Wins are not decisions: every policy claims a win (the objective's best outcome).

* random: uniform among the legal choices; a forced choice draws no random number.
* heuristic: values a hidden hand as ``-10 * trash + concealed score`` (trash = cards in no
  meld in the best decomposition, :mod:`.melds`); each take option is valued after the
  meld and its best discard plus the meld's taken points, declining as the current hand;
  it takes when an option is at least as good as declining and discards its least useful
  card (least trash, then most points, then the lowest type). Draws no random numbers.
* learned: the heuristic's decisions scored by a linear function ``w . features`` of what
  each leaves (:data:`FEATURES`; take and discard have their own weights); with
  :data:`.learned.HEURISTIC_WEIGHTS` it is the heuristic, bit for bit. It also sees the
  public cards (discards and tables: how many copies of a discarded type are still
  unseen). Weights from ``cardsim train tusac`` (:mod:`.train`). Draws no random numbers.

A new policy is one ``choose``-style function and one line in :func:`choose`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.primitives.rng import randbelow
from cardsim.simcore.tusac.cards import N_TYPES
from cardsim.simcore.tusac.melds import TYPE_PART, TYPE_POS, part_state

POLICIES = ("random", "heuristic", "search", "learned")
POL_RANDOM, POL_HEURISTIC, POL_SEARCH, POL_LEARNED = range(4)
DEC_TAKE, DEC_DISCARD = 0, 1
#: Weight of one trash card against one point in the heuristic's hand value.
HEUR_TRASH = 10
_POW5 = np.array([1, 5, 25, 125], np.int64)


@njit(cache=True, inline="always")
def legal_discard(h, locked, k):
    """May type ``k`` be discarded (held, not a General, not part of a locked triple)?"""
    return h[k] > 0 and k % 7 != 0 and not (((locked >> k) & 1) != 0 and h[k] == 3)


@njit(cache=True)
def count_discards(h, locked):
    """Number of legal discard types of hand ``h``."""
    n = 0
    for k in range(N_TYPES):
        if legal_discard(h, locked, k):
            n += 1
    return n


@njit(cache=True, forceinline=True)
def part_states(h, locked, trash_tab, score_tab, idx):
    """Each of the 9 parts' states of hand ``h`` into ``idx[9]``; returns the hand's ``(trash, score)``."""
    tr = 0
    sc = 0
    for p in range(9):
        idx[p] = part_state(h, locked, p)
        tr += trash_tab[idx[p]]
        sc += score_tab[idx[p]]
    return tr, sc


@njit(cache=True, forceinline=True)
def after_discard(k, idx, tr, sc, trash_tab, score_tab):
    """``(trash, score)`` of the hand of :func:`part_states` less one card of type ``k``
    (a discard changes one part's state)."""
    p = TYPE_PART[k]
    i2 = idx[p] - _POW5[TYPE_POS[k]]
    return tr - trash_tab[idx[p]] + trash_tab[i2], sc - score_tab[idx[p]] + score_tab[i2]


@njit(cache=True)
def discard_values(h, locked, trash_tab, score_tab, values):
    """Heuristic value ``-10 * trash + score`` after discarding each type into ``values[28]``
    (``-2**40`` for an illegal discard); returns the hand's value as it is."""
    idx = np.empty(9, np.int64)
    tr, sc = part_states(h, locked, trash_tab, score_tab, idx)
    for k in range(N_TYPES):
        values[k] = -(1 << 40)
        if legal_discard(h, locked, k):
            t2, s2 = after_discard(k, idx, tr, sc, trash_tab, score_tab)
            values[k] = -HEUR_TRASH * t2 + s2
    return -HEUR_TRASH * tr + sc


@njit(cache=True)
def best_discard(h, locked, trash_tab, score_tab):
    """Heuristic discard: ``(type or -1, trash after, score after)``; least trash, then
    most points, then lowest type. Without a legal discard: ``(-1, trash, score)``."""
    idx = np.empty(9, np.int64)
    tr, sc = part_states(h, locked, trash_tab, score_tab, idx)
    bk = -1
    bt = 0
    bs = 0
    for k in range(N_TYPES):
        if not legal_discard(h, locked, k):
            continue
        t2, s2 = after_discard(k, idx, tr, sc, trash_tab, score_tab)
        if bk < 0 or t2 < bt or (t2 == bt and s2 > bs):
            bk = k
            bt = t2
            bs = s2
    if bk < 0:
        return -1, tr, sc
    return bk, bt, bs


@njit(cache=True)
def hand_value(h, locked, trash_tab, score_tab):
    """The heuristic's value of a hidden hand: ``-10 * trash + concealed score``."""
    tr = 0
    sc = 0
    for p in range(9):
        i = part_state(h, locked, p)
        tr += trash_tab[i]
        sc += score_tab[i]
    return -HEUR_TRASH * tr + sc


@njit(cache=True)
def take_value(h, locked, i, opts, orev, trash_tab, score_tab):
    """The heuristic's value of take option ``i``: the hand after the meld and its best
    discard, plus the meld's taken points."""
    for j in range(3):
        if orev[i, j] >= 0:
            h[orev[i, j]] -= 1
    k, t2, s2 = best_discard(h, locked, trash_tab, score_tab)
    for j in range(3):
        if orev[i, j] >= 0:
            h[orev[i, j]] += 1
    return -HEUR_TRASH * t2 + s2 + opts[i]


@njit(cache=True, inline="always")
def random_choose(kind, h, locked, nopt, okind, opts, orev, allow_decline, state):
    """Uniform among the legal choices. Returns ``(choice, state)``."""
    if kind == DEC_TAKE:
        n = nopt + (1 if allow_decline else 0)
        if n == 0:
            return -1, state
        if n == 1:
            return (0 if nopt else -1), state
        state, r = randbelow(state, n)
        return (r if r < nopt else -1), state
    n = count_discards(h, locked)
    if n == 0:
        return -1, state
    r = 0
    if n > 1:
        state, r = randbelow(state, n)
    for k in range(N_TYPES):
        if legal_discard(h, locked, k):
            if r == 0:
                return k, state
            r -= 1
    return -1, state


@njit(cache=True, inline="always")
def heuristic_choose(kind, h, locked, nopt, okind, opts, orev, allow_decline, state, trash_tab, score_tab):
    """The heuristic's choice (see the module docstring). Returns ``(choice, state)``."""
    if kind == DEC_DISCARD:
        k, t2, s2 = best_discard(h, locked, trash_tab, score_tab)
        return k, state
    best = -1
    bv = -(1 << 40)
    if allow_decline:
        bv = hand_value(h, locked, trash_tab, score_tab)
    for i in range(nopt):
        v = take_value(h, locked, i, opts, orev, trash_tab, score_tab)
        if v >= bv if best < 0 else v > bv:
            bv = v
            best = i
    return best, state


# ----------------------------------------------------------------------------- learned
#: What a decision leaves, scored by the learned policy (the same list for a take and a
#: discard, each with its own weights: ``take_*`` then ``discard_*`` in a model file).
DECISION_FEATURES = ("trash", "score", "taken_points", "decline", "pairs", "singles", "unseen_copies")
N_DECISION_FEATURES = len(DECISION_FEATURES)
FEATURES = tuple(f"take_{f}" for f in DECISION_FEATURES) + tuple(f"discard_{f}" for f in DECISION_FEATURES)
N_FEATURES = len(FEATURES)
#: Weight of trash in the heuristic's discard as a linear score: least trash first, then points
#: (a hand's concealed score never differs by this much between two discards).
DISCARD_TRASH_WEIGHT = 1000.0


@njit(cache=True)
def _shape_counts(h):
    """``(pairs, singles)`` of a hidden hand: types held exactly twice (a taker's chances),
    and non-General types held once."""
    pairs = 0
    singles = 0
    for k in range(N_TYPES):
        if h[k] == 2:
            pairs += 1
        elif h[k] == 1 and k % 7 != 0:
            singles += 1
    return pairs, singles


@njit(cache=True)
def decision_features(h, trash, score, taken, decline, unseen, out):
    """The features of a decision that leaves hidden hand ``h`` with ``trash`` and ``score``
    into ``out[N_DECISION_FEATURES]`` (order :data:`DECISION_FEATURES`)."""
    pairs, singles = _shape_counts(h)
    out[0] = trash
    out[1] = score
    out[2] = taken
    out[3] = decline
    out[4] = pairs
    out[5] = singles
    out[6] = unseen


@njit(cache=True)
def _dot(w, off, f):
    # summed in feature order: with the heuristic's weights every term is an exact integer
    v = 0.0
    for j in range(N_DECISION_FEATURES):
        v += w[off + j] * f[j]
    return v


@njit(cache=True)
def learned_choose(kind, h, locked, nopt, okind, opts, orev, allow_decline, trash_tab, score_tab, discards, table,
                   w):
    """The learned policy's choice with weights ``w`` float64[N_FEATURES] (see the module
    docstring); the same candidates, order and ties as :func:`heuristic_choose`.

    A take option is scored on the hand after its meld and the heuristic's best discard;
    declining, on the hand as it is. A discard of type ``k`` also sees how many copies of
    ``k`` the seat has not seen (4 minus its own, the discards and every table)."""
    f = np.zeros(N_DECISION_FEATURES, np.float64)
    idx = np.empty(9, np.int64)
    if kind == DEC_DISCARD:
        best = -1
        bv = 0.0
        tr, sc = part_states(h, locked, trash_tab, score_tab, idx)
        for k in range(N_TYPES):
            if not legal_discard(h, locked, k):
                continue
            t2, s2 = after_discard(k, idx, tr, sc, trash_tab, score_tab)
            unseen = 4 - h[k] - discards[k]
            for s in range(table.shape[0]):
                unseen -= table[s, k]
            h[k] -= 1
            decision_features(h, t2, s2, 0, 0, unseen, f)
            h[k] += 1
            v = _dot(w, N_DECISION_FEATURES, f)
            if best < 0 or v > bv:
                best = k
                bv = v
        return best
    best = -1
    bv = -(1 << 40) * 1.0
    if allow_decline:
        tr, sc = part_states(h, locked, trash_tab, score_tab, idx)
        decision_features(h, tr, sc, 0, 1, 0, f)
        bv = _dot(w, 0, f)
    for i in range(nopt):
        for j in range(3):
            if orev[i, j] >= 0:
                h[orev[i, j]] -= 1
        k, t2, s2 = best_discard(h, locked, trash_tab, score_tab)
        if k >= 0:
            h[k] -= 1
        decision_features(h, t2, s2, opts[i], 0, 0, f)
        if k >= 0:
            h[k] += 1
        for j in range(3):
            if orev[i, j] >= 0:
                h[orev[i, j]] += 1
        v = _dot(w, 0, f)
        if v >= bv if best < 0 else v > bv:
            bv = v
            best = i
    return best


@njit(cache=True)
def choose(pol, kind, h, locked, nopt, okind, opts, orev, allow_decline, state, trash_tab, score_tab, discards,
           table, wts, seat):
    """The one dispatch from the engine to a policy: ``(choice, state)`` of seat ``seat``
    playing policy ``pol``.

    ``POL_SEARCH`` is resolved by the engine's driver (it needs the whole game state);
    here, for a seat whose choice is forced, it falls back to the heuristic. ``wts``: the
    learned seats' weights float64[players, N_FEATURES], or None when no seat is learned
    (numba then compiles the learned policy out).
    """
    if pol == POL_RANDOM:
        return random_choose(kind, h, locked, nopt, okind, opts, orev, allow_decline, state)
    if wts is not None and pol == POL_LEARNED:
        return learned_choose(kind, h, locked, nopt, okind, opts, orev, allow_decline, trash_tab, score_tab,
                              discards, table, wts[seat]), state
    return heuristic_choose(kind, h, locked, nopt, okind, opts, orev, allow_decline, state, trash_tab,
                            score_tab)
