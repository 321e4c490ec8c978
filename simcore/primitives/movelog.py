"""One move-log record format for every game.

A game's kernel can log what happens, one record per event, into an ``int64`` array of
shape ``(capacity, LOG_WIDTH)``. Every record has the same fields:

``kind``
    What happened: a small int whose names the game lists in its ``log.py``
    (``LOG_KINDS``: deal, play, pass, draw, discard, claim, ...).
``seat``
    Who did it (-1 for the table: a reshuffle, a new round).
``a, b, c, d``
    The game's payload: cards as a 64-bit mask (Tiến Lên), card types or counts
    (Tứ Sắc, rummy), a class or meld code. Each game documents its payload per kind.

Replays, checkers and future tools read every game's log the same way
(:func:`records`), and each game's ``log.py`` turns records into text.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

LOG_WIDTH = 6
F_KIND, F_SEAT, F_A, F_B, F_C, F_D = range(LOG_WIDTH)


@njit(cache=True, inline="always")
def log_record(log, n, on, kind, seat, a, b, c, d):
    """Write one record at row ``n`` when ``on`` and there is room; returns the next row."""
    if on and n < log.shape[0]:
        log[n, F_KIND] = kind
        log[n, F_SEAT] = seat
        log[n, F_A] = a
        log[n, F_B] = b
        log[n, F_C] = c
        log[n, F_D] = d
        return n + 1
    return n


def new_log(capacity: int, games: int | None = None) -> np.ndarray:
    """An empty log: ``(capacity, LOG_WIDTH)``, or ``(games, capacity, LOG_WIDTH)``."""
    shape = (capacity, LOG_WIDTH) if games is None else (games, capacity, LOG_WIDTH)
    return np.zeros(shape, np.int64)


class Record(NamedTuple):
    kind: int
    seat: int
    a: int
    b: int
    c: int
    d: int


def records(log: np.ndarray, n: int) -> list[Record]:
    """The first ``n`` records of one game's log as Python tuples."""
    return [Record(*map(int, row)) for row in np.asarray(log)[:n]]
