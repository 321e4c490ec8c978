"""Charlesworth's published Big Two PPO network as a seat (``bigtwo-ppo:FILE``).

The network (H. Charlesworth, "Application of self-play reinforcement learning to a
four-player game of imperfect information", arXiv:1808.10442, 2018; repository
``henrycharlesworth/big2_PPOalgorithm``) reads a 412-number description of the state of
the seat to move and scores 1695 actions. The repository has no licence: no weights and no
code of it are here. This module is written from its documented layout (see
``docs/bigtwo-ppo.md``); the user supplies the parameter file (``modelParameters136500``
in that repository).

Parts
-----
:func:`load_parameters`
    reads the parameter file, a pickle, with an unpickler that rebuilds NumPy arrays and
    nothing else (anything else: one-line :class:`~cardsim.ConfigError`, nothing run).
:class:`BigTwoView` and :func:`encode`
    the state as the seat knows it, independent of any engine, and its 412 inputs.
:func:`action_index` / :func:`action_positions`
    the 1695 outputs: 13 singles, 33 pairs, 31 triples, 330 four-card hands and 1287
    five-card hands, each a set of positions in the seat's hand sorted from the lowest
    card up, and the pass (1694).
:func:`forward`, :func:`legal_mask`, :func:`choose`
    the network in NumPy and the greedy choice among the legal plays.
:func:`view_from_observation` and :class:`BigTwoPPOSeat`
    the adapter from a step-interface observation (the Tiến Lên shape:
    :meth:`cardsim.step_api.Env.observation`) and the ``fn(observation, legal_actions) ->
    int`` callable an outside seat is.

Cards are cardsim's Big Two ids: ``4 * rank + suit``, ranks 3 4 5 6 7 8 9 10 J Q K A 2
(0..12) and suits ♦ ♣ ♥ ♠ (0..3), so 3♦ = 0 and 2♠ = 51. (The original numbers cards
1..52 in the same order: its card ``n`` is our ``n - 1``.)
"""
from __future__ import annotations

import io
import math
import os
import pickle
import re
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from cardsim.simcore.framework.config import ConfigError

# ----------------------------------------------------------------------------- sizes
N_INPUTS = 412
N_ACTIONS = 1695
HIDDEN = (512, 256)
#: The parameter arrays in the file's order, with their shapes: the policy trunk
#: (fc1, fc2, pi) and the value head (fc3 on fc1's output, then vf). Every layer is
#: ``x @ w + b``; fc1, fc2 and fc3 are followed by ReLU.
PARAMETER_SHAPES = (
    ("fc1/w", (N_INPUTS, 512)), ("fc1/b", (512,)),
    ("fc2/w", (512, 256)), ("fc2/b", (256,)),
    ("pi/w", (256, N_ACTIONS)), ("pi/b", (N_ACTIONS,)),
    ("fc3/w", (512, 256)), ("fc3/b", (256,)),
    ("vf/w", (256, 1)), ("vf/b", (1,)),
)
#: The largest parameter file accepted (the published one is 3.6 MB).
MAX_FILE_BYTES = 64 << 20

