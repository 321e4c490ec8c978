"""Exact meld engine for Tứ Sắc hands.

Melds (spec table; points concealed / made with the taken card):

========================  ===========================================  ===========
General                   any single General                           1 / 1
Pair                      2 identical (not Generals: 2 Generals score  0 / 0
                          as two single Generals; Soldiers only with
                          ``soldier_pairs``)
Triple                    3 identical                                  3 / 1
Quadruple                 4 identical                                  8 / 6
Command group             General + Advisor + Elephant, one colour     ``command_points``
Field group               Chariot + Horse + Cannon, one colour         ``field_points``
Three-colour soldiers     3 Soldiers of 3 colours                      ``three_colour``
Full-colour soldiers      4 Soldiers, one per colour                   ``full_colour``
========================  ===========================================  ===========

Why it is exact and fast
------------------------
Every meld lies inside one of nine disjoint *parts* of the 28 types: the command family
``{General, Advisor, Elephant}`` of each colour, the field family ``{Chariot, Horse,
Cannon}`` of each colour, and the four Soldiers (the only cross-colour melds). So a
decomposition of a hand is a decomposition of each part, and both objectives used here
are additive over parts:

- *trash* (cards in no meld) is minimised part by part, and among the
  minimum-trash decompositions the score is maximised part by part (lexicographic
  optimum of a sum of independent terms = sum of the per-part optima);
- a hand is fully meldable iff every part has trash 0; its best score is the sum.

A part has at most ``5**4`` count states (x lock bits), so :func:`meld_tables`
solves *every* part state once, by exhaustive memoised search over the part's melds
(no greedy choice), and a hand is then evaluated with 9 table look-ups
(:func:`meld_eval`, ``@njit``): tens of millions of hands per second.

``trio_lock``: a dealt triple may not be split. Pass ``locked``, a bitmask over the
28 types (bit ``t``: the hand's 3 copies of type ``t`` are a dealt triple). A locked
type holding >= 3 hidden copies keeps 3 of them together as a triple, or as a
quadruple with the 4th copy; a 4th copy is otherwise free. A lock on a type with
fewer than 3 hidden copies is ignored (the triple has left the hand).

Winning with a taken card (:func:`win_score`): exactly one meld contains the taken
card and scores the "taken" value; every hidden card must be melded (concealed
values). A locked triple may join the taken card only as a quadruple.

Tables are built per point configuration ``points = (command, field, three_colour,
full_colour, soldier_pairs)`` (``TuSacRules.points()``) and cached.
"""
from __future__ import annotations

import functools
import itertools
import sys
from typing import NamedTuple

import numpy as np
from numba import njit

from cardsim.simcore.framework.exact_cache import cached_arrays
from cardsim.simcore.tusac import cards as _cards
from cardsim.simcore.tusac.cards import N_COLOURS, N_TYPES, SOLDIER, type_id

DEFAULT_POINTS = (2, 1, 1, 4, True)

# Part layout in the flat tables.
CMD, FIELD, SOLDIERS = 0, 1, 2
PART_SIZES = (3, 3, 4)
#: The code the cached tables depend on (an edit makes a new cache file).
_TABLE_SOURCES = (sys.modules[__name__], _cards)
#: States per part kind: counts in base 5, then one lock bit per type.
PART_STATES = (125 * 8, 125 * 8, 625 * 16)
PART_OFFSET = (0, PART_STATES[0], PART_STATES[0] + PART_STATES[1])
N_STATES = sum(PART_STATES)
IMPOSSIBLE = -1

