"""Custom deal events: a user's function of one hand, compiled with Numba, counted per
seat and for the table inside the run, beside the built-in events.

``cardsim deal GAME --event PATH.py:NAME`` (repeatable). ``NAME(hand) -> bool`` gets the
hand in the representation the game's kernels use (each game's ``events.HANDS``, named by
its ``GameSpec.hands``):

* ``tienlen``: an ``int64`` 52-bit mask, card id ``4 * rank + suit`` (ranks 3..A, 2 =
  0..12; suits ♠ ♣ ♦ ♥ = 0..3), so ``(hand >> 48) & 15`` are the 2s;
* ``tusac``: an ``int8[28]`` array of counts per card type ``7 * colour + character``
  (colours red, yellow, green, white; characters General, Advisor, Elephant, Chariot,
  Horse, Cannon, Soldier), each 0..4.

The function is compiled once per run (``numba.njit``); the counts land in the run's
``counts`` table as event ``NAME`` (seat rows and the ``any`` row).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from numba import njit, prange, types

from cardsim.simcore.framework.config import ConfigError
from cardsim.simcore.framework.custom import load_function, split_ref

#: Deals evaluated per block (bounds memory: the hands of one block are materialised).
BLOCK = 1 << 18


@dataclass(frozen=True)
class HandsSpec:
    """How a game's hands are produced for custom events and what the user function gets,
    and how a stored hand column (``--per-deal``) decodes (:mod:`cardsim.analysis.hands`)."""

    argument: object  # the numba type of one hand
    describe: str
    hands: Callable  # hands(seed, start, count, rules) -> array (count, players[, width])
    #: optional: fused(dispatcher) -> run(seed, start, count, rules) -> bool[count, players],
    #: dealing and testing in one parallel loop (no hands materialised: faster)
    fused: Callable | None = None
    #: stored column -> the hands as the user function takes them, array (rows[, width])
    column_hands: Callable | None = None
    #: stored column -> int array (rows, cards): how many of each card id a hand holds
    card_counts: Callable | None = None
    #: card id ``i`` is ``(outer[i // len(inner)], inner[i % len(inner)])``; which of the
    #: two is the rank (the other being the suit or colour)
    outer: tuple[str, ...] = ()
    inner: tuple[str, ...] = ()
    rank_is_outer: bool = True
    #: the name of card ``(o, i)``
    card_name: Callable[[str, str], str] = lambda outer, inner: outer + inner


def game_hands(game: str) -> HandsSpec:
    """The game's :class:`HandsSpec` (its ``GameSpec.hands``); ConfigError when the game
    has none yet."""
    from cardsim.simcore.framework import registry
    from cardsim.simcore.framework.spec import resolve_ref

    spec = registry.get_spec(game)
    if not spec.hands:
        games = [g for g in registry.game_names() if registry.get_spec(g).hands]
        raise ConfigError(f"--event is not available for {game} yet (games: {', '.join(games)})")
    return resolve_ref(spec.hands)


def _first_numba_line(exc: Exception) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    keep = [line for line in lines if not line.startswith(("File ", "During:", "^", "-", "Failed in", "[1]"))]
    return (keep or lines or [type(exc).__name__])[0][:300]


def compile_event(game: str, ref: str):
    """The user's function compiled for the game's hand type; ConfigError on any problem
    (compiled once per process and file version)."""
    game_hands(game)
    return _cached("event", game, ref, lambda: _compile_event(game, ref))


def _compile_event(game: str, ref: str):
    hands = game_hands(game)
    from numba.core.errors import NumbaError
    from numba.extending import is_jitted

    function = load_function(ref, "--event")
    dispatcher = function if is_jitted(function) else njit(function)
    argument = hands.argument
    try:
        dispatcher.compile((argument,))
    except NumbaError as exc:
        raise ConfigError(f"--event {ref}: does not compile with Numba for {hands.describe}: "
                          f"{_first_numba_line(exc)}") from None
    except Exception as exc:
        raise ConfigError(f"--event {ref}: fails to compile: {type(exc).__name__}: {_first_numba_line(exc)}") from None
    result = dispatcher.nopython_signatures[-1].return_type
    if not isinstance(result, types.Boolean):  # an integer would count every nonzero value as a hit
        raise ConfigError(f"--event {ref}: must return a bool for one hand, returns {result}")
    if isinstance(argument, types.Array) and _array_arithmetic(dispatcher, argument):
        raise ConfigError(f"--event {ref}: does arithmetic on the whole hand (element by element), but a hand "
                          f"here is {hands.describe}: is the function written for another game's hands?")
    return dispatcher


def _array_arithmetic(dispatcher, argument) -> bool:
    """Does the function compiled for ``argument`` compute an array by an operator (``hand >> 4``,
    ``hand & 15 == 15``: a bit-mask function given an array of counts, which Numba types element by
    element and counts silently wrong)? Array results of calls (``np.zeros``) are fine."""
    from numba.core import ir

    annotation = dispatcher.overloads[(argument,)].type_annotation
    for block in annotation.blocks.values():
        for stmt in block.body:
            if (isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Expr)
                    and stmt.value.op in ("arrayexpr", "binop", "inplace_binop", "unary")
                    and isinstance(annotation.typemap.get(stmt.target.name), types.Array)):
                return True
    return False


#: compiled events and their kernels, per (game, ref, file mtime): a run compiles once
#: per process, not once per chunk
_COMPILED: dict = {}


def _cached(kind: str, game: str, ref: str, build):
    import os

    path, _ = split_ref(ref, "--event")
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError:
        stamp = None
    key = (kind, game, ref, stamp)
    if key not in _COMPILED:
        _COMPILED[key] = build()
    return _COMPILED[key]


def event_name(ref: str) -> str:
    return split_ref(ref, "--event")[1]


def _hits_kernel(dispatcher, ndim: int):
    """A parallel kernel ``hits(hands) -> bool[count, players]`` for one compiled event."""
    if ndim == 2:
        @njit(parallel=True)
        def hits(hands):
            out = np.zeros(hands.shape[:2], np.bool_)
            for i in prange(hands.shape[0]):
                for s in range(hands.shape[1]):
                    out[i, s] = bool(dispatcher(hands[i, s]))
            return out
    else:
        @njit(parallel=True)
        def hits(hands):
            out = np.zeros(hands.shape[:2], np.bool_)
            for i in prange(hands.shape[0]):
                for s in range(hands.shape[1]):
                    out[i, s] = bool(dispatcher(hands[i, s]))
            return out
    return hits


def event_frame(game: str, refs: list[str], frame):
    """Per-deal indicators of custom events from a ``per_deal`` table (experiments):
    ``NAME`` (some seat) and ``NAME_seat_S`` columns of 0/1, indexed like ``frame``."""
    import pandas as pd

    seats = sorted(int(c[5:]) for c in frame.columns if c.startswith("hand_") and c[5:].isdigit())
    spec = game_hands(game)
    hands = np.ascontiguousarray(np.stack([spec.column_hands(frame[f"hand_{s}"]) for s in seats], axis=1))
    out = pd.DataFrame(index=frame.index)
    for ref in refs:
        kernel = _cached(f"hits{hands.ndim}", game, ref, lambda: _hits_kernel(compile_event(game, ref), hands.ndim))
        hits = kernel(hands)
        name = event_name(ref)
        out[name] = hits.any(axis=1).astype(float)
        for k, s in enumerate(seats):
            out[f"{name}_seat_{s}"] = hits[:, k].astype(float)
    return out


def count_events(game: str, refs: list[str], seed: int, start: int, count: int, rules) -> np.ndarray:
    """Counts ``int64[len(refs), players + 1]`` of deals ``start .. start+count-1`` where
    each event holds for seat ``s`` (last column: for at least one seat)."""
    spec = game_hands(game)
    kernels = None
    out = np.zeros((len(refs), rules.players + 1), np.int64)
    if spec.fused is not None:
        for e, ref in enumerate(refs):
            run = _cached("fused", game, ref, lambda: spec.fused(compile_event(game, ref)))
            for lo in range(start, start + count, BLOCK):
                hits = run(seed, lo, min(BLOCK, start + count - lo), rules)
                out[e, :-1] += hits.sum(axis=0)
                out[e, -1] += int(hits.any(axis=1).sum())
        return out
    for lo in range(start, start + count, BLOCK):
        n = min(BLOCK, start + count - lo)
        hands = spec.hands(seed, lo, n, rules)
        if kernels is None:
            kernels = [_cached(f"hits{hands.ndim}", game, ref,
                               lambda: _hits_kernel(compile_event(game, ref), hands.ndim)) for ref in refs]
        for e, kernel in enumerate(kernels):
            hits = kernel(hands)
            out[e, :-1] += hits.sum(axis=0)
            out[e, -1] += int(hits.any(axis=1).sum())
    return out