# ----------------------------------------------------------------------------- input layout
#: Own hand: 13 slots of 22, slot i = the i-th lowest card (empty slots all zero).
HAND_OFFSET, HAND_SLOT = 0, 22
#: In a hand slot: rank one-hot at 0..12, suit one-hot at 13..16 (♦ ♣ ♥ ♠), then whether
#: the hand holds another card of its rank (17), two others (18), three others (19),
#: whether the card is in a run of five or more consecutive ranks of the hand (20) and
#: whether its suit has five or more cards in the hand (21).
SLOT_SUIT, SLOT_PAIR, SLOT_TRIPLE, SLOT_QUAD, SLOT_STRAIGHT, SLOT_FLUSH = 13, 17, 18, 19, 20, 21
#: The three opponents in play order after the seat: blocks of 27 at 286, 313, 340.
OPPONENT_OFFSET, OPPONENT_BLOCK = 286, 27
#: In an opponent block: cards left one-hot at 0..12 (n cards -> n - 1); the aces and twos
#: it has played at 13..20 (A♦ A♣ A♥ A♠ 2♦ 2♣ 2♥ 2♠); whether it has ever played a pair
#: (21), a triple (22), a four-card hand (23), a straight (24), a flush (25), a five-card
#: hand that is not a flush (26: the original's full-house test is always true there).
OPP_HIGH, OPP_PAIR, OPP_TRIPLE, OPP_FOUR, OPP_STRAIGHT, OPP_FLUSH, OPP_FULL = 13, 21, 22, 23, 24, 25, 26
#: Queens, kings, aces and twos played by anyone (the seat too): 16 at 367 (Q♦ = 367).
PLAYED_OFFSET, PLAYED_FIRST_CARD = 367, 36
#: The table: 29 at 383: the reference card's rank one-hot (0..12) and suit one-hot
#: (13..16), control (17: the seat leads), then what is to beat: single 18, pair 19,
#: triple 20, two pairs 21, four of a kind 22, straight 23, flush 24, full house 25
#: (see :func:`_table_kind`), and the passes since it was played: 0 (26), 1 (27), 2 (28).
TABLE_OFFSET = 383
T_SUIT, T_CONTROL, T_SINGLE, T_PAIR, T_TRIPLE, T_TWO_PAIR, T_QUADS = 13, 17, 18, 19, 20, 21, 22
T_STRAIGHT, T_FLUSH, T_FULL, T_PASSES = 23, 24, 25, 26

# ----------------------------------------------------------------------------- action layout
#: Plays of 1..5 cards, as sets of positions in the sorted hand (0 = lowest card), each
#: size listed in lexicographic order: singles (13); pairs (33: the two positions at most
#: 3 apart); triples (31: first and last at most 3 apart); four cards (330: two position
#: pairs, each at most 3 apart); five cards (1287: any). Same-rank cards sit next to each
#: other in a sorted hand, so every pair, triple, two pairs and four of a kind has an index.
def _position_sets() -> dict[int, list[tuple[int, ...]]]:
    positions = range(13)
    return {
        1: [(i,) for i in positions],
        2: [c for c in combinations(positions, 2) if c[1] - c[0] <= 3],
        3: [c for c in combinations(positions, 3) if c[2] - c[0] <= 3],
        4: [c for c in combinations(positions, 4) if c[1] - c[0] <= 3 and c[3] - c[2] <= 3],
        5: list(combinations(positions, 5)),
    }


_SETS = _position_sets()
#: First index of each play size; the pass is the last index.
SIZE_OFFSET = {1: 0, 2: 13, 3: 46, 4: 77, 5: 407}
PASS_INDEX = 1694
_INDEX = {pos: SIZE_OFFSET[k] + i for k, sets in _SETS.items() for i, pos in enumerate(sets)}
_POSITIONS: list[tuple[int, ...]] = [pos for k in sorted(_SETS) for pos in _SETS[k]] + [()]
assert len(_POSITIONS) == N_ACTIONS and len(_INDEX) == PASS_INDEX


def action_index(hand: Iterable[int], play: Iterable[int]) -> int:
    """The network's index of ``play`` (card ids, empty = pass) from ``hand``; ``-1`` when
    the play has no index (more than five cards, or a four-card set the network does not
    list)."""
    cards = sorted(set(int(c) for c in play))
    if not cards:
        return PASS_INDEX
    order = sorted(int(c) for c in hand)
    where = {c: i for i, c in enumerate(order)}
    try:
        pos = tuple(sorted(where[c] for c in cards))
    except KeyError:
        raise ValueError(f"the play {cards} is not in the hand {order}") from None
    return _INDEX.get(pos, -1)


def action_positions(index: int) -> tuple[int, ...]:
    """The positions in the sorted hand of action ``index`` (``()`` = the pass)."""
    if not 0 <= int(index) < N_ACTIONS:
        raise ValueError(f"action index {index} is outside 0..{N_ACTIONS - 1}")
    return _POSITIONS[int(index)]