#: Types of the 9 parts (rows; -1 pads the 3-type parts): 4 command, 4 field, soldiers.
PART_TYPES = np.array(
    [[type_id(c, k) for k in (0, 1, 2)] + [-1] for c in range(N_COLOURS)]
    + [[type_id(c, k) for k in (3, 4, 5)] + [-1] for c in range(N_COLOURS)]
    + [[type_id(c, SOLDIER) for c in range(N_COLOURS)]],
    np.int64,
)
PART_KIND = np.array([CMD] * 4 + [FIELD] * 4 + [SOLDIERS], np.int64)
#: Part (row of PART_TYPES) and position in the part of each type.
TYPE_PART = np.zeros(N_TYPES, np.int64)
TYPE_POS = np.zeros(N_TYPES, np.int64)
for _p in range(PART_TYPES.shape[0]):
    for _j in range(4):
        if PART_TYPES[_p, _j] >= 0:
            TYPE_PART[PART_TYPES[_p, _j]] = _p
            TYPE_POS[PART_TYPES[_p, _j]] = _j

MELD_NAMES = ("general", "pair", "triple", "quadruple", "command", "field",
              "three_colour_soldiers", "full_colour_soldiers")


class MeldTables(NamedTuple):
    """Per-part optima, indexed by ``PART_OFFSET[kind] + state`` (see :func:`part_state`).

    trash : int8   minimum number of unmelded cards of the part state
    score : int16  best concealed score among the minimum-trash decompositions
    win : int16, shape (N_STATES, 4)
        ``win[state, j]``: best score of the part when a taken card of the part's
        ``j``-th type joins its hidden cards and all of them get melded (-1: impossible).
    """

    trash: np.ndarray
    score: np.ndarray
    win: np.ndarray


# ----------------------------------------------------------------------------- tables

def part_melds(kind: int, points=DEFAULT_POINTS) -> list[tuple[tuple[int, ...], int, int, str]]:
    """Melds of a part kind: ``(count vector, concealed points, taken points, name)``."""
    command, field, three_colour, full_colour, soldier_pairs = points
    size = PART_SIZES[kind]
    melds = []

    def unit(j, k):
        return tuple(k if i == j else 0 for i in range(size))

    for j in range(size):
        is_general = kind == CMD and j == 0
        if is_general:
            melds.append((unit(j, 1), 1, 1, "general"))
        elif kind != SOLDIERS or soldier_pairs:
            melds.append((unit(j, 2), 0, 0, "pair"))
        melds.append((unit(j, 3), 3, 1, "triple"))
        melds.append((unit(j, 4), 8, 6, "quadruple"))
    if kind == CMD:
        melds.append(((1, 1, 1), command, command, "command"))
    elif kind == FIELD:
        melds.append(((1, 1, 1), field, field, "field"))
    else:
        for missing in range(4):
            melds.append((tuple(0 if i == missing else 1 for i in range(4)), three_colour, three_colour,
                          "three_colour_soldiers"))
        melds.append(((1, 1, 1, 1), full_colour, full_colour, "full_colour_soldiers"))
    return melds


def _encode(counts, lock) -> int:
    idx = 0
    for i, c in enumerate(counts):
        idx += c * 5**i
    return idx + 5 ** len(counts) * lock


