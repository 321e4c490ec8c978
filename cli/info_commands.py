"""The commands about the games themselves: ``games``, ``rules``."""
from __future__ import annotations

import sys


from cardsim.cli.render import print_plain_table
from cardsim.simcore.framework import registry

from cardsim.cli.app import app
from cardsim.cli.params import GameArg


@app.command("games")
def games_command() -> None:
    """List the games and the commands that run each."""
    specs = [registry.get_spec(name) for name in registry.game_names()]
    rows = [(s.name, ", ".join(_game_commands(s)), s.title) for s in specs]
    print_plain_table(("game", "commands", "description"), rows)


def _game_commands(spec) -> list[str]:
    """The commands that take ``spec``'s game: its tasks (``deal``, ``play``), ``replay``,
    ``ladder``, ``balance`` and ``tune`` (which races balance-card figures) where the game
    reports balance outcomes, ``experiment``, and ``exact`` where exact values exist,
    ``train`` where the game has a learned player."""
    names = [*registry.TASKS, "replay", "ladder", *(["balance", "tune"] if spec.balance else []), "experiment"]
    names += ["exact"] if spec.exact else []
    return names + ["train"] if spec.trainer else names


@app.command("rules")
def rules_command(game: GameArg) -> None:
    """Print every rule switch of GAME, its default and its allowed values."""
    import textwrap

    spec = registry.get_spec(game)
    cls = spec.rules_cls
    sys.stdout.write(f"{spec.title}\nRule switches (set with --set NAME=VALUE or a --rules TOML file):\n\n")
    for name, default, allowed, meaning in cls.describe():
        if cls.SWITCHES[name].kind == "choice" and len(allowed) > 60:  # 24 suit orders: a few, and the count
            choices = [c.strip() for c in allowed.split("|")]
            allowed = " | ".join(choices[:4]) + f" | ... ({len(choices)} values)"
        sys.stdout.write(f"{name} = {default}\n")
        body = f"{meaning}. Values: {allowed}."
        sys.stdout.write(textwrap.fill(body, width=80, initial_indent="    ", subsequent_indent="    ") + "\n")
    if cls.HOUSE_CHOICES:
        sys.stdout.write("\nHouse choices where the spec is silent (recorded in every run's metadata):\n")
        for key, text in cls.HOUSE_CHOICES.items():
            sys.stdout.write(textwrap.fill(f"{key}: {text}", width=80, initial_indent="  ",
                                           subsequent_indent="    ") + "\n")
    if spec.rules_doc:
        sys.stdout.write(f"\nThe rules as implemented: {spec.rules_doc}\n")
