"""The ``deal`` and ``play`` tasks of Loba and Continental (``cardsim deal|play loba|continental``).

``deal`` (:class:`RummyDealTask`): per round of the contract list, how often each seat
(and any seat) holds the round's contract in its dealt cards, and with option
``draws=K`` in those cards plus its first K stock draws (:mod:`cardsim.simcore.rummy.deal`).

``play`` (:class:`RummyPlayTask`): whole games (matches of all rounds).

One task class parametrised per game: :data:`LOBA_PLAY_TASK`, :data:`CONTINENTAL_PLAY_TASK`.

Options: ``policy`` / ``policies`` (``random``, ``heuristic``, ``learned`` or ``learned:FILE``
(:mod:`cardsim.simcore.rummy.learned`), ``search`` or ``search:N``
(N rollouts per decision, default 64, playing for the match; ``search-plain:N`` plays for the
round's points; :mod:`cardsim.simcore.rummy.search`); one name, one per seat,
or ``SEAT=NAME`` pairs), ``claim_seats`` (seats allowed to claim: ``all`` (default),
``none``, ``"0,2"`` or a list; only meaningful with the rule switch ``claims``),
``max_turns`` (turn cap per round, default 400). A game is a whole match already (no
``games_per_match``).

Tables (``run_chunk`` returns both)
-----------------------------------
``hands`` (one row per game x round): ``game`` int64, ``round`` int8 (1-based: round 1 is the
first, as in the deal events ``contract_r1_...``),
``contract`` string (``2T``, ``1E1T`` ... / ``TT`` ... ``EEE``), ``went_out`` int8 (seat,
-1 when capped), ``turns`` int16, ``reshuffles`` int8 (clipped at 127), ``capped`` bool
(nobody went out: the turn cap or no card left to draw; ``turns < max_turns`` tells the
latter), ``closed_in_one_turn`` bool (the player who went out laid down on that same
turn: Continental's -10; in Loba "went out without having laid down before", always the
case in the final round), ``claims_s`` int8, ``laid_down_s`` bool, ``points_s`` int16.

``matches`` (one row per game): ``game`` int64, ``total_s`` int32, ``winner`` int8 (lowest
total; ties: the tied player who won a round most recently, then the lowest seat),
``claims_s`` int16, ``minus10_s`` int8 (Continental only), ``rounds_won_s`` int8.
"""
from __future__ import annotations

from typing import Any, Mapping

import pyarrow as pa

from cardsim.simcore.framework.config import ConfigError
from cardsim.simcore.framework.outside import builtin_policies, has_outside, play_stepped, rows_to_columns
from cardsim.simcore.rummy.rules import ContinentalRules, LobaRules
from cardsim.simcore.framework.tasks import (TABLE_SEAT, DealTaskBase, PlayTaskBase, grid_counts_table, policy_budgets,
                                             with_full_search, with_peeking, with_plain_search)

#: The play policies (codes: :data:`cardsim.simcore.rummy.policies.POLICIES`, the same order).
POLICY_NAMES = ("random", "heuristic", "search", "learned")
#: Games per chunk when a seat searches (a search:64 match costs about a thousand heuristic matches).
SEARCH_CHUNK_GAMES = 16


