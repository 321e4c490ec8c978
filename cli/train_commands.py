"""The ``train`` command: self-play training of a game's learned policy."""
from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path
from typing import Optional

import typer

from cardsim.cli.app import app
from cardsim.cli.params import GameArg, OverwriteOpt, QuietOpt, SeedOpt, ThreadsOpt, YesOpt
from cardsim.cli.runs import parse_count, parse_seed, say_drawn_seed
from cardsim.simcore.framework import registry
from cardsim.simcore.framework.config import ConfigError


@app.command("train")
def train_command(
    game: GameArg,
    seed: SeedOpt = None,
    games: Optional[str] = typer.Option(None, "--games", "-n", help="self-play games in all, checkpoint included "
                                                                    "(whole iterations; default 40 iterations)"),
    minutes: Optional[float] = typer.Option(None, "--minutes", help="stop after the iteration that passes this "
                                                                   "wall time (instead of --games)"),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="model file (text); an existing checkpoint of the "
                                                                 "same seed is resumed (default learned-GAME.txt)"),
    overwrite: OverwriteOpt = False,
    threads: ThreadsOpt = None,
    yes: YesOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Learn the `learned` policy's weights by self-play and write them as a text model file.

    Evolution strategies on duplicate deals: each iteration plays perturbed weights in
    every seat against the fields of the game's trainer and moves the weights toward the
    perturbations that win more. Deterministic for a seed whatever --threads; the file is
    rewritten after every iteration and names the command that reproduces it, and an
    interrupted run resumes from it. The model cardsim ships (`--policy learned`) came
    from the command in its first line (see docs/players.md).
    """
    from cardsim.simcore.run.runner import set_threads

    spec = registry.get_spec(game)
    if not spec.trainer:
        raise ConfigError(f"{game} has no learned policy yet (cardsim train knows: "
                          f"{', '.join(n for n in registry.game_names() if registry.get_spec(n).trainer)})")
    if games is not None and minutes is not None:
        raise ConfigError("give --games or --minutes, not both")
    trainer = importlib.import_module(spec.trainer)
    seed_value = parse_seed(seed)
    n = parse_count(games, "--games") if games is not None else None
    if n is None and minutes is None:
        n = 40 * trainer.games_per_iteration()
    path = out if out is not None else Path(f"learned-{game}.txt")
    cores = set_threads(threads)
    if n is not None and not yes:
        _check_feasible(game, n, cores)
    t0 = time.monotonic()

    def progress(state) -> None:
        if not quiet:
            total = f"/{n // trainer.games_per_iteration()}" if n is not None else ""
            sys.stderr.write(f"iteration {state.iterations}{total}: {state.games:,} games, fitness "
                             f"{state.fitness[-1]:.4f}, {time.monotonic() - t0:.0f} s\n")

    state, started = trainer.run_training(path, seed_value, n, minutes, overwrite, progress)
    say_drawn_seed()
    if not quiet:
        resumed = f" (resumed at iteration {started})" if started else ""
        print(f"{path}: {state.iterations} iterations, {state.games:,} training games{resumed}; play it with "
              f"--policy 0=learned:{path}; reproduce: {trainer.reproduce_command(state.seed, state.games, path.name)}")


def _check_feasible(game: str, n: int, cores: int) -> None:
    """Refuse (one line with the estimate, as ``play`` does) a training that would take more than a
    day: its self-play games cost at least what the game's ``play`` games do."""
    from cardsim.simcore.run.estimate import MAX_SECONDS, estimate, human_time

    seconds, _ = estimate(game, "play", n, n, {}, cores)
    if seconds > MAX_SECONDS:
        raise ConfigError(f"this training would take about {human_time(seconds)} on {cores} core(s) "
                          f"({n:,} games): use a smaller --games, or --yes to run anyway")
