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
    against: Optional[str] = typer.Option(None, "--against", help="the exploiter: train against a field of this "
                                                                   "policy only (every other seat), then report the "
                                                                   "trained player's gain over the policy itself in "
                                                                   "that field (how exploitable it is)"),
    eval_games: str = typer.Option("2000", "--eval-games", help="with --against: deals of the duplicate "
                                                                "evaluation (each seat in turn, a new seed)"),
    start: str = typer.Option("heuristic", "--start", help="iteration 0's weights: heuristic, or field (with "
                                                          "--against learned[:FILE]: the exploited model's own, "
                                                          "a fine-tune that starts level with it)"),
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

    With --against POLICY the training field is POLICY in every other seat (an exploiter),
    and at the end the trained model and POLICY itself each play every seat of a POLICY
    field on the same deals of a new seed: the paired gain in wins, points and score
    against the field, with 95% intervals, says how exploitable POLICY is. With
    --start field (POLICY a learned model) the exploiter starts from POLICY's own weights.
    """
    from cardsim.simcore.run.runner import set_threads

    spec = registry.get_spec(game)
    if not spec.trainer:
        raise ConfigError(f"{game} has no learned policy yet (cardsim train knows: "
                          f"{', '.join(n for n in registry.game_names() if registry.get_spec(n).trainer)})")
    if games is not None and minutes is not None:
        raise ConfigError("give --games or --minutes, not both")
    trainer = importlib.import_module(spec.trainer)
    from cardsim.simcore.framework import selfplay

    train_spec = trainer.SPEC
    field_policy = None
    if against is not None:
        field_policy = _field_policy(game, spec, against)
        weights_file = None
        if field_policy == "learned":
            weights_file = spec.play._learned().WEIGHTS_FILE
        elif field_policy.startswith("learned:"):
            weights_file = field_policy.partition(":")[2]
        try:
            train_spec = selfplay.against_field(train_spec, field_policy, weights_file, start=start)
        except (OSError, ValueError) as exc:
            raise ConfigError(f"--against {against}: {exc}") from None
    elif start != "heuristic":
        raise ConfigError(f"--start {start} needs --against learned or learned:FILE (the weights to start from)")
    eval_n = parse_count(eval_games, "--eval-games")
    seed_value = parse_seed(seed)
    n = parse_count(games, "--games") if games is not None else None
    if n is None and minutes is None:
        n = 40 * selfplay.games_per_iteration(train_spec)
    path = out if out is not None else Path(f"learned-{game}.txt")
    cores = set_threads(threads)
    if n is not None and not yes:
        _check_feasible(game, n, cores)
    t0 = time.monotonic()

    def progress(state) -> None:
        if not quiet:
            total = f"/{n // selfplay.games_per_iteration(train_spec)}" if n is not None else ""
            sys.stderr.write(f"iteration {state.iterations}{total}: {state.games:,} games, fitness "
                             f"{state.fitness[-1]:.4f}, {time.monotonic() - t0:.0f} s\n")

    state, started = selfplay.run_training(train_spec, path, seed_value, n, minutes, overwrite, progress)
    say_drawn_seed()
    command = selfplay.reproduce_command(train_spec, state.seed, state.games, path.name)
    if not quiet:
        resumed = f" (resumed at iteration {started})" if started else ""
        print(f"{path}: {state.iterations} iterations, {state.games:,} training games{resumed}; play it with "
              f"--policy 0=learned:{path}; reproduce: {command}")
    if field_policy is not None:
        _report_exploit(game, path, field_policy, state.seed, eval_n, threads, quiet)


def _field_policy(game: str, spec, against: str) -> str:
    """``--against``'s policy, canonical; an outside seat is refused (training plays compiled games)."""
    from cardsim.simcore.framework.outside import has_outside
    from cardsim.simcore.framework.tasks import canonical_policy

    policy = canonical_policy(against.strip(), spec.policies)
    if has_outside([policy]):
        raise ConfigError(f"--against {against}: training plays compiled games; an outside seat cannot be its field")
    if policy.startswith("oracle"):
        raise ConfigError(f"--against {against}: the oracle peeks at hidden cards; train against a fair player")
    return policy


#: The evaluation's run seed: a stream the training never plays (its seeds come from mix64 of seed·2^20 + k).
EVAL_SEED_OFFSET = 0x5EED_E7A1


def _report_exploit(game: str, path: Path, policy: str, seed: int, deals: int, threads, quiet: bool) -> None:
    """The exploiter's gain over ``policy`` in a field of ``policy`` (duplicate format: the
    trained model and ``policy`` each in every seat, same deals of a new seed)."""
    from cardsim import api
    from cardsim.analysis.ladder import paired_gain
    from cardsim.analysis.numbers import with_interval

    model = f"learned:{path}"
    eval_seed = (seed + EVAL_SEED_OFFSET) % (1 << 64)
    ladder = api.ladder(game, policies=[model, policy], field=policy, games=deals, seed=eval_seed,
                        threads=threads, progress=not quiet)
    model, policy = ladder.meta["policies"][0], ladder.meta["policies"][1]  # as the ladder names them (canonical)
    table = paired_gain(ladder.tables["games"], model, policy)
    print(f"exploiter: {path.name} vs {policy}, both in every seat of a {policy} field, {deals:,} deals per seat "
          f"(seed {eval_seed}):")
    for row in table.itertuples():
        print(f"  gain in {row.measure:<6} {with_interval(row.gain, row.ci_low, row.ci_high, signed=True)}  "
              f"(n = {row.n:,} paired deal-seats, ess {row.ess_factor:.2f})")


def _check_feasible(game: str, n: int, cores: int) -> None:
    """Refuse (one line with the estimate, as ``play`` does) a training that would take more than a
    day: its self-play games cost at least what the game's ``play`` games do."""
    from cardsim.simcore.run.estimate import MAX_SECONDS, estimate, human_time

    seconds, _ = estimate(game, "play", n, n, {}, cores)
    if seconds > MAX_SECONDS:
        raise ConfigError(f"this training would take about {human_time(seconds)} on {cores} core(s) "
                          f"({n:,} games): use a smaller --games, or --yes to run anyway")
