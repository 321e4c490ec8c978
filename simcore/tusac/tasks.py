"""Tứ Sắc tasks: ``cardsim deal tusac`` (deal statistics) and ``cardsim play tusac`` (whole games).

Deal events (``counts`` table; ``seat`` -1 = the table, i.e. any seat):

- per seat and table: ``weak_hand`` (no General, no triple, no quadruple, no
  full-colour soldiers: the spec's mulligan condition), ``dealt_triple`` (some type held
  exactly 3 times), ``dealt_quadruple`` (some type held 4 times),
  ``dealt_triple_or_quadruple``, ``full_colour_soldiers`` (a Soldier of each colour),
  ``has_general``, ``generals_0 .. generals_7, generals_8plus`` (number of General cards;
  for the table: some seat has exactly that many);
- table only: ``weak_hands_0 .. weak_hands_<players>`` (exactly k weak hands) and, when
  the ``mulligan`` switch is on, ``mulligan`` (the deal is voided: some hand is weak).

Seat 0 is the dealer (21 cards), seats 1.. hold 20. Play: one row per game (columns:
:mod:`.play`); policies ``random``, ``heuristic``, ``search[:N]`` per seat.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pyarrow as pa

from cardsim.simcore.framework.outside import builtin_policies, has_outside, play_stepped, rows_to_columns
from cardsim.simcore.framework.tasks import (TABLE_SEAT, DealTaskBase, PlayTaskBase, counts_table, policy_budgets,
                                             with_peeking, with_plain_search)
from cardsim.simcore.tusac import deal as kernel
from cardsim.simcore.tusac.policies import POLICIES
from cardsim.simcore.tusac.rules import TuSacRules

#: Parallel blocks per chunk; any value gives the same counts.
BLOCKS_PER_CHUNK = 64
#: Per-deal output is for inspection; beyond this it would dwarf the counts.
MAX_PER_DEAL = 2_000_000  # 140 bytes per deal (5 x 28 int8 counts)


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


class DealTask(DealTaskBase):
    rules_cls = TuSacRules
    game = "tusac"
    max_per_deal = MAX_PER_DEAL

    @staticmethod
    def run_chunk(config, chunk_id: int) -> dict[str, pa.Table]:
        rules: TuSacRules = config.rules
        start, count = config.chunk_range(chunk_id)
        counts = kernel.deal_counts(config.seed, start, count, rules.players, BLOCKS_PER_CHUNK)
        rows = reported_rows(rules)
        values = np.array([counts[r, c] for _, _, r, c in rows], np.int64)
        tables = {"counts": counts_table(chunk_id, [name for name, *_ in rows], [s for _, s, *_ in rows],
                                         values, count)}
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


DEAL = DealTask()


#: Games per chunk when a seat searches (a search game costs about a thousand heuristic games).
SEARCH_CHUNK_GAMES = 1024


class PlayTask(PlayTaskBase):
    game = "tusac"
    rules_cls = TuSacRules
    policy_names = with_plain_search(with_peeking(POLICIES))
    learned_module = "cardsim.simcore.tusac.learned"

    def default_chunk_size(self, options: Mapping[str, Any]) -> int:
        """Smaller chunks when a seat searches, so progress and interrupts stay fine-grained."""
        policies = list(options.get("policies") or [])
        if policies and policy_budgets(policies, len(policies)).any():
            return SEARCH_CHUNK_GAMES
        return self.chunk_games

    @staticmethod
    def run_chunk(config, chunk_id: int) -> dict[str, pa.Table]:
        from cardsim.simcore.tusac.play import play_chunk

        start, count = config.chunk_range(chunk_id)
        policies = list(config.options["policies"])
        if has_outside(policies):  # an outside seat: every game stepped, rows as the kernels write them
            template = play_chunk(config.seed, start, 0, config.rules, builtin_policies(policies))
            rows = [r["games"] for r in play_stepped("tusac", config.rules, config.seed, start, count, policies)]
            columns = rows_to_columns(rows, template)
        else:
            columns = play_chunk(config.seed, start, count, config.rules, policies)
        return {"games": pa.table(columns)}

    @staticmethod
    def replay(seed: int, index: int, rules: TuSacRules, options: Mapping[str, Any]) -> list[str]:
        """Lines describing game ``index`` move by move, as the kernel played it."""
        from cardsim.simcore.tusac.replay import replay_game

        return replay_game(seed, index, rules, list(options["policies"]))


PLAY = PlayTask()
