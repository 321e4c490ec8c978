"""``cardsim deal tusac``: Tứ Sắc deal statistics as chunk tables.

Events (``counts`` table; ``seat`` -1 = the table, i.e. any seat):

- per seat and table: ``weak_hand`` (no General, no triple, no quadruple, no
  full-colour soldiers: the spec's mulligan condition), ``dealt_triple`` (some type held
  exactly 3 times), ``dealt_quadruple`` (some type held 4 times),
  ``dealt_triple_or_quadruple``, ``full_colour_soldiers`` (a Soldier of each colour),
  ``has_general``, ``generals_0 .. generals_7, generals_8plus`` (number of General cards;
  for the table: some seat has exactly that many);
- table only: ``weak_hands_0 .. weak_hands_<players>`` (exactly k weak hands) and, when
  the ``mulligan`` switch is on, ``mulligan`` (the deal is voided: some hand is weak).

Seat 0 is the dealer (21 cards), seats 1.. hold 20.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from simcore.config import ConfigError
from simcore.tusac import deal as kernel
from simcore.tusac.rules import TuSacRules

#: Parallel blocks per chunk; any value gives the same counts.
BLOCKS_PER_CHUNK = 64
#: Per-deal output is for inspection; beyond this it would dwarf the counts.
MAX_PER_DEAL = 2_000_000  # 140 bytes per deal (5 x 28 int8 counts)
TABLE_SEAT = -1


def reported_rows(rules: TuSacRules) -> list[tuple[str, int, int]]:
    """``(event, seat, (row, column) of the kernel's count matrix)`` in output order."""
    players = rules.players
    rows = []
    for e, name in enumerate(kernel.SEAT_EVENTS):
        for s in list(range(players)) + [TABLE_SEAT]:
            rows.append((name, s, e, s if s >= 0 else players))
    if rules.mulligan:
        rows.append(("mulligan", TABLE_SEAT, kernel.EVENTS.index("weak_hand"), players))
    for k in range(players + 1):
        rows.append((f"weak_hands_{k}", TABLE_SEAT, kernel.EV_WEAK_HANDS + k, players))
    return rows


class DealTask:
    rules_cls = TuSacRules

    @staticmethod
    def tables(config) -> tuple[str, ...]:
        return ("counts", "per_deal") if config.options.get("per_deal") else ("counts",)

    @staticmethod
    def check_options(rules, options) -> None:
        unknown = set(options) - {"per_deal"}
        if unknown:
            raise ConfigError(f"unknown option(s) for deal tusac: {', '.join(sorted(unknown))}")

    @staticmethod
    def check_size(n: int, options) -> None:
        if options.get("per_deal") and n > MAX_PER_DEAL:
            raise ConfigError(f"--per-deal is for small runs: at most {MAX_PER_DEAL:,} deals, got {n:,}")

    @staticmethod
    def run_chunk(config, chunk_id: int) -> dict[str, pa.Table]:
        rules: TuSacRules = config.rules
        start, count = config.chunk_range(chunk_id)
        counts = kernel.deal_counts(config.seed, start, count, rules.players, BLOCKS_PER_CHUNK)
        rows = reported_rows(rules)
        m = len(rows)
        values = np.array([counts[r, c] for _, _, r, c in rows], np.int64)
        tables = {
            "counts": pa.table({
                "chunk": pa.array(np.full(m, chunk_id, np.int32)),
                "event": pa.array([name for name, *_ in rows]).dictionary_encode(),
                "seat": pa.array(np.array([s for _, s, *_ in rows], np.int8)),
                "count": pa.array(values),
                "n": pa.array(np.full(m, count, np.int64)),
            })
        }
        if config.options.get("per_deal"):
            hands, weak = kernel.deal_rows(config.seed, start, count, rules.players)
            columns = {"deal": pa.array(np.arange(start, start + count, dtype=np.int64))}
            for s in range(rules.players + 1):
                name = f"hand_{s}" if s < rules.players else "stock"
                flat = pa.array(np.ascontiguousarray(hands[:, s, :]).reshape(-1))
                columns[name] = pa.FixedSizeListArray.from_arrays(flat, kernel.N_TYPES)
            columns["weak_seats"] = pa.array(weak)
            tables["per_deal"] = pa.table(columns)
        return tables


TASK = DealTask()