def action_cards(hand: Iterable[int], index: int) -> tuple[int, ...] | None:
    """The card ids of action ``index`` in ``hand`` (``()`` = the pass; ``None`` when the
    hand is too short for it)."""
    order = sorted(int(c) for c in hand)
    pos = action_positions(index)
    if pos and pos[-1] >= len(order):
        return None
    return tuple(order[i] for i in pos)


# ----------------------------------------------------------------------------- the state
@dataclass(frozen=True)
class BigTwoView:
    """What the seat to move knows, engine-free.

    Attributes
    ----------
    hand : tuple[int, ...]
        Its cards (ids, any order), 1..13 of them.
    cards_left : tuple[int, int, int]
        Cards held by the three opponents, in play order after the seat.
    plays : tuple[tuple[int, tuple[int, ...]], ...]
        Every play of the game so far (passes left out) as ``(who, cards)``, ``who`` = 0
        for the seat itself, 1..3 for the opponents in play order after it.
    table : tuple[int, ...]
        The play to beat; empty when the seat leads (it has control, or opens the game).
    passes : int
        Passes since the table was played (0..2; ignored when the seat leads).
    """

    hand: tuple[int, ...]
    cards_left: tuple[int, int, int]
    plays: tuple[tuple[int, tuple[int, ...]], ...] = ()
    table: tuple[int, ...] = ()
    passes: int = 0


def _rank(c: int) -> int:
    return c // 4


def _is_straight(cards: Sequence[int]) -> bool:
    ranks = sorted(_rank(c) for c in cards)
    return len(cards) == 5 and all(b == a + 1 for a, b in zip(ranks, ranks[1:]))


def _is_flush(cards: Sequence[int]) -> bool:
    return len(cards) == 5 and len({c % 4 for c in cards}) == 1


def _is_quads(cards: Sequence[int]) -> bool:
    return len(cards) == 4 and len({_rank(c) for c in cards}) == 1


def _table_kind(cards: Sequence[int]) -> tuple[list[int], int, int]:
    """``(kind positions, reference rank, reference suit or -1)`` of the table block, as
    the original fills it: the top card for 1..4 cards, straights and flushes; for a
    five-card hand that is not a flush (full house, and also a plain straight, which then
    has both 23 and 25) the rank of the middle card and no suit."""
    cards = sorted(cards)
    n = len(cards)
    top = cards[-1]
    if n > 5:  # not a Big Two hand (another game's run): the top card, no kind
        return [], _rank(top), top % 4
    if n == 1:
        return [T_SINGLE], _rank(top), top % 4
    if n == 2:
        return [T_PAIR], _rank(top), top % 4
    if n == 3:
        return [T_TRIPLE], _rank(top), top % 4
    if n == 4:
        return [T_QUADS if _is_quads(cards) else T_TWO_PAIR], _rank(top), top % 4
    kinds, rank, suit = [], _rank(top), top % 4
    if _is_straight(cards):
        kinds.append(T_STRAIGHT)
    if _is_flush(cards):
        kinds.append(T_FLUSH)
    else:
        kinds.append(T_FULL)
        rank, suit = _rank(cards[2]), -1
    return kinds, rank, suit


def _opponent_kinds(cards: Sequence[int]) -> list[int]:
    """The flags a play sets in its player's opponent block (singles set none)."""
    n = len(cards)
    if n == 2:
        return [OPP_PAIR]
    if n == 3:
        return [OPP_TRIPLE]
    if n == 4:
        return [OPP_FOUR]
    if n == 5:
        return ([OPP_STRAIGHT] if _is_straight(cards) else []) + ([OPP_FLUSH] if _is_flush(cards) else [OPP_FULL])
    return []


def _check_cards(cards: Iterable[Any], what: str) -> tuple[int, ...]:
    out = tuple(int(c) for c in cards)
    if any(not 0 <= c < 52 for c in out) or len(set(out)) != len(out):
        raise ValueError(f"{what}: card ids must be distinct and in 0..51, got {list(out)}")
    return out