class _PartSolver:
    """Exhaustive memoised search over one part kind's melds."""

    def __init__(self, kind: int, points):
        self.kind = kind
        self.size = PART_SIZES[kind]
        self.melds = part_melds(kind, points)

    @functools.lru_cache(maxsize=None)
    def free(self, counts: tuple[int, ...]) -> tuple[int, int]:
        """``(min trash, best score)`` of unlocked counts (lexicographic optimum)."""
        nz = [i for i, c in enumerate(counts) if c]
        if not nz:
            return 0, 0
        i = nz[0]
        rest = list(counts)
        rest[i] -= 1
        t, s = self.free(tuple(rest))
        best = (t + 1, s)
        for vec, pts, _, _ in self.melds:
            if vec[i] and all(v <= c for v, c in zip(vec, counts)):
                t, s = self.free(tuple(c - v for c, v in zip(counts, vec)))
                if (t, -(s + pts)) < (best[0], -best[1]):
                    best = (t, s + pts)
        return best

    @functools.lru_cache(maxsize=None)
    def locked(self, counts: tuple[int, ...], lock: int) -> tuple[int, int]:
        """Like :meth:`free`, the locked types (>= 3 copies) kept as a triple or quadruple."""
        locked = [i for i in range(self.size) if lock >> i & 1 and counts[i] >= 3]
        if not locked:
            return self.free(counts)
        best = None
        options = [[(3, 3)] + ([(4, 8)] if counts[i] == 4 else []) for i in locked]
        for choice in itertools.product(*options):
            rest = list(counts)
            pts = 0
            for i, (k, p) in zip(locked, choice):
                rest[i] -= k
                pts += p
            t, s = self.free(tuple(rest))
            if best is None or (t, -(s + pts)) < (best[0], -best[1]):
                best = (t, s + pts)
        return best

    def win(self, counts: tuple[int, ...], lock: int, j: int) -> int:
        """Best score when a taken card of type ``j`` joins ``counts`` and all are melded (-1: none)."""
        if counts[j] >= 4:
            return IMPOSSIBLE
        best = IMPOSSIBLE
        for vec, _, taken_pts, _ in self.melds:
            if not vec[j]:
                continue
            hidden = list(vec)
            hidden[j] -= 1
            if any(h > c for h, c in zip(hidden, counts)):
                continue
            ok = True
            rest_lock = lock
            for k in range(self.size):
                if lock >> k & 1 and counts[k] >= 3:
                    if k == j and hidden[k] == 3:  # the locked triple + the taken card: a quadruple
                        rest_lock &= ~(1 << k)
                    elif hidden[k] > counts[k] - 3:  # would split the locked triple
                        ok = False
            if not ok:
                continue
            rest = tuple(c - h for c, h in zip(counts, hidden))
            t, s = self.locked(rest, rest_lock)
            if t == 0:
                best = max(best, s + taken_pts)
        return best


def meld_tables(points=DEFAULT_POINTS) -> MeldTables:
    """Solve every part state for a point configuration (``TuSacRules.points()``); cached.

    ``points = (command, field, three_colour, full_colour, soldier_pairs)``. About 0.7 s
    the first time per configuration (plain Python), then free.
    """
    command, field, three, full, pairs = points
    return _meld_tables((int(command), int(field), int(three), int(full), bool(pairs)))


@functools.lru_cache(maxsize=None)
def _meld_tables(points) -> MeldTables:
    # built in plain Python (about 2 s): kept in cardsim's cache folder between runs
    arrays = cached_arrays("tusac-meld-tables", repr(points), _TABLE_SOURCES, ("trash", "score", "win"),
                           lambda: _build_meld_tables(points))
    return MeldTables(arrays["trash"], arrays["score"], arrays["win"])


def _build_meld_tables(points) -> dict:
    trash = np.zeros(N_STATES, np.int8)
    score = np.zeros(N_STATES, np.int16)
    win = np.full((N_STATES, 4), IMPOSSIBLE, np.int16)
    for kind in (CMD, FIELD, SOLDIERS):
        solver = _PartSolver(kind, points)
        size = PART_SIZES[kind]
        for counts in itertools.product(range(5), repeat=size):
            for lock in range(1 << size):
                idx = PART_OFFSET[kind] + _encode(counts, lock)
                trash[idx], score[idx] = solver.locked(counts, lock)
                for j in range(size):
                    win[idx, j] = solver.win(counts, lock, j)
    return {"trash": trash, "score": score, "win": win}


def tables_for(rules) -> MeldTables:
    """:func:`meld_tables` of a ``TuSacRules``."""
    return meld_tables(rules.points())


# ----------------------------------------------------------------------------- kernels

@njit(cache=True, inline="always")
def part_state(counts, locked, p):
    """Flat table index of part ``p`` (row of ``PART_TYPES``) of a hand."""
    idx = 0
    lock = 0
    mult = 1
    n = 3 if p < 8 else 4
    for j in range(n):
        t = PART_TYPES[p, j]
        idx += np.int64(counts[t]) * mult
        lock |= ((locked >> t) & 1) << j
        mult *= 5
    kind = PART_KIND[p]
    off = 0 if kind == CMD else (PART_STATES[0] if kind == FIELD else PART_STATES[0] + PART_STATES[1])
    return off + idx + mult * lock


