"""Pieces shared by the games' task modules (the ``TASK`` objects the runner calls)."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
import pyarrow as pa

from simcore.config import ConfigError

#: The ``seat`` value of table-level ("any seat") rows in counts tables.
TABLE_SEAT = -1


def counts_table(chunk_id: int, events: Sequence[str], seats: Sequence[int], counts, n: int) -> pa.Table:
    """The ``counts`` table of one chunk: one row per (event, seat).

    Parameters
    ----------
    events, seats : sequences of length m
        Event name and seat (``TABLE_SEAT`` for the table) of each row.
    counts : array_like of int, shape (m,)
        Deals (of this chunk) where the event happened.
    n : int
        Deals in this chunk (the denominator of every row).
    """
    m = len(events)
    return pa.table({
        "chunk": pa.array(np.full(m, chunk_id, np.int32)),
        "event": pa.array(list(events)).dictionary_encode(),
        "seat": pa.array(np.asarray(seats, np.int8)),
        "count": pa.array(np.asarray(counts, np.int64)),
        "n": pa.array(np.full(m, n, np.int64)),
    })


def grid_counts_table(chunk_id: int, events: Sequence[str], block, n: int) -> pa.Table:
    """:func:`counts_table` from a ``(len(events), players + 1)`` matrix (last column: the table)."""
    block = np.asarray(block)
    players = block.shape[1] - 1
    seats = list(range(players)) + [TABLE_SEAT]
    return counts_table(chunk_id, np.repeat(list(events), len(seats)), np.tile(seats, len(events)),
                        block.reshape(-1), n)


class DealTaskBase:
    """Common option handling of ``deal`` tasks (the only option is ``per_deal``)."""

    game = ""
    #: Per-deal output is for inspection; beyond this it would dwarf the counts.
    max_per_deal = 10_000_000

    @staticmethod
    def tables(config) -> tuple[str, ...]:
        return ("counts", "per_deal") if config.options.get("per_deal") else ("counts",)

    def check_options(self, rules, options: Mapping[str, Any]) -> None:
        unknown = set(options) - {"per_deal"}
        if unknown:
            raise ConfigError(f"unknown option(s) for deal {self.game}: {', '.join(sorted(unknown))}")

    def check_size(self, n: int, options: Mapping[str, Any]) -> None:
        if options.get("per_deal") and n > self.max_per_deal:
            raise ConfigError(f"--per-deal is for small runs: at most {self.max_per_deal:,} deals, got {n:,}")