def encode(view: BigTwoView) -> np.ndarray:
    """The network's 412 inputs (float32, 0/1) for ``view`` (layout: the constants above)."""
    hand = sorted(_check_cards(view.hand, "hand"))
    if not 1 <= len(hand) <= 13:
        raise ValueError(f"the hand must hold 1..13 cards, not {len(hand)}")
    if len(view.cards_left) != 3 or any(not 0 <= int(n) <= 13 for n in view.cards_left):
        raise ValueError(f"cards_left needs three counts in 0..13, got {list(view.cards_left)}")
    x = np.zeros(N_INPUTS, np.float32)
    per_rank = np.bincount([_rank(c) for c in hand], minlength=13)
    per_suit = np.bincount([c % 4 for c in hand], minlength=4)
    in_run = np.zeros(13, bool)
    start = 0
    for r in range(14):  # runs of consecutive ranks held (no wrap: 3 follows nothing)
        if r == 13 or per_rank[r] == 0:
            if r - start >= 5:
                in_run[start:r] = True
            start = r + 1
    for i, c in enumerate(hand):
        s = HAND_OFFSET + HAND_SLOT * i
        r = _rank(c)
        x[s + r] = 1
        x[s + SLOT_SUIT + c % 4] = 1
        x[s + SLOT_PAIR] = per_rank[r] >= 2
        x[s + SLOT_TRIPLE] = per_rank[r] >= 3
        x[s + SLOT_QUAD] = per_rank[r] >= 4
        x[s + SLOT_STRAIGHT] = in_run[r]
        x[s + SLOT_FLUSH] = per_suit[c % 4] >= 5
    for k, n in enumerate(view.cards_left):
        if n:  # 0 (a seat out, which Big Two never has at a decision): no count
            x[OPPONENT_OFFSET + OPPONENT_BLOCK * k + int(n) - 1] = 1
    for who, cards in view.plays:
        cards = _check_cards(cards, "a play")
        if not cards:
            raise ValueError("a play has cards (passes are left out of plays)")
        for c in cards:
            if c >= PLAYED_FIRST_CARD:
                x[PLAYED_OFFSET + c - PLAYED_FIRST_CARD] = 1
        who = int(who)
        if who == 0:
            continue
        if not 1 <= who <= 3:
            raise ValueError(f"a play's player is 0 (the seat) or 1..3 (the opponents after it), not {who}")
        block = OPPONENT_OFFSET + OPPONENT_BLOCK * (who - 1)
        for c in cards:
            if c >= 44:
                x[block + OPP_HIGH + c - 44] = 1
        for k in _opponent_kinds(cards):
            x[block + k] = 1
    table = _check_cards(view.table, "table")
    if not table:
        x[TABLE_OFFSET + T_CONTROL] = 1
    else:
        if not 0 <= int(view.passes) <= 2:
            raise ValueError(f"passes since the table was played must be 0..2, not {view.passes}")
        kinds, rank, suit = _table_kind(table)
        x[TABLE_OFFSET + rank] = 1
        if suit >= 0:
            x[TABLE_OFFSET + T_SUIT + suit] = 1
        for k in kinds:
            x[TABLE_OFFSET + k] = 1
        x[TABLE_OFFSET + T_PASSES + int(view.passes)] = 1
    return x


