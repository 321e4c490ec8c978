"""``cardsim play tienlen``: whole games (or matches) as one row per game."""
from __future__ import annotations

from typing import Any, Mapping

import pyarrow as pa

from cardsim.simcore.config import ConfigError
from cardsim.simcore.tasks import PlayTaskBase
from cardsim.simcore.tienlen.rules import TienLenRules

POLICY_NAMES = ("random", "greedy", "heuristic")


class PlayTask(PlayTaskBase):
    game = "tienlen"
    rules_cls = TienLenRules
    policy_names = POLICY_NAMES
    option_defaults = {"games_per_match": 1}

    def check_extra(self, rules: TienLenRules, options: Mapping[str, Any]) -> None:
        k = options.get("games_per_match")
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 10_000:
            raise ConfigError(f"--games-per-match must be an integer in 1..10000, got {k!r}")

    def default_chunk_size(self, options: Mapping[str, Any]) -> int:
        k = options.get("games_per_match", 1)
        return max(k, self.chunk_games - self.chunk_games % k)

    @staticmethod
    def check_chunk_size(chunk_size: int, options: Mapping[str, Any]) -> None:
        k = options.get("games_per_match", 1)
        if chunk_size % k:
            raise ConfigError(f"--chunk-size must be a multiple of --games-per-match ({k}) so chunks hold whole matches")

    @staticmethod
    def run_chunk(config, chunk_id: int) -> dict[str, pa.Table]:
        from cardsim.simcore.tienlen.game import play_chunk

        start, count = config.chunk_range(chunk_id)
        columns = play_chunk(config.seed, start, count, config.rules, list(config.options["policies"]),
                             config.options["games_per_match"])
        return {"games": pa.table(columns)}

    @staticmethod
    def replay(seed: int, index: int, rules: TienLenRules, options: Mapping[str, Any]) -> list[str]:
        """Lines describing game ``index`` move by move, as the kernel played it."""
        from cardsim.simcore.tienlen.game import replay_game

        return replay_game(seed, index, rules, list(options["policies"]), options["games_per_match"])


TASK = PlayTask()
