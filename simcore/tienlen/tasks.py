"""``cardsim deal tienlen`` and ``cardsim play tienlen``: the deal and play tasks."""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pyarrow as pa

from cardsim.simcore.framework.config import ConfigError
from cardsim.simcore.framework.outside import builtin_policies, has_outside, play_stepped, rows_to_columns
from cardsim.simcore.framework.tasks import (DealTaskBase, PlayTaskBase, grid_counts_table, policy_budgets,
                                             with_peeking, with_plain_search)
from cardsim.simcore.tienlen import deal as kernel
from cardsim.simcore.tienlen.policies import POLICIES
from cardsim.simcore.tienlen.rules import INSTANT_WIN_KINDS, TienLenRules

#: Parallel blocks per deal chunk; any value gives the same counts.
BLOCKS_PER_CHUNK = 64
#: Chunks of games with search seats hold about this many budget units (rollouts per
#: decision, summed over the seats) x games: 4096 games with one search:64 seat.
SEARCH_CHUNK_ROLLOUTS = 4096 * 64


def reported_events(rules: TienLenRules) -> list[str]:
    """Events of the counts table (instant-win kinds only when enabled)."""
    disabled = {f"instant_win_{k}" for k in INSTANT_WIN_KINDS if k not in rules.instant_wins}
    return [e for e in kernel.EVENTS if e not in disabled]


#: The values of ``instant_kind`` columns, in the order of their codes + 1.
INSTANT_KIND_NAMES = ("none", *INSTANT_WIN_KINDS)


def instant_kind_names(codes) -> pa.Array:
    """Instant-win kind codes (-1 none) as a dictionary-encoded string column (``none`` or
    a name of ``INSTANT_WIN_KINDS``). Every chunk carries the same full dictionary, so
    chunks concatenate into one categorical whatever kinds each happens to hold."""
    indices = pa.array(np.asarray(codes, np.int64).astype(np.int8) + 1, pa.int8())
    return pa.DictionaryArray.from_arrays(indices, pa.array(INSTANT_KIND_NAMES))


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
            columns = {"deal": pa.array(np.arange(start, start + count, dtype=np.int64))}
            for s in range(players):
                columns[f"hand_{s}"] = pa.array(hands[:, s])
            columns["instant_winner"] = pa.array(winner)
            columns["instant_kind"] = instant_kind_names(kind)
            tables["per_deal"] = pa.table(columns)
        return tables


class PlayTask(PlayTaskBase):
    game = "tienlen"
    rules_cls = TienLenRules
    policy_names = with_plain_search(with_peeking(POLICIES))
    option_defaults = {"games_per_match": 1}
    learned_module = "cardsim.simcore.tienlen.learned"

    def check_extra(self, rules: TienLenRules, options: Mapping[str, Any]) -> None:
        k = options.get("games_per_match")
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 10_000:
            raise ConfigError(f"--games-per-match must be an integer in 1..10000, got {k!r}")

    def default_chunk_size(self, options: Mapping[str, Any]) -> int:
        k = options.get("games_per_match", 1)
        games = self.chunk_games
        policies = options.get("policies") or ()
        searched = int(policy_budgets(list(policies), len(policies)).sum()) if policies else 0
        if searched:  # a search seat makes a game ~budget/64 x 3 ms: keep chunks to seconds
            games = max(256, min(games, SEARCH_CHUNK_ROLLOUTS // searched))
        return max(k, games - games % k)

    def check_chunk_size(self, chunk_size: int, options: Mapping[str, Any]) -> None:
        k = options.get("games_per_match", 1)
        if chunk_size % k:
            raise ConfigError(f"--chunk-size must be a multiple of --games-per-match ({k}) so chunks hold whole matches")

    @staticmethod
    def run_chunk(config, chunk_id: int) -> dict[str, pa.Table]:
        from cardsim.simcore.tienlen.play import play_chunk

        start, count = config.chunk_range(chunk_id)
        policies, k = list(config.options["policies"]), config.options["games_per_match"]
        if has_outside(policies):  # an outside seat: every game stepped, rows as the kernels write them
            template = play_chunk(config.seed, start, 0, config.rules, builtin_policies(policies), k)
            rows = [r["games"] for r in play_stepped("tienlen", config.rules, config.seed, start, count, policies, k)]
            columns = rows_to_columns(rows, template, {"instant_kind": lambda name: INSTANT_KIND_NAMES.index(name) - 1})
        else:
            columns = play_chunk(config.seed, start, count, config.rules, policies, k)
        columns["instant_kind"] = instant_kind_names(columns["instant_kind"])
        return {"games": pa.table(columns)}

    def replay(self, seed: int, index: int, rules: TienLenRules, options: Mapping[str, Any]) -> list[str]:
        """Lines describing game ``index`` move by move, as the kernel played it."""
        from cardsim.simcore.tienlen.replay import replay_game

        return replay_game(seed, index, rules, list(options["policies"]), options["games_per_match"])


DEAL = DealTask()
PLAY = PlayTask()
