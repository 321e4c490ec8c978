"""The commands that run a game: ``deal``, ``play``, ``replay``."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, List, Optional

import typer


from cardsim.cli.options import given_options, with_game_options
from cardsim.cli.render import compiling_notice
from cardsim.cli.runs import (STATE, _required, check_custom_metrics, execute_precision_run, execute_run,
                              parse_count, parse_seed, resolve_rules, task_options)
from cardsim.simcore.framework import registry
from cardsim.simcore.framework.config import ConfigError
from cardsim.simcore.framework.spec import option_flag

from cardsim.cli.app import app
from cardsim.cli.params import (BackendOpt, GameArg, JsonOpt, MaxOpt, MetricOpt, OutOpt, OverwriteOpt, PolicyOpt,
                                PrecisionOpt, QuietOpt, ResumeOpt, RulesFileOpt, SchedulerOpt, SeedOpt, SetsOpt,
                                TargetOpt, ThreadsOpt, WorkersOpt, YesOpt)


@app.command("deal")
@with_game_options("deal")
def deal_command(
    game: GameArg,
    deals: Optional[str] = typer.Option(None, "--deals", "-n", help="number of deals, e.g. 1000000, 1e6, 10M "
                                                                    "(required unless --precision)"),
    seed: SeedOpt = None,
    threads: ThreadsOpt = None,
    sets: SetsOpt = [],
    rules_file: RulesFileOpt = None,
    out: OutOpt = None,
    overwrite: OverwriteOpt = False,
    per_deal: bool = typer.Option(False, "--per-deal", help="also write one row per deal with every hand (small runs, for inspection)"),
    events: List[str] = typer.Option([], "--event", help="your own deal event PATH.py:FUNCTION (repeatable): "
                                     "FUNCTION(hand) -> bool, compiled with Numba and counted per seat and for "
                                     "the table (hand: Tiến Lên an int64 52-bit mask, Tứ Sắc int8[28] counts)"),
    chunk_size: Optional[int] = typer.Option(None, "--chunk-size", help="deals per chunk / Parquet part"),
    quiet: QuietOpt = False,
    as_json: JsonOpt = False,
    backend: BackendOpt = "local",
    scheduler: SchedulerOpt = None,
    workers: WorkersOpt = None,
    resume: ResumeOpt = False,
    precision: PrecisionOpt = None,
    targets: TargetOpt = [],
    max_n: MaxOpt = None,
    yes: YesOpt = False,
    **game_options: Any,
) -> None:
    """Deal N random hands and count deal events per seat and for the table.

    Prints event, seat, count, n, rate and a 95% Wilson interval. With --out, writes
    a dataset (counts/ parts + run.json) readable by pandas and `cardsim summary`.
    """
    STATE.yes = yes
    if per_deal and out is None:
        raise ConfigError("--per-deal writes one row per deal to keep: it needs --out PATH")
    options: dict[str, Any] = {"per_deal": True} if per_deal else {}
    options.update(given_options(game_options))
    if events:
        from cardsim.simcore.framework.custom import split_ref

        # absolute paths: a resumed run or a Dask worker must find the same file
        options["events"] = [f"{split_ref(e, '--event')[0].resolve()}:{split_ref(e, '--event')[1]}" for e in events]
    if precision is not None:
        execute_precision_run(game, "deal", deals, max_n, precision, targets, seed, threads, sets, rules_file, out,
                              overwrite, chunk_size, quiet, as_json, options, backend, resume)
        return
    n = parse_count(_required(deals, "--deals"), "--deals")
    _check_precision_flags(precision, targets, max_n)
    execute_run(game, "deal", n, seed, threads, sets, rules_file, out, overwrite, chunk_size, quiet,
                as_json, options, backend, scheduler, workers, resume)


@app.command("play")
@with_game_options("play")
def play_command(
    game: GameArg,
    games: Optional[str] = typer.Option(None, "--games", "-n", help="number of games, e.g. 100000, 1e5, 1M "
                                                                    "(required unless --precision)"),
    seed: SeedOpt = None,
    threads: ThreadsOpt = None,
    policy: PolicyOpt = None,
    sets: SetsOpt = [],
    rules_file: RulesFileOpt = None,
    out: OutOpt = None,
    overwrite: OverwriteOpt = False,
    chunk_size: Optional[int] = typer.Option(None, "--chunk-size", help="games per chunk / Parquet part (default: "
                                             "the game's; a run estimated over 10 s that fits in fewer than 32 "
                                             "chunks is split into about 32, for progress)"),
    quiet: QuietOpt = False,
    as_json: JsonOpt = False,
    backend: BackendOpt = "local",
    scheduler: SchedulerOpt = None,
    workers: WorkersOpt = None,
    resume: ResumeOpt = False,
    metrics: MetricOpt = [],
    precision: PrecisionOpt = None,
    targets: TargetOpt = [],
    max_n: MaxOpt = None,
    yes: YesOpt = False,
    **game_options: Any,
) -> None:
    """Play N whole games with the chosen policies; one row per game.

    Prints win rate and points by seat and by policy plus the game's own answers (Tiến
    Lên: the 3♠ holder's advantage, win rate by 2s dealt; Tứ Sắc: steals and how the
    winning card was taken; Loba/Continental: claims, -10 closes), each with a 95%
    interval. With --out, writes the per-game table(s).
    """
    check_custom_metrics(metrics)
    STATE.yes = yes
    options: dict[str, Any] = given_options(game_options)
    if policy is not None:
        options["policy"] = policy
    if precision is not None:
        execute_precision_run(game, "play", games, max_n, precision, targets, seed, threads, sets, rules_file, out,
                              overwrite, chunk_size, quiet, as_json, options, backend, resume)
        return
    n = parse_count(_required(games, "--games"), "--games")
    _check_precision_flags(precision, targets, max_n)
    execute_run(game, "play", n, seed, threads, sets, rules_file, out, overwrite, chunk_size, quiet,
                as_json, options, backend, scheduler, workers, resume)


@app.command("replay")
@with_game_options("play")
def replay_command(
    game: Optional[str] = typer.Argument(None, help="game name (see `cardsim games`); optional with --record"),
    index: Optional[int] = typer.Option(None, "--index", "-i", help="game index in the run (0-based)"),
    record: Optional[Path] = typer.Option(None, "--record", help="replay a game record (JSON, from cardsim.env's "
                                          "record() or a playtest), checking every action"),
    index_alias: Optional[int] = typer.Option(None, "--game", "-g", hidden=True, help="old name of --index"),
    seed: Optional[str] = typer.Option(None, "--seed", help="the run's seed (or take everything from --run)"),
    run_path: Optional[Path] = typer.Option(None, "--run", help="take seed, rules and policies from this dataset"),
    policy: PolicyOpt = None,
    sets: SetsOpt = [],
    rules_file: RulesFileOpt = None,
    **game_options: Any,
) -> None:
    """Print one game move by move (the deal, every play and pass, places, points),
    exactly as `cardsim play` played it: same seed, same game index, same game; or a
    saved game record (--record FILE), every action checked against the rules."""
    if record is not None:
        _replay_record(game, record, index, seed, run_path, policy, sets, rules_file, game_options)
        return
    if game is None:
        raise ConfigError("replay needs a GAME (or --record FILE)")
    spec = registry.get_task(game, "play")
    if not spec.can_replay:
        raise ConfigError(f"replay is not available for {game} yet")
    if index is not None and index_alias is not None and index != index_alias:
        raise ConfigError("give the game index once: --index N")
    index = index if index is not None else index_alias
    if index is None:
        raise ConfigError("replay needs --index N (the game's index in the run, 0-based)")
    if run_path is not None:
        given = [flag for flag, value in (("--seed", seed), ("--policy", policy), ("--set", sets),
                                          ("--rules", rules_file)) if value]
        given += [option_flag(name) for name in given_options(game_options)]
        if given:
            raise ConfigError(f"--run takes the seed, rules and policies from the dataset: drop {', '.join(given)}")
        from cardsim.simcore.run.output import Dataset
        from cardsim.simcore.run.runner import RunConfig

        meta = Dataset(run_path).meta
        if meta.get("game") != game or meta.get("task") != "play":
            raise ConfigError(f"{run_path} is not a 'play {game}' run")
        config = RunConfig.from_manifest(meta)
        rules, options, run_seed = config.rules, dict(config.options), config.seed
        if not 0 <= index < config.n:
            raise ConfigError(f"--index must be in 0..{config.n - 1} for that run")
    else:
        if seed is None:
            raise ConfigError("replay needs --seed (or --run PATH)")
        rules = resolve_rules(game, rules_file, sets)
        options: dict[str, Any] = given_options(game_options)
        if policy is not None:
            options["policy"] = policy
        options = task_options(spec, rules, options)
        run_seed = parse_seed(seed)
    if not 0 <= index < 2**62:
        raise ConfigError(f"--index must be in 0..2**62-1, got {index}")
    with compiling_notice(f"{game} replay"):
        lines = list(spec.replay(run_seed, index, rules, options))
    _legend(game)
    for line in lines:
        sys.stdout.write(line + "\n")


def _legend(game: str) -> None:
    """The game's one-line key to its replay's card codes, on stderr (the replay itself, on
    stdout, stays the game's text alone: piped, compared, or read back)."""
    legend = registry.get_spec(game).replay_legend
    if legend:
        sys.stderr.write(f"{legend}\n")


def _replay_record(game, record, index, seed, run_path, policy, sets, rules_file, game_options) -> None:
    """``replay --record FILE``: the record's game replayed through the step interface."""
    given = [flag for flag, value in (("--index", index is not None), ("--seed", seed), ("--run", run_path),
                                      ("--policy", policy), ("--set", sets), ("--rules", rules_file)) if value]
    given += [option_flag(name) for name in given_options(game_options)]
    if given:
        raise ConfigError(f"--record carries the game, rules and moves: drop {', '.join(given)}")
    from cardsim.step_api import replay_record

    with compiling_notice("record replay"):
        g = replay_record(game, record)
    _legend(g.game)
    how = f"seed {g.seed}, game {g.index}" if not g.explicit else "an explicit deal"
    sys.stdout.write(f"record {record.name}: {g.game}, {how}, {len(g.history)} decisions\n")
    for line in g.log_lines():
        sys.stdout.write(line + "\n")
    if not g.done:
        sys.stdout.write(f"(not finished: seat {g.to_move} to move)\n")


def _check_precision_flags(precision, targets, max_n) -> None:
    """``--target`` and ``--max`` only mean something with ``--precision``: refuse them alone."""
    if precision is None and (targets or max_n is not None):
        given = ", ".join(flag for flag, value in (("--target", targets), ("--max", max_n is not None)) if value)
        raise ConfigError(f"{given} only works with --precision EPS (run until the 95% half-width is at most EPS)")