# ----------------------------------------------------------------------------- parameters
class _JoblibArray:
    """Stands for ``joblib.numpy_pickle.NumpyArrayWrapper`` (joblib is not imported): the
    header of an array whose raw bytes follow the pickle's BUILD opcode in the file."""

    source = None  # the file being read: set on the subclass :class:`_ArrayUnpickler` makes per file
    array = None

    def __setstate__(self, state):
        if self.source is None:
            raise ValueError("a joblib array header outside a parameter file")
        if not isinstance(state, dict):
            raise ValueError("a joblib array header is not a dict")
        subclass = state.get("subclass")
        if getattr(subclass, "function", subclass) is not np.ndarray:  # handed out guarded (_Guarded)
            raise ValueError("a joblib array is not a plain numpy.ndarray")
        dtype, shape, order = state.get("dtype"), state.get("shape"), state.get("order", "C")
        if not isinstance(dtype, np.dtype) or dtype.hasobject or dtype.kind not in "fiub":
            raise ValueError(f"a joblib array has dtype {dtype!r} (numbers only)")
        if not isinstance(shape, tuple) or not all(isinstance(n, int) and 0 <= n for n in shape):
            raise ValueError("a joblib array has a bad shape")
        if order not in ("C", "F"):
            raise ValueError("a joblib array has a bad order")
        align = state.get("numpy_array_alignment_bytes")
        self.dtype, self.shape, self.order, self.aligned = dtype, shape, order, align is not None
        self.array = self.read(self.source)

    def read(self, source) -> np.ndarray:
        if self.aligned:  # newer joblib: one byte = the padding length, then the padding
            pad = source.read(1)
            if len(pad) != 1 or len(source.read(pad[0])) != pad[0]:
                raise ValueError("the file ends inside an array")
        nbytes = math.prod(self.shape) * self.dtype.itemsize
        data = source.read(nbytes)
        if len(data) != nbytes:
            raise ValueError("the file ends inside an array")
        return np.frombuffer(data, self.dtype).reshape(self.shape, order=self.order).copy()


def _numpy_functions() -> dict[str, Any]:
    """NumPy's own array-rebuilding functions, as its public pickling protocol names them
    (``ndarray.__reduce_ex__``), under NumPy 1 and 2 alike."""
    sample = np.zeros(1)
    return {"_reconstruct": sample.__reduce_ex__(2)[0], "_frombuffer": sample.__reduce_ex__(5)[0]}


def _latin1_bytes(text, encoding):
    """Protocol 2 pickles bytes as ``_codecs.encode(text, "latin1")``: that, and nothing else."""
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
        raise RefusedGlobal(f"_codecs.encode with {encoding!r}")
    return text.encode("latin1")


class _Guarded:
    """An allowed global as the unpickler hands it out: callable as the real one (with the
    other guarded globals among its arguments unwrapped), but no pickle can set its state
    (a BUILD on it is refused), so nothing of NumPy's or cardsim's is changed by a file."""

    __slots__ = ("function", "kind")

    def __init__(self, function, kind: str):
        self.function, self.kind = function, kind

    def __call__(self, *args):
        return self.function(*(a.function if isinstance(a, _Guarded) else a for a in args))

    def __setstate__(self, state):
        raise RefusedGlobal(f"a state for {self.kind}")


_FUNCTIONS = _numpy_functions()
#: Every global the unpickler hands out: what a pickled ndarray needs (``_reconstruct``,
#: ``ndarray``, ``dtype``; ``_frombuffer`` for protocol 5; latin-1 bytes for protocol 2)
#: under NumPy 1 and 2 module names, and joblib's array header (replaced by
#: :class:`_JoblibArray`, joblib itself is not imported).
ALLOWED_GLOBALS = {
    ("numpy.core.multiarray", "_reconstruct"): _Guarded(_FUNCTIONS["_reconstruct"], "function"),
    ("numpy._core.multiarray", "_reconstruct"): _Guarded(_FUNCTIONS["_reconstruct"], "function"),
    ("numpy.core.numeric", "_frombuffer"): _Guarded(_FUNCTIONS["_frombuffer"], "function"),
    ("numpy._core.numeric", "_frombuffer"): _Guarded(_FUNCTIONS["_frombuffer"], "function"),
    ("numpy", "ndarray"): _Guarded(np.ndarray, "type"),
    ("numpy", "dtype"): _Guarded(np.dtype, "type"),
    ("joblib.numpy_pickle", "NumpyArrayWrapper"): _JoblibArray,
    ("_codecs", "encode"): _Guarded(_latin1_bytes, "function"),
}


class RefusedGlobal(Exception):
    """The pickle asked for something other than a NumPy array."""


