"""The one list of games: ``name -> "module:ATTRIBUTE"`` of the game's
:class:`~cardsim.simcore.framework.spec.GameSpec` (``SPEC`` when no attribute is named). Adding a game is its package plus one line here.

Spec modules are imported lazily (on first use) so that ``cardsim --help`` loads no
kernels; a spec module imports rules and task classes only, never numba code.
"""
from __future__ import annotations

import importlib
from functools import lru_cache
from typing import Any

from cardsim.simcore.framework.config import ConfigError

GAMES: dict[str, str] = {
    "tienlen": "cardsim.simcore.tienlen.spec",
    "tusac": "cardsim.simcore.tusac.spec",
    "loba": "cardsim.simcore.rummy.spec:LOBA",
    "continental": "cardsim.simcore.rummy.spec:CONTINENTAL",
    "bigtwo": "cardsim.simcore.bigtwo.spec",
}

TASKS = ("deal", "play")


def game_names() -> list[str]:
    return list(GAMES)


@lru_cache(maxsize=None)
def get_spec(game: str):
    """The :class:`GameSpec` of a game, or :class:`ConfigError` naming the known games."""
    if game not in GAMES:
        raise ConfigError(f"unknown game '{game}' (known: {', '.join(GAMES)})")
    module, _, attribute = GAMES[game].partition(":")
    spec = getattr(importlib.import_module(module), attribute or "SPEC")
    if spec.name != game:
        raise TypeError(f"{GAMES[game]}.SPEC is named {spec.name!r}, registered as {game!r}")
    return spec


def rules_class(game: str) -> Any:
    """The :class:`Rules` subclass of a game."""
    return get_spec(game).rules_cls


def tasks_of(game: str) -> list[str]:
    get_spec(game)
    return list(TASKS)


def get_task(game: str, task: str) -> Any:
    """The :class:`~cardsim.simcore.framework.tasks.Task` of a game's task, or :class:`ConfigError`."""
    return get_spec(game).task(task)
