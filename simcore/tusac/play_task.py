"""``cardsim play tusac``: whole Tứ Sắc games, one row per game (columns: :mod:`.game`)."""
from __future__ import annotations

from typing import Any, Mapping

import pyarrow as pa

from cardsim.simcore.tasks import PlayTaskBase
from cardsim.simcore.tusac.rules import TuSacRules

POLICY_NAMES = ("random", "heuristic")


class PlayTask(PlayTaskBase):
    game = "tusac"
    rules_cls = TuSacRules
    policy_names = POLICY_NAMES

    @staticmethod
    def run_chunk(config, chunk_id: int) -> dict[str, pa.Table]:
        from cardsim.simcore.tusac.game import play_chunk

        start, count = config.chunk_range(chunk_id)
        columns = play_chunk(config.seed, start, count, config.rules, list(config.options["policies"]))
        return {"games": pa.table(columns)}

    @staticmethod
    def replay(seed: int, index: int, rules: TuSacRules, options: Mapping[str, Any]) -> list[str]:
        """Lines describing game ``index`` move by move, as the kernel played it."""
        from cardsim.simcore.tusac.game import replay_game

        return replay_game(seed, index, rules, list(options["policies"]))


TASK = PlayTask()
