"""``cardsim play tienlen``: whole games (or matches) as one row per game."""
from __future__ import annotations

from typing import Any, Mapping

import pyarrow as pa

from simcore.config import ConfigError
from simcore.tienlen.rules import TienLenRules

POLICY_NAMES = ("random", "greedy", "heuristic")
DEFAULT_POLICY = "heuristic"
#: Games per chunk (rounded down to whole matches): ~1-4 s of work per chunk.
CHUNK_GAMES = 1 << 17


def parse_policy_text(text: str, players: int) -> list[str]:
    """Parse ``--policy``: ``heuristic`` (all seats), ``heuristic,random,greedy,random``
    (one per seat) or ``0=heuristic,2=random`` (named seats; others get the default)."""
    text = str(text).strip()
    items = [x.strip() for x in text.split(",") if x.strip()]
    if not items:
        raise ConfigError("--policy is empty")
    if len(items) == 1 and "=" not in items[0]:
        items = items * players
    if all("=" in x for x in items):
        policies = [DEFAULT_POLICY] * players
        for item in items:
            seat_text, _, name = item.partition("=")
            try:
                seat = int(seat_text)
            except ValueError:
                raise ConfigError(f"bad --policy entry {item!r}: expected SEAT=POLICY") from None
            if not 0 <= seat < players:
                raise ConfigError(f"bad --policy entry {item!r}: seat must be 0..{players - 1}")
            policies[seat] = name.strip()
    elif any("=" in x for x in items):
        raise ConfigError(f"bad --policy {text!r}: use one name, a list of {players}, or SEAT=NAME pairs")
    else:
        if len(items) != players:
            raise ConfigError(f"--policy lists {len(items)} policies for {players} players")
        policies = items
    for name in policies:
        if name not in POLICY_NAMES:
            raise ConfigError(f"unknown policy '{name}' (known: {', '.join(POLICY_NAMES)})")
    return policies


class PlayTask:
    rules_cls = TienLenRules

    @staticmethod
    def tables(config) -> tuple[str, ...]:
        return ("games",)

    @staticmethod
    def parse_options(rules: TienLenRules, options: Mapping[str, Any]) -> dict[str, Any]:
        """Normalise user options (``policy`` text or list, ``games_per_match``)."""
        options = dict(options)
        policy = options.pop("policy", None)
        if policy is not None:
            if isinstance(policy, (list, tuple)):
                policy = ",".join(map(str, policy))
            options["policies"] = parse_policy_text(policy, rules.players)
        options.setdefault("policies", [DEFAULT_POLICY] * rules.players)
        options.setdefault("games_per_match", 1)
        return options

    @staticmethod
    def check_options(rules: TienLenRules, options: Mapping[str, Any]) -> None:
        unknown = set(options) - {"policies", "games_per_match"}
        if unknown:
            raise ConfigError(f"unknown option(s) for play tienlen: {', '.join(sorted(unknown))}")
        policies = options.get("policies")
        if not isinstance(policies, (list, tuple)) or len(policies) != rules.players \
                or any(p not in POLICY_NAMES for p in policies):
            raise ConfigError(f"policies must name one of {', '.join(POLICY_NAMES)} for each of {rules.players} seats")
        k = options.get("games_per_match")
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 10_000:
            raise ConfigError(f"--games-per-match must be an integer in 1..10000, got {k!r}")

    @staticmethod
    def default_chunk_size(options: Mapping[str, Any]) -> int:
        k = options.get("games_per_match", 1)
        return max(k, CHUNK_GAMES - CHUNK_GAMES % k)

    @staticmethod
    def check_chunk_size(chunk_size: int, options: Mapping[str, Any]) -> None:
        k = options.get("games_per_match", 1)
        if chunk_size % k:
            raise ConfigError(f"--chunk-size must be a multiple of --games-per-match ({k}) so chunks hold whole matches")

    @staticmethod
    def run_chunk(config, chunk_id: int) -> dict[str, pa.Table]:
        from simcore.tienlen.game import play_chunk

        start, count = config.chunk_range(chunk_id)
        columns = play_chunk(config.seed, start, count, config.rules, list(config.options["policies"]),
                             config.options["games_per_match"])
        return {"games": pa.table(columns)}

    @staticmethod
    def replay(seed: int, index: int, rules: TienLenRules, options: Mapping[str, Any]) -> list[str]:
        """Lines describing game ``index`` move by move, as the kernel played it."""
        from simcore.tienlen.game import replay_game

        return replay_game(seed, index, rules, list(options["policies"]), options["games_per_match"])


TASK = PlayTask()