@njit(cache=True)
def meld_eval(counts, locked, trash_tab, score_tab):
    """``(trash, score)`` of a hidden hand.

    ``counts``: 28 type counts; ``locked``: bitmask of dealt-triple types (``trio_lock``;
    0 when off). ``trash`` is the minimum number of cards in no meld; ``score`` the best
    concealed score among decompositions achieving it (so when ``trash == 0``, the best
    score of a full decomposition).
    """
    trash = 0
    score = 0
    for p in range(9):
        idx = part_state(counts, locked, p)
        trash += trash_tab[idx]
        score += score_tab[idx]
    return trash, score


@njit(cache=True)
def can_meld_all(counts, locked, trash_tab):
    """True when every hidden card can be put in a meld (an empty hand can)."""
    for p in range(9):
        if trash_tab[part_state(counts, locked, p)]:
            return False
    return True


@njit(cache=True)
def best_score(counts, locked, trash_tab, score_tab):
    """Best concealed score of a full decomposition, or -1 when there is none."""
    trash, score = meld_eval(counts, locked, trash_tab, score_tab)
    return score if trash == 0 else -1


@njit(cache=True)
def win_score(counts, taken, locked, trash_tab, score_tab, win_tab):
    """Best score of a win by taking a card of type ``taken`` into hidden ``counts``, or -1.

    The meld holding the taken card scores its taken value, all hidden cards are
    melded (concealed values). Exposed melds from earlier turns are not included.
    """
    tp = TYPE_PART[taken]
    score = 0
    for p in range(9):
        idx = part_state(counts, locked, p)
        if p == tp:
            w = win_tab[idx, TYPE_POS[taken]]
            if w < 0:
                return -1
            score += w
        else:
            if trash_tab[idx]:
                return -1
            score += score_tab[idx]
    return score


@njit(cache=True)
def meld_eval_many(hands, locked, trash_tab, score_tab):
    """:func:`meld_eval` of each row of ``hands`` (int8[n, 28]); ``locked`` int64[n]."""
    n = hands.shape[0]
    trash = np.empty(n, np.int64)
    score = np.empty(n, np.int64)
    for i in range(n):
        trash[i], score[i] = meld_eval(hands[i], locked[i], trash_tab, score_tab)
    return trash, score


@njit(cache=True)
def triple_mask(counts):
    """``locked`` mask of a dealt hand under ``trio_lock``: bit ``t`` when type ``t`` is held
    exactly 3 times (from the deal kernel's bit planes it is ``ge3 & ~eq4``)."""
    m = np.int64(0)
    for t in range(N_TYPES):
        if counts[t] == 3:
            m |= np.int64(1) << t
    return m


# ----------------------------------------------------------------------------- Python helpers

def locked_mask(types) -> int:
    """Bitmask of type ids (for ``locked``)."""
    m = 0
    for t in types:
        m |= 1 << int(t)
    return m


def dealt_triples(counts) -> int:
    """``locked`` mask of a dealt hand under ``trio_lock``: the types held exactly 3 times."""
    return locked_mask(t for t in range(N_TYPES) if counts[t] == 3)


def evaluate(counts, points=DEFAULT_POINTS, locked: int = 0) -> tuple[int, int]:
    """``(trash, score)`` of a hand given as 28 counts (Python convenience)."""
    tabs = meld_tables(tuple(points))
    t, s = meld_eval(np.asarray(counts, np.int8), np.int64(locked), tabs.trash, tabs.score)
    return int(t), int(s)