class _ArrayUnpickler(pickle.Unpickler):
    """Python's unpickler with :data:`ALLOWED_GLOBALS` as the only globals. A joblib array's
    bytes follow its header's BUILD in the file: the header (:class:`_JoblibArray`) reads
    them from ``source`` as its state is set, which works because the unpickler reads a
    source without ``peek`` exactly as far as it needs."""

    def __init__(self, source):
        super().__init__(source)
        self.source = source

    def find_class(self, module, name):
        try:
            found = ALLOWED_GLOBALS[(module, name)]
        except (KeyError, TypeError):
            raise RefusedGlobal(f"{module}.{name}") from None
        if found is _JoblibArray:
            return type("JoblibArray", (_JoblibArray,), {"source": self.source})
        return found

    def persistent_load(self, pid):
        raise RefusedGlobal("a persistent id")


class _NoPeek:
    """A bytes source with ``read`` and ``readline`` only (no ``peek``: no read-ahead)."""

    def __init__(self, data: bytes):
        self._buffer = io.BytesIO(data)

    def read(self, n=-1):
        return self._buffer.read(n)

    def readline(self):
        return self._buffer.readline()


def _arrays_in_place(obj):
    """``obj`` with every joblib array header replaced by its array (lists, tuples, dicts)."""
    if isinstance(obj, _JoblibArray):
        if obj.array is None:
            raise ValueError("a joblib array header without its state")
        return obj.array
    if isinstance(obj, list):
        return [_arrays_in_place(x) for x in obj]
    if isinstance(obj, tuple):
        return tuple(_arrays_in_place(x) for x in obj)
    if isinstance(obj, dict):
        return {k: _arrays_in_place(v) for k, v in obj.items()}
    return obj


@dataclass(frozen=True)
class Parameters:
    """The network's arrays (float64), named as :data:`PARAMETER_SHAPES`."""

    arrays: dict[str, np.ndarray]
    source: str = ""

    def __getitem__(self, name: str) -> np.ndarray:
        return self.arrays[name]


def _bad(path: str, why: str) -> ConfigError:
    return ConfigError(f"bigtwo-ppo: {path}: {why}")


def read_arrays(path: str | os.PathLike) -> Any:
    """The object pickled in ``path`` when it is made of NumPy arrays and plain containers
    only (a joblib file too: joblib writes each array's bytes after its header). Anything
    else, a missing, truncated or malformed file: one-line :class:`~cardsim.ConfigError`,
    nothing run."""
    path = os.fspath(path)
    try:
        size = os.path.getsize(path)
        if size > MAX_FILE_BYTES:
            raise _bad(path, f"{size} bytes is too large for the Big Two PPO parameters (at most {MAX_FILE_BYTES})")
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise _bad(path, f"cannot read the file ({exc.strerror or exc})") from None
    if data[:2] == b"\x1f\x8b" or data[:1] == b"\x78" or data[:3] == b"BZh" or data[:4] == b"\xfd7zX":
        raise _bad(path, "the file is compressed; save the parameters uncompressed (joblib.dump without compress)")
    try:
        return _arrays_in_place(_ArrayUnpickler(_NoPeek(data)).load())
    except RefusedGlobal as exc:
        raise _bad(path, f"refused: the pickle asks for {exc} (only NumPy arrays are allowed)") from None
    except RecursionError:
        raise _bad(path, "not a parameter pickle (nested too deep)") from None
    except Exception as exc:  # truncated, garbage, bad opcodes: all one line
        why = " ".join(str(exc).split())[:120] or type(exc).__name__
        raise _bad(path, f"not a readable parameter pickle ({type(exc).__name__}: {why})") from None


def load_parameters(path: str | os.PathLike) -> Parameters:
    """The network's parameters from ``path``: a pickle (joblib's, as the original saves
    them, or plain) of the ten arrays of :data:`PARAMETER_SHAPES`, in that order.
    Refuses, with one-line :class:`~cardsim.ConfigError` and without running anything, a
    pickle asking for anything but NumPy arrays (:func:`read_arrays`); also wrong shapes
    or non-finite numbers."""
    path = os.fspath(path)
    obj = read_arrays(path)
    if not isinstance(obj, (list, tuple)) or len(obj) != len(PARAMETER_SHAPES):
        raise _bad(path, f"expected a list of {len(PARAMETER_SHAPES)} arrays, found {type(obj).__name__}"
                   + (f" of {len(obj)}" if isinstance(obj, (list, tuple)) else ""))
    arrays = {}
    for (name, shape), a in zip(PARAMETER_SHAPES, obj):
        if not isinstance(a, np.ndarray) or a.dtype.hasobject or a.dtype.kind not in "fiu":
            raise _bad(path, f"{name} is not a numeric array")
        if a.shape != shape:
            raise _bad(path, f"{name} has shape {a.shape}, expected {shape}")
        a = a.astype(np.float64)
        if not np.isfinite(a).all():
            raise _bad(path, f"{name} holds non-finite numbers")
        arrays[name] = a
    return Parameters(arrays, path)


