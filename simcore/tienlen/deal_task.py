"""``cardsim deal tienlen``: deal statistics as chunk tables."""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from cardsim.simcore.tasks import DealTaskBase, grid_counts_table
from cardsim.simcore.tienlen import deal as kernel
from cardsim.simcore.tienlen.rules import INSTANT_WIN_KINDS, TienLenRules

#: Parallel blocks per chunk; any value gives the same counts.
BLOCKS_PER_CHUNK = 64


def reported_events(rules: TienLenRules) -> list[str]:
    """Events of the counts table (instant-win kinds only when enabled)."""
    disabled = {f"instant_win_{k}" for k in INSTANT_WIN_KINDS if k not in rules.instant_wins}
    return [e for e in kernel.EVENTS if e not in disabled]


class DealTask(DealTaskBase):
    rules_cls = TienLenRules
    game = "tienlen"

    @staticmethod
    def run_chunk(config, chunk_id: int) -> dict[str, pa.Table]:
        rules: TienLenRules = config.rules
        start, count = config.chunk_range(chunk_id)
        players = rules.players
        counts = kernel.deal_counts(config.seed, start, count, players, rules.cards_per_player,
                                    rules.instant_win_mask(), BLOCKS_PER_CHUNK, rules.black_mask())
        events = reported_events(rules)
        block = counts[[kernel.EVENTS.index(e) for e in events]]  # (len(events), players + 1)
        tables = {"counts": grid_counts_table(chunk_id, events, block, count)}
        if config.options.get("per_deal"):
            hands, winner, kind = kernel.deal_rows(config.seed, start, count, players, rules.cards_per_player,
                                                   rules.instant_win_mask(), rules.black_mask())
            names = np.array(["none", *INSTANT_WIN_KINDS])
            columns = {"deal": pa.array(np.arange(start, start + count, dtype=np.int64))}
            for s in range(players):
                columns[f"hand_{s}"] = pa.array(hands[:, s])
            columns["instant_winner"] = pa.array(winner)
            columns["instant_kind"] = pa.array(names[kind.astype(np.int64) + 1]).dictionary_encode()
            tables["per_deal"] = pa.table(columns)
        return tables


TASK = DealTask()