def decompose(counts, points=DEFAULT_POINTS, locked: int = 0) -> tuple[int, int, list[tuple[str, list[int]]]]:
    """An optimal decomposition: ``(trash, score, [(meld name, [type ids])...])``.

    Unmelded cards appear as ``("trash", [t])``. Same optimum as :func:`meld_eval`.
    """
    points = tuple(points)
    out: list[tuple[str, list[int]]] = []
    total_t = total_s = 0
    for p in range(PART_TYPES.shape[0]):
        kind = int(PART_KIND[p])
        types = [int(t) for t in PART_TYPES[p] if t >= 0]
        solver = _solver(kind, points)
        part = tuple(int(counts[t]) for t in types)
        lock = sum(1 << j for j, t in enumerate(types) if locked >> t & 1)
        t, s = solver.locked(part, lock)
        total_t += t
        total_s += s
        out.extend(_reconstruct(solver, part, lock, types, (t, s)))
    return total_t, total_s, out


@functools.lru_cache(maxsize=None)
def _solver(kind, points):
    return _PartSolver(kind, points)


def _reconstruct(solver, counts, lock, types, target):
    melds = []
    locked = [i for i in range(solver.size) if lock >> i & 1 and counts[i] >= 3]
    options = [[(3, 3, "triple")] + ([(4, 8, "quadruple")] if counts[i] == 4 else []) for i in locked]
    for choice in itertools.product(*options):
        rest = list(counts)
        pts = 0
        for i, (k, p, _) in zip(locked, choice):
            rest[i] -= k
            pts += p
        t, s = solver.free(tuple(rest))
        if (t, s + pts) == target:
            melds = [(name, [types[i]] * k) for i, (k, _, name) in zip(locked, choice)]
            counts = tuple(rest)
            target = (t, s)
            break
    while any(counts):
        i = next(k for k, c in enumerate(counts) if c)
        rest = list(counts)
        rest[i] -= 1
        t, s = solver.free(tuple(rest))
        if (t + 1, s) == target:
            melds.append(("trash", [types[i]]))
            counts, target = tuple(rest), (t, s)
            continue
        for vec, pts, _, name in solver.melds:
            if vec[i] and all(v <= c for v, c in zip(vec, counts)):
                rest = tuple(c - v for c, v in zip(counts, vec))
                t, s = solver.free(rest)
                if (t, s + pts) == target:
                    melds.append((name, [types[k] for k in range(solver.size) for _ in range(vec[k])]))
                    counts, target = rest, (t, s)
                    break
        else:  # pragma: no cover
            raise AssertionError("reconstruction failed")
    return melds


# ----------------------------------------------------------------------------- meld kinds

def kind_tables(points=DEFAULT_POINTS) -> np.ndarray:
    """``int8[N_STATES, 8]``: meld counts (``MELD_NAMES`` order) of one optimal full
    decomposition of each part state (the one :func:`decompose` gives); zeros where the
    state has trash. Cached per point configuration (about 1 s the first time)."""
    command, field, three, full, pairs = points
    return _kind_tables((int(command), int(field), int(three), int(full), bool(pairs)))


@functools.lru_cache(maxsize=None)
def _kind_tables(points) -> np.ndarray:
    return cached_arrays("tusac-kind-tables", repr(points), _TABLE_SOURCES, ("kinds",),
                         lambda: {"kinds": _build_kind_tables(points)})["kinds"]


def _build_kind_tables(points) -> np.ndarray:
    out = np.zeros((N_STATES, len(MELD_NAMES)), np.int8)
    for kind in (CMD, FIELD, SOLDIERS):
        solver = _solver(kind, points)
        size = PART_SIZES[kind]
        types = list(range(size))
        for counts in itertools.product(range(5), repeat=size):
            for lock in range(1 << size):
                target = solver.locked(counts, lock)
                if target[0]:
                    continue
                idx = PART_OFFSET[kind] + _encode(counts, lock)
                for name, _ in _reconstruct(solver, counts, lock, types, target):
                    out[idx, MELD_NAMES.index(name)] += 1
    return out
