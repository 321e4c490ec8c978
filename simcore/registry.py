"""Which games and tasks exist, and where their code lives.

Each (game, task) pair maps to a module exposing a ``TASK`` object with:

- ``rules_cls``: the game's :class:`~simcore.config.Rules` subclass;
- ``tables(config) -> tuple[str, ...]``: the output tables a run writes;
- ``run_chunk(config, chunk_id) -> dict[str, pyarrow.Table]``;
- ``check_options(rules, options)``: raise ConfigError for bad task options.

Summaries of finished runs live on the pandas side (:mod:`analysis`).

Modules are imported lazily so that ``cardsim --help`` does not load numba kernels.
"""
from __future__ import annotations

import importlib
from typing import Any

from cardsim.simcore.config import ConfigError

#: game -> (one-line description, rules module:class, {task: module})
GAMES: dict[str, tuple[str, str, dict[str, str]]] = {
    "tienlen": (
        "Tiến Lên (Vietnamese climbing game), 2-4 players, 52 cards",
        "cardsim.simcore.tienlen.rules:TienLenRules",
        {"deal": "cardsim.simcore.tienlen.deal_task", "play": "cardsim.simcore.tienlen.play_task"},
    ),
    "tusac": (
        "Four-colour cards (Tứ Sắc), 2-4 players, 112 cards",
        "cardsim.simcore.tusac.rules:TuSacRules",
        {"deal": "cardsim.simcore.tusac.deal_task", "play": "cardsim.simcore.tusac.play_task"},
    ),
    "loba": (
        "Loba / Carioca (contract rummy), 2-5 players, 108 cards",
        "cardsim.simcore.rummy.loba:LobaRules",
        {"deal": "cardsim.simcore.rummy.loba", "play": "cardsim.simcore.rummy.loba_play"},
    ),
    "continental": (
        "Continental (Spanish contract rummy), 2-4 players, 110 cards",
        "cardsim.simcore.rummy.continental:ContinentalRules",
        {"deal": "cardsim.simcore.rummy.continental", "play": "cardsim.simcore.rummy.continental_play"},
    ),
}


def game_names() -> list[str]:
    return list(GAMES)


def _check_game(game: str) -> None:
    if game not in GAMES:
        raise ConfigError(f"unknown game '{game}' (known: {', '.join(GAMES)})")


def rules_class(game: str) -> Any:
    """The :class:`Rules` subclass of a game."""
    _check_game(game)
    module, _, name = GAMES[game][1].partition(":")
    return getattr(importlib.import_module(module), name)


def tasks_of(game: str) -> list[str]:
    _check_game(game)
    return list(GAMES[game][2])


def get_task(game: str, task: str) -> Any:
    """The ``TASK`` object of a game's task, or :class:`ConfigError`."""
    _check_game(game)
    tasks = GAMES[game][2]
    if task not in tasks:
        raise ConfigError(f"'{task}' is not available for {game} yet (available: {', '.join(tasks)})")
    return importlib.import_module(tasks[task]).TASK
