"""The one parallel driver of every game: a chunk's blocks of games on Python threads.

Each game package compiles a serial, GIL-free block kernel (``@njit(nogil=True)``); this
module splits a chunk into contiguous blocks and runs them on ``numba.get_num_threads()``
threads. Replacing one ``parallel=True`` kernel per game by this driver removes the
parfor compilation (several seconds per game on a first run) without changing any
result: every game is a pure function of ``(seed, index)`` and of the previous games of
its block-aligned match, so the blocks, their number and the threads never matter.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Callable

import numba


def block_bounds(n_units: int, n_blocks: int) -> list[tuple[int, int]]:
    """``n_blocks`` contiguous, non-empty ``(u0, u1)`` ranges covering ``0..n_units``."""
    n_blocks = max(1, min(int(n_blocks), int(n_units)))
    bounds = [((n_units * b) // n_blocks, (n_units * (b + 1)) // n_blocks) for b in range(n_blocks)]
    return [(u0, u1) for u0, u1 in bounds if u1 > u0]


def run_blocks(run_block: Callable[[int, int], object], n_units: int, n_blocks: int | None = None) -> None:
    """Call ``run_block(u0, u1)`` for the blocks of ``n_units`` units (games or matches).

    ``run_block`` must release the GIL for the threads to run at once (a ``nogil``
    kernel call). ``n_blocks`` defaults to four per thread so that uneven blocks still
    balance. Exceptions of any block propagate.
    """
    if n_units <= 0:
        return
    threads = numba.get_num_threads()
    if n_blocks is None:
        n_blocks = 4 * threads
    bounds = block_bounds(n_units, n_blocks)
    if threads == 1 or len(bounds) == 1:
        for u0, u1 in bounds:
            run_block(u0, u1)
        return
    with ThreadPoolExecutor(max_workers=min(threads, len(bounds))) as pool:
        for future in [pool.submit(run_block, u0, u1) for u0, u1 in bounds]:
            future.result()