# ----------------------------------------------------------------------------- the network
def forward(params: Parameters, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(logits [..., 1695], value [...])`` for inputs ``x`` [..., 412]."""
    x = np.asarray(x, np.float64)
    h1 = np.maximum(x @ params["fc1/w"] + params["fc1/b"], 0.0)
    h2 = np.maximum(h1 @ params["fc2/w"] + params["fc2/b"], 0.0)
    logits = h2 @ params["pi/w"] + params["pi/b"]
    h3 = np.maximum(h1 @ params["fc3/w"] + params["fc3/b"], 0.0)
    value = (h3 @ params["vf/w"] + params["vf/b"])[..., 0]
    return logits, value


def legal_mask(hand: Iterable[int], plays: Iterable[Iterable[int]]) -> np.ndarray:
    """bool[1695]: the indices of the legal ``plays`` (card-id sets; an empty one is the
    pass). Plays without an index are left out."""
    hand = list(hand)
    mask = np.zeros(N_ACTIONS, bool)
    for play in plays:
        i = action_index(hand, play)
        if i >= 0:
            mask[i] = True
    return mask


def probabilities(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The network's distribution over the legal indices (softmax of the logits, illegal
    ones at -inf, as the original adds its mask of 0 / -inf)."""
    if not mask.any():
        raise ValueError("no legal action has an index")
    z = np.where(mask, logits, -np.inf)
    e = np.exp(z - z[mask].max())
    return e / e.sum()


def choose(params: Parameters, view: BigTwoView, plays: Sequence[Iterable[int]]) -> int:
    """The position in ``plays`` (card-id sets, empty = pass) the network rates highest
    (greedy; among equal scores the first). ``-1`` when no play has an index."""
    logits, _ = forward(params, encode(view))
    best, best_score = -1, -np.inf
    for j, play in enumerate(plays):
        i = action_index(view.hand, play)
        if i >= 0 and logits[i] > best_score:
            best, best_score = j, logits[i]
    return best


# ----------------------------------------------------------------------------- step-interface adapter
RANKS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
_SUIT_LETTER = {"♦": "D", "♣": "C", "♥": "H", "♠": "S"}
#: Suits lowest first as the Big Two card ids order them.
BIGTWO_SUIT_ORDER = "DCHS"
_PLAY_LINE = re.compile(r"^seat (\d+): (.+?)\s+\[")


def card_id(name: str, suit_order: str = BIGTWO_SUIT_ORDER) -> int:
    """``card_id("3♦") == 0``, ``card_id("2S") == 51`` (suit letter or symbol)."""
    token = str(name).strip()
    rank, suit = token[:-1].upper(), token[-1:].upper()
    suit = _SUIT_LETTER.get(suit, suit)
    if rank not in RANKS or suit not in suit_order:
        raise ValueError(f"bad card {name!r}")
    return 4 * RANKS.index(rank) + suit_order.index(suit)


def _cards(names: Iterable[str], suit_order: str) -> tuple[int, ...]:
    return tuple(card_id(n, suit_order) for n in names)


def view_from_observation(obs: Mapping[str, Any], suit_order: str = BIGTWO_SUIT_ORDER) -> BigTwoView:
    """The :class:`BigTwoView` of a step-interface observation of the seat to move.

    Reads ``seat``, ``hand`` (card names), ``cards_left`` (per seat), ``table`` (``None``
    or ``{"cards": [...], "by": seat}``) and ``history`` (the log lines: ``seat S: CARDS
    [kind]`` are the plays). Four seats, play order = seat order. The passes since the
    table was played are the seats between its player and the seat (a seat that passed
    earlier and is skipped counts as passing again); the seat's own table, or none, is a
    lead (the first lead of a game too, which the original never sees: it plays 3♦ for
    its holder)."""
    seat = int(obs["seat"])
    left = [int(n) for n in obs["cards_left"]]
    if len(left) != 4:
        raise ValueError(f"the Big Two PPO network plays four seats, not {len(left)}")
    hand = _cards(obs["hand"], suit_order)
    plays = []
    for line in obs.get("history") or ():
        m = _PLAY_LINE.match(str(line))
        if m:
            who = (int(m.group(1)) - seat) % 4
            plays.append((who, _cards(m.group(2).split(), suit_order)))
    table_info = obs.get("table")
    table: tuple[int, ...] = ()
    passes = 0
    if table_info:
        by = int(table_info["by"])
        if by != seat:
            table = _cards(table_info["cards"], suit_order)
            passes = (seat - by - 1) % 4
    return BigTwoView(hand=hand, cards_left=tuple(left[(seat + k) % 4] for k in (1, 2, 3)), plays=tuple(plays),
                      table=table, passes=passes)


def _action_cards(hand: Sequence[int], action: int, text: str | None, suit_order: str) -> tuple[int, ...]:
    """The cards of step action ``action``: bit ``j`` = the ``j``-th lowest card of the hand
    (0 = pass), checked against the action's text when it names cards."""
    order = sorted(hand)
    if action < 0 or action >> len(order):
        raise ValueError(f"action {action} names cards the hand does not hold")
    cards = tuple(c for j, c in enumerate(order) if action >> j & 1)
    if text is not None:
        words = str(text).split("[")[0].split()
        named = () if words == ["pass"] else tuple(sorted(_cards(words, suit_order)))
        if named != cards:
            raise ValueError(f"action {action} is {list(cards)} by position but its text says {text!r}")
    return cards


class BigTwoPPOSeat:
    """An outside seat: ``seat(observation, legal_actions) -> action id`` plays the
    network greedily (the legal action it scores highest; among equal scores the lowest
    id; the lowest id when no legal action has a network index). It keeps nothing
    between calls."""

    def __init__(self, params: Parameters | str | os.PathLike, suit_order: str = BIGTWO_SUIT_ORDER):
        self.params = params if isinstance(params, Parameters) else load_parameters(params)
        self.suit_order = suit_order

    def scores(self, obs: Mapping[str, Any], legal_actions: Sequence[int] | None = None) -> dict[int, float]:
        """The network's probability of every legal action id (0 for those without an index)."""
        view = view_from_observation(obs, self.suit_order)
        texts = {int(a): t for a, t in (obs.get("legal_actions") or ())}
        ids = [int(a) for a in (legal_actions if legal_actions is not None else texts)]
        if not ids:
            raise ValueError("no legal action")
        index = {a: action_index(view.hand, _action_cards(view.hand, a, texts.get(a), self.suit_order)) for a in ids}
        mask = np.zeros(N_ACTIONS, bool)
        mask[[i for i in index.values() if i >= 0]] = True
        logits, _ = forward(self.params, encode(view))
        p = probabilities(logits, mask)
        return {a: float(p[i]) if i >= 0 else 0.0 for a, i in index.items()}

    def __call__(self, obs: Mapping[str, Any], legal_actions: Sequence[int] | None = None) -> int:
        view = view_from_observation(obs, self.suit_order)
        texts = {int(a): t for a, t in (obs.get("legal_actions") or ())}
        ids = sorted(int(a) for a in (legal_actions if legal_actions is not None else texts))
        if not ids:
            raise ValueError("no legal action")
        logits, _ = forward(self.params, encode(view))
        best, best_score = ids[0], -np.inf
        for a in ids:
            i = action_index(view.hand, _action_cards(view.hand, a, texts.get(a), self.suit_order))
            if i >= 0 and logits[i] > best_score:
                best, best_score = a, logits[i]
        return best