class RummyDealTask(DealTaskBase):
    """``cardsim deal <game>`` for a contract-rummy game; ``rules_cls`` provides

    ``rounds() -> [(label, k, m, cards dealt)]``, ``meld_params()`` and ``deck_jokers()``.
    Option ``draws`` (int K >= 0): also count ``contract_<label>_after_K``.
    """

    option_defaults = {"draws": 0}

    def __init__(self, rules_cls, game: str):
        self.rules_cls = rules_cls
        self.game = game

    def tables(self, config) -> tuple[str, ...]:
        return ("counts",)

    @staticmethod
    def draws_of(options) -> int:
        raw = (options or {}).get("draws", 0)
        if isinstance(raw, bool):
            raise ConfigError(f"bad value {raw!r} for option 'draws': expected an integer >= 0")
        try:
            k = int(str(raw).strip(), 10)
        except ValueError:
            raise ConfigError(f"bad value {raw!r} for option 'draws': expected an integer >= 0") from None
        if k < 0:
            raise ConfigError(f"bad value {raw!r} for option 'draws': expected an integer >= 0")
        return k

    def check_options(self, rules, options) -> None:
        from cardsim.simcore.rummy.deal import prefix_length

        unknown = set(options or {}) - {"draws"}
        if unknown:
            raise ConfigError(f"unknown option(s) for deal {self.game}: {', '.join(sorted(unknown))}")
        k = self.draws_of(options)
        deck = 104 + rules.deck_jokers()
        worst = max(prefix_length(rules.players, h, k) for _, _, _, h in rules.rounds())
        if worst > deck:
            limit = max(0, (deck - 1 - rules.players * max(h for *_, h in rules.rounds())) // rules.players)
            raise ConfigError(f"draws={k} needs {worst} cards but the pack has {deck} "
                              f"(stock reshuffles are not modelled): at most draws={limit} "
                              f"with {rules.players} players")

    def events(self, rules, draws: int) -> list[str]:
        out = []
        for label, *_ in rules.rounds():
            out.append(f"contract_{label}")
            if draws > 0:
                out.append(f"contract_{label}_after_{draws}")
        return out

    def run_chunk(self, config, chunk_id: int) -> dict[str, pa.Table]:
        from cardsim.simcore.rummy.deal import deal_counts

        rules = config.rules
        draws = self.draws_of(config.options)
        self.check_options(rules, config.options)
        start, count = config.chunk_range(chunk_id)
        players = rules.players
        rounds = [(k, m, h) for _, k, m, h in rules.rounds()]
        counts = deal_counts(config.seed, start, count, players, rounds, draws, rules.deck_jokers(),
                             rules.meld_params())
        block = counts if draws > 0 else counts[:, :1]
        block = block.reshape(-1, players + 1)  # rows in event order: per round (dealt, after_K)
        events = self.events(rules, draws)
        assert len(events) == block.shape[0] and TABLE_SEAT == -1
        return {"counts": grid_counts_table(chunk_id, events, block, count)}


def parse_claim_seats(value, players: int) -> list[int]:
    if value is None:
        return list(range(players))
    if isinstance(value, str):
        t = value.strip().lower()
        if t in ("all", ""):
            return list(range(players))
        if t == "none":
            return []
        value = [x for x in t.split(",") if x.strip()]
    try:
        seats = sorted({int(x) for x in value})
    except (TypeError, ValueError):
        raise ConfigError(f"bad claim_seats {value!r}: expected 'all', 'none' or seats like '0,2'") from None
    if any(not 0 <= s < players for s in seats):
        raise ConfigError(f"claim_seats must be seats 0..{players - 1}, got {seats}")
    return seats


class RummyPlayTask(PlayTaskBase):
    policy_names = with_full_search(with_plain_search(with_peeking(POLICY_NAMES)))
    option_defaults = {"claim_seats": "all", "max_turns": 400}
    #: Games (whole matches) per chunk: ~1-3 s of work per chunk and core.
    chunk_games = 1 << 13

    def __init__(self, rules_cls, game: str):
        self.rules_cls = rules_cls
        self.game = game
        #: the game's learned model (shipped file, read_weights): checked and noted by PlayTaskBase
        self.learned_module = f"cardsim.simcore.rummy.learned_{game}"

    @staticmethod
    def tables(config) -> tuple[str, ...]:
        return ("matches", "hands")

    def default_chunk_size(self, options: Mapping[str, Any]) -> int:
        """Smaller chunks when a seat searches, so progress and interrupts stay fine-grained."""
        policies = list(options.get("policies") or [])
        if policies and policy_budgets(policies, len(policies)).any():
            return SEARCH_CHUNK_GAMES
        return self.chunk_games

    def parse_options(self, rules, options: Mapping[str, Any]) -> dict[str, Any]:
        options = super().parse_options(rules, options)
        options["claim_seats"] = parse_claim_seats(options.get("claim_seats"), rules.players)
        return options

    def check_extra(self, rules, options: Mapping[str, Any]) -> None:
        seats = options.get("claim_seats", list(range(rules.players)))
        if not isinstance(seats, (list, tuple)) or any(not isinstance(s, int) or not 0 <= s < rules.players
                                                       for s in seats):
            raise ConfigError(f"claim_seats must be a list of seats 0..{rules.players - 1}")
        mt = options.get("max_turns", 400)
        if not isinstance(mt, int) or isinstance(mt, bool) or not 10 <= mt <= 10_000:
            raise ConfigError(f"max_turns must be an integer in 10..10000, got {mt!r}")

    def check_outside(self, rules, options: Mapping[str, Any]) -> None:
        """The step interface plays every seat's claims and the default turn cap: outside
        seats need ``claim_seats`` all and ``max_turns`` 400."""
        super().check_outside(rules, options)
        if list(options.get("claim_seats", range(rules.players))) != list(range(rules.players)):
            raise ConfigError("outside seats play through the step interface, where every seat may claim: "
                              "drop --claim-seats")
        if int(options.get("max_turns", 400)) != 400:
            raise ConfigError("outside seats play through the step interface, whose turn cap is 400: drop --max-turns")

    @staticmethod
    def _args(options):
        return (list(options["policies"]), list(options.get("claim_seats", [])) if "claim_seats" in options else None,
                int(options.get("max_turns", 400)))

    def run_chunk(self, config, chunk_id: int) -> dict[str, pa.Table]:
        from cardsim.simcore.rummy.play import play_chunk

        start, count = config.chunk_range(chunk_id)
        policies, seats, mt = self._args(config.options)
        if has_outside(policies):  # an outside seat: every match stepped, rows as the kernels write them
            template = play_chunk(config.seed, start, 0, config.rules, builtin_policies(policies), seats, max_turns=mt)
            results = play_stepped(self.game, config.rules, config.seed, start, count, policies)
            cols = {"hands": rows_to_columns([h for r in results for h in r["hands"]], template["hands"]),
                    "matches": rows_to_columns([r["matches"] for r in results], template["matches"])}
        else:
            cols = play_chunk(config.seed, start, count, config.rules, policies, seats, max_turns=mt)
        hands = dict(cols["hands"])
        hands["contract"] = pa.array(list(hands["contract"]), pa.string()).dictionary_encode()
        return {"hands": pa.table(hands), "matches": pa.table(cols["matches"])}

    def replay(self, seed: int, index: int, rules, options: Mapping[str, Any]) -> list[str]:
        from cardsim.simcore.rummy.replay import replay_game

        policies, seats, mt = self._args(options)
        return replay_game(seed, index, rules, policies, seats, mt)


LOBA_DEAL_TASK = RummyDealTask(LobaRules, "loba")
CONTINENTAL_DEAL_TASK = RummyDealTask(ContinentalRules, "continental")
LOBA_PLAY_TASK = RummyPlayTask(LobaRules, "loba")
CONTINENTAL_PLAY_TASK = RummyPlayTask(ContinentalRules, "continental")
