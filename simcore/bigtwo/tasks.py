"""``cardsim deal bigtwo`` and ``cardsim play bigtwo``: the deal and play tasks (on the Tiến Lên engine)."""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pyarrow as pa

from cardsim.simcore.bigtwo import deal as kernel
from cardsim.simcore.bigtwo.rules import BigTwoRules
from cardsim.simcore.framework.outside import builtin_policies, has_outside, play_stepped, rows_to_columns
from cardsim.simcore.framework.tasks import DealTaskBase, grid_counts_table
from cardsim.simcore.tienlen.tasks import PlayTask as TienLenPlayTask

BLOCKS_PER_CHUNK = 64
#: Per-seat columns of the engine's games table that mean nothing in Big Two (no bombs, chops, instant wins).
_DROPPED_SEAT = ("bombs_dealt", "chops", "twos_chopped")
_DROPPED = ("instant_kind", "instant_winner")
_RENAMED = {"three_spades_seat": "three_diamonds_seat"}
_RENAMED_SEAT = {"bombs_played": "five_card_plays"}


def bigtwo_columns(columns: Mapping[str, Any]) -> dict[str, Any]:
    """The engine's games columns (:func:`cardsim.simcore.tienlen.play.play_chunk`, or one
    row of them) as Big Two's games table names them: ``three_diamonds_seat`` (the 3♦
    holder, -1 if not dealt), ``five_card_plays_s`` (five-card hands played, and fours
    played alone with ``four_card_quads``); no instant-win, bomb or chop columns."""
    out = {}
    for name, value in columns.items():
        stem, _, seat = name.rpartition("_")
        if name in _DROPPED or (seat.isdigit() and stem in _DROPPED_SEAT):
            continue
        if name in _RENAMED:
            name = _RENAMED[name]
        elif seat.isdigit() and stem in _RENAMED_SEAT:
            name = f"{_RENAMED_SEAT[stem]}_{seat}"
        out[name] = value
    return out


class DealTask(DealTaskBase):
    rules_cls = BigTwoRules
    game = "bigtwo"

    @staticmethod
    def run_chunk(config, chunk_id: int) -> dict[str, pa.Table]:
        rules: BigTwoRules = config.rules
        start, count = config.chunk_range(chunk_id)
        counts = kernel.deal_counts(config.seed, start, count, rules.players, rules.cards_per_player, rules.straights,
                                    BLOCKS_PER_CHUNK)
        tables = {"counts": grid_counts_table(chunk_id, list(kernel.EVENTS), counts, count)}
        if config.options.get("per_deal"):
            from cardsim.simcore.tienlen.deal import deal_rows

            hands, _, _ = deal_rows(config.seed, start, count, rules.players, rules.cards_per_player, 0,
                                    rules.black_mask())
            columns = {"deal": pa.array(np.arange(start, start + count, dtype=np.int64))}
            for s in range(rules.players):
                columns[f"hand_{s}"] = pa.array(hands[:, s])
            tables["per_deal"] = pa.table(columns)
        return tables


class PlayTask(TienLenPlayTask):
    game = "bigtwo"
    rules_cls = BigTwoRules
    learned_module = "cardsim.simcore.bigtwo.learned"

    @staticmethod
    def run_chunk(config, chunk_id: int) -> dict[str, pa.Table]:
        from cardsim.simcore.tienlen.play import play_chunk

        start, count = config.chunk_range(chunk_id)
        policies, k = list(config.options["policies"]), config.options["games_per_match"]
        if has_outside(policies):  # an outside seat: every game stepped, rows as the kernels write them
            template = bigtwo_columns(play_chunk(config.seed, start, 0, config.rules, builtin_policies(policies), k))
            rows = [r["games"] for r in play_stepped("bigtwo", config.rules, config.seed, start, count, policies, k)]
            columns = rows_to_columns(rows, template)
        else:
            columns = bigtwo_columns(play_chunk(config.seed, start, count, config.rules, policies, k))
        return {"games": pa.table(columns)}


DEAL = DealTask()
PLAY = PlayTask()
