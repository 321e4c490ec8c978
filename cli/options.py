"""The game-specific command-line flags, built from every game's ``GameSpec.options``.

A game declares its own task options once (:class:`~cardsim.simcore.framework.spec.OptionSpec`:
name, task, help, type, short flag); :func:`with_game_options` adds one flag per
declared option to a command, its help naming the games that take it, and the
command receives the values in ``**game_options``. A game given an option it does not
declare is refused by its task (exit 2), like any other bad input.
"""
from __future__ import annotations

import inspect
from typing import Annotated, Any, Callable, Optional

import typer

from cardsim.simcore.framework import registry


def declared_options(task: str) -> dict[str, tuple[Any, list[str]]]:
    """``{name: (OptionSpec, [games])}``: the options of ``task`` that registered games
    declare (an option several games share is listed once, with all of them)."""
    merged: dict[str, tuple[Any, list[str]]] = {}
    for game in registry.game_names():
        for option in registry.get_spec(game).options:
            if option.task == task:
                if option.name in merged and merged[option.name][0].kind is not option.kind:
                    raise TypeError(f"option {option.name!r} is declared with two types")
                merged.setdefault(option.name, (option, []))[1].append(game)
    return merged


def with_game_options(task: str) -> Callable[[Callable], Callable]:
    """Decorator: add a ``--flag`` per declared option of ``task`` to a Typer command
    whose function takes ``**game_options``."""
    def decorate(fn: Callable) -> Callable:
        signature = inspect.signature(fn, eval_str=True)
        params = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
        for name, (option, games) in declared_options(task).items():
            flags = [option.flag] + ([option.short] if option.short else [])
            info = typer.Option(*flags, help=f"{', '.join(games)}: {option.help}", metavar=option.metavar or None)
            params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None,
                                            annotation=Annotated[Optional[option.kind], info]))
        fn.__signature__ = signature.replace(parameters=params)
        return fn
    return decorate


def given_options(game_options: dict[str, Any]) -> dict[str, Any]:
    """The game options the user gave (flags left out are ``None``)."""
    return {name: value for name, value in game_options.items() if value is not None}
