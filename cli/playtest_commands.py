"""The ``playtest`` and ``view`` commands: play a seat yourself in the browser, or watch a
game move by move with every hand face up (:mod:`cardsim.playtest`)."""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Optional

import typer

from cardsim.cli.app import app
from cardsim.cli.params import GameArg, PolicyOpt, RulesFileOpt, SetsOpt
from cardsim.simcore.framework import registry
from cardsim.simcore.framework.config import ConfigError

PortOpt = typer.Option(None, "--port", help="listen on this port of 127.0.0.1 (default: a free one)")
NoBrowserOpt = typer.Option(False, "--no-browser", help="print the URL only; do not open a browser")


def _rules_dict(game: str, rules_file: Optional[Path], sets: list[str]) -> dict:
    from cardsim.cli.runs import resolve_rules
    from cardsim.simcore.framework.config import rule_text

    rules = resolve_rules(game, rules_file, sets)
    return {k: rule_text(v) for k, v in rules.to_dict().items()}


def _warm(game: str) -> None:
    from cardsim.playtest.session import warm_up

    try:
        warm_up(game)
    except Exception:  # pragma: no cover - only a speed-up
        pass


@app.command("playtest")
def playtest_command(
    game: GameArg,
    seat: int = typer.Option(0, "--seat", help="the seat you play (0-based; default 0)"),
    policy: PolicyOpt = None,
    sets: SetsOpt = [],
    rules_file: RulesFileOpt = None,
    seed: Optional[str] = typer.Option(None, "--seed", help="run seed of the deal (random when omitted)"),
    index: int = typer.Option(0, "--index", "-i", help="game index of the first deal (New game takes the next)"),
    port: Optional[int] = PortOpt,
    no_browser: bool = NoBrowserOpt,
    coach_budget: float = typer.Option(2.0, "--coach-budget", help="seconds the coach's hint may take "
                                       "(its Monte Carlo adds worlds while time is left)", metavar="SECONDS"),
    delay: float = typer.Option(0.6, "--delay", help="seconds the page waits before each built-in player's move",
                                metavar="SECONDS"),
) -> None:
    """Play a seat yourself in the browser against the built-in players, with a coach.

    Starts a local web server on 127.0.0.1 (a random token in its URL) and opens the page:
    you play --seat N, the other seats are built-in policies (default search:64, see
    --policy). The hint button estimates each of your options by a non-peeking Monte
    Carlo; the review at the end lists each decision with the gap to the best one. Save
    the game as a record (cardsim view --record / cardsim replay --record open it).
    Ctrl-C stops the server.
    """
    from cardsim.playtest import server
    from cardsim.playtest.session import PlaySession
    from cardsim.progress import compiling_notice

    server.need_starlette()
    registry.get_spec(game)
    if port is not None:
        server.check_port(port)
    if not 0 <= coach_budget <= 60:
        raise ConfigError(f"--coach-budget must be 0..60 seconds, got {coach_budget}")
    if not 0 <= delay <= 10:
        raise ConfigError(f"--delay must be 0..10 seconds, got {delay}")
    if index < 0:
        raise ConfigError(f"--index must be a non-negative integer, got {index}")
    rules = _rules_dict(game, rules_file, sets)
    from cardsim.api import parse_seed

    run_seed = None if seed is None else parse_seed(seed)
    spec = "search:64" if policy is None else policy

    def factory(index: int = index, version: int = 0) -> PlaySession:
        return PlaySession(game, seat=seat, policy=spec, rules=rules, seed=first.seed if first else run_seed,
                           index=index, coach_budget=coach_budget, bot_delay=delay, version=version)

    first = None
    with compiling_notice(f"{game} playtest"):
        first = factory()
    made = iter([first])
    app_ = server.build_app(lambda **kw: next(made) if not kw else factory(**kw))
    threading.Thread(target=_warm, args=(game,), daemon=True).start()
    server.serve(app_, port, open_browser=not no_browser)


@app.command("view")
def view_command(
    run: Optional[Path] = typer.Argument(None, help="a `cardsim play --out` dataset (with --index)"),
    index: Optional[int] = typer.Option(None, "--index", "-i", help="the game's index in the run (0-based)"),
    record: Optional[Path] = typer.Option(None, "--record", help="a game record (JSON, from a playtest or "
                                          "cardsim.env's record())"),
    port: Optional[int] = PortOpt,
    no_browser: bool = NoBrowserOpt,
) -> None:
    """Watch one game move by move in the browser, every hand face up.

    Either a game of a dataset (RUN --index I: seed, rules and policies from its run.json,
    the game played again as `cardsim replay --run` does) or a saved record (--record
    FILE). Step forward and back; the move log is beside the table.
    """
    from cardsim.playtest import server
    from cardsim.playtest.session import ViewSession
    from cardsim.progress import compiling_notice

    server.need_starlette()
    if (run is None) == (record is None):
        raise ConfigError("view needs a dataset RUN with --index I, or --record FILE (one of them)")
    if port is not None:
        server.check_port(port)
    if record is not None:
        if index is not None:
            raise ConfigError("--record carries the game and its moves: drop --index")
        with compiling_notice("record replay"):
            session = ViewSession.from_record(record)
    else:
        if index is None:
            raise ConfigError("view RUN needs --index N (the game's index in the run, 0-based)")
        from cardsim.simcore.framework.config import rule_text
        from cardsim.simcore.run.output import Dataset
        from cardsim.simcore.run.runner import RunConfig

        meta = Dataset(run).meta
        if meta.get("task") != "play":
            raise ConfigError(f"{run} is not a `cardsim play` run")
        config = RunConfig.from_manifest(meta)
        if not 0 <= index < config.n:
            raise ConfigError(f"--index must be in 0..{config.n - 1} for that run")
        options = dict(config.options)
        rules = {k: rule_text(v) for k, v in config.rules.to_dict().items()}
        with compiling_notice(f"{config.game} replay"):
            session = ViewSession.from_game(config.game, seed=config.seed, index=index, rules=rules,
                                            policies=options.get("policies", "heuristic"),
                                            games_per_match=int(options.get("games_per_match", 1) or 1),
                                            label=f"{run.name}: {config.game}, seed {config.seed}, game {index}")
    app_ = server.build_app(lambda **kw: session)
    server.serve(app_, port, open_browser=not no_browser)
