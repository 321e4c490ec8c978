"""``cardsim play tusac``: whole Tứ Sắc games, one row per game (columns: :mod:`.game`)."""
from __future__ import annotations

from typing import Any, Mapping

import pyarrow as pa

from simcore.config import ConfigError
from simcore.tusac.rules import TuSacRules

POLICY_NAMES = ("random", "heuristic")
DEFAULT_POLICY = "heuristic"
#: Games per chunk: about 2-3 s of work per chunk on one core (~10 MB of rows).
CHUNK_GAMES = 1 << 17


def parse_policy_text(text: str, players: int) -> list[str]:
    """Parse ``--policy``: ``heuristic`` (all seats), ``heuristic,random,random,random``
    (one per seat) or ``0=random,2=random`` (named seats; others get the default)."""
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
    rules_cls = TuSacRules

    @staticmethod
    def tables(config) -> tuple[str, ...]:
        return ("games",)

    @staticmethod
    def parse_options(rules: TuSacRules, options: Mapping[str, Any]) -> dict[str, Any]:
        """Normalise user options: ``policy`` text or list -> ``policies`` (one per seat).
        ``games_per_match`` (sent by ``cardsim replay``) is accepted only as 1: Tứ Sắc
        games are independent."""
        options = dict(options)
        k = options.pop("games_per_match", 1)
        if k not in (1, None):
            raise ConfigError("tusac games are independent: --games-per-match must be 1")
        policy = options.pop("policy", None)
        if policy is not None:
            if isinstance(policy, (list, tuple)):
                policy = ",".join(map(str, policy))
            options["policies"] = parse_policy_text(policy, rules.players)
        options.setdefault("policies", [DEFAULT_POLICY] * rules.players)
        return options

    @staticmethod
    def check_options(rules: TuSacRules, options: Mapping[str, Any]) -> None:
        unknown = set(options) - {"policies"}
        if unknown:
            raise ConfigError(f"unknown option(s) for play tusac: {', '.join(sorted(unknown))}")
        policies = options.get("policies")
        if not isinstance(policies, (list, tuple)) or len(policies) != rules.players \
                or any(p not in POLICY_NAMES for p in policies):
            raise ConfigError(f"policies must name one of {', '.join(POLICY_NAMES)} for each of "
                              f"{rules.players} seats")

    @staticmethod
    def default_chunk_size(options: Mapping[str, Any]) -> int:
        return CHUNK_GAMES

    @staticmethod
    def run_chunk(config, chunk_id: int) -> dict[str, pa.Table]:
        from simcore.tusac.game import play_chunk

        start, count = config.chunk_range(chunk_id)
        columns = play_chunk(config.seed, start, count, config.rules, list(config.options["policies"]))
        return {"games": pa.table(columns)}

    @staticmethod
    def replay(seed: int, index: int, rules: TuSacRules, options: Mapping[str, Any]) -> list[str]:
        """Lines describing game ``index`` move by move, as the kernel played it."""
        from simcore.tusac.game import replay_game

        return replay_game(seed, index, rules, list(options["policies"]))


TASK = PlayTask()
