"""``cardsim deal tienlen``: deal statistics as chunk tables."""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from simcore.config import ConfigError
from simcore.tienlen import deal as kernel
from simcore.tienlen.rules import INSTANT_WIN_KINDS, TienLenRules

#: Parallel blocks per chunk; any value gives the same counts.
BLOCKS_PER_CHUNK = 64
#: Per-deal output is for inspection; beyond this it would dwarf the counts.
MAX_PER_DEAL = 10_000_000
TABLE_SEAT = -1  # the "any seat" column of the counts table


def reported_events(rules: TienLenRules) -> list[str]:
    """Events of the counts table (instant-win kinds only when enabled)."""
    disabled = {f"instant_win_{k}" for k in INSTANT_WIN_KINDS if k not in rules.instant_wins}
    return [e for e in kernel.EVENTS if e not in disabled]


class DealTask:
    rules_cls = TienLenRules

    @staticmethod
    def tables(config) -> tuple[str, ...]:
        return ("counts", "per_deal") if config.options.get("per_deal") else ("counts",)

    @staticmethod
    def check_options(rules, options) -> None:
        unknown = set(options) - {"per_deal"}
        if unknown:
            raise ConfigError(f"unknown option(s) for deal tienlen: {', '.join(sorted(unknown))}")

    @staticmethod
    def check_size(n: int, options) -> None:
        if options.get("per_deal") and n > MAX_PER_DEAL:
            raise ConfigError(f"--per-deal is for small runs: at most {MAX_PER_DEAL:,} deals, got {n:,}")

    @staticmethod
    def run_chunk(config, chunk_id: int) -> dict[str, pa.Table]:
        rules: TienLenRules = config.rules
        start, count = config.chunk_range(chunk_id)
        players = rules.players
        counts = kernel.deal_counts(config.seed, start, count, players, rules.cards_per_player,
                                    rules.instant_win_mask(), BLOCKS_PER_CHUNK)
        events = reported_events(rules)
        rows = [kernel.EVENTS.index(e) for e in events]
        seats = list(range(players)) + [TABLE_SEAT]
        block = counts[rows]  # (len(events), players + 1)
        tables = {
            "counts": pa.table({
                "chunk": pa.array(np.full(block.size, chunk_id, np.int32)),
                "event": pa.array(np.repeat(events, len(seats))).dictionary_encode(),
                "seat": pa.array(np.tile(np.array(seats, np.int8), len(events))),
                "count": pa.array(block.reshape(-1)),
                "n": pa.array(np.full(block.size, count, np.int64)),
            })
        }
        if config.options.get("per_deal"):
            hands, winner, kind = kernel.deal_rows(config.seed, start, count, players,
                                                   rules.cards_per_player, rules.instant_win_mask())
            names = np.array(["none", *INSTANT_WIN_KINDS])
            columns = {"deal": pa.array(np.arange(start, start + count, dtype=np.int64))}
            for s in range(players):
                columns[f"hand_{s}"] = pa.array(hands[:, s])
            columns["instant_winner"] = pa.array(winner)
            columns["instant_kind"] = pa.array(names[kind.astype(np.int64) + 1]).dictionary_encode()
            tables["per_deal"] = pa.table(columns)
        return tables


TASK = DealTask()
