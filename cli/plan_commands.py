"""The ``plan`` command: games needed for a question, from a pilot run (:mod:`cardsim.analysis.plan`)."""
from __future__ import annotations

import sys
from typing import Optional

import typer

from cardsim.cli.app import app
from cardsim.cli.params import GameArg, JsonOpt, PolicyOpt, SeedOpt, SetsOpt, ThreadsOpt
from cardsim.simcore.framework.config import ConfigError


def _rules(sets: list[str]) -> dict[str, str]:
    rules = {}
    for item in sets:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--set takes KEY=VALUE, got {item!r}")
        rules[key.strip()] = value.strip()
    return rules


def _count(n: int) -> str:
    return f"{n:,}"


def _hours(hours: float) -> str:
    seconds = hours * 3600
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{hours:.1f} h"


@app.command("plan")
def plan_command(
    game: GameArg,
    effect: float = typer.Option(..., "--effect", help="smallest effect worth detecting, e.g. 0.02 on a win rate",
                                 metavar="X"),
    metric: str = typer.Option("win_rate@seat0", "--metric",
                               help="NAME@seatK (win_rate@seat0, points@seat1) or a per-game metric (turns, draw)"),
    half_width: Optional[float] = typer.Option(None, "--half-width", metavar="X",
                                               help="wanted 95%% interval half-width (default: the effect)"),
    policy: PolicyOpt = None,
    sets: SetsOpt = [],
    pilot: Optional[int] = typer.Option(None, "--pilot", help="pilot games (default: 2000 Tiến Lên/Tứ Sắc, 30 rummy "
                                                              "matches; a tenth with searching seats)"),
    seed: SeedOpt = None,
    threads: ThreadsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Games needed for a 95% interval of a given half-width and for 80% power to detect an effect.

    Runs a short pilot with the given policies and rules, measures the metric's spread per
    game with and without the deal's control variates (the `ess_factor` of the
    summaries) and the pilot's time per game, and prints the games and the wall time on
    this machine for both. Power is for one estimate against a known value; two
    independent arms need twice the games per arm (paired arms on the same deals, as
    `cardsim experiment` runs them, need at most that).
    """
    from cardsim.analysis.plan import plan
    from cardsim.cli.render import json_records, print_plain_table
    from cardsim.cli.runs import parse_seed

    table = plan(game, effect, metric, half_width=half_width, policy=policy, rules=_rules(sets) or None,
                 pilot_games=pilot, seed=1 if seed is None else parse_seed(seed), threads=threads)
    if as_json:
        sys.stdout.write(json_records(table) + "\n")
        return
    first = table.iloc[0]
    sys.stdout.write(f"{game} {metric}: pilot of {int(first.pilot_games):,} games, value {first.value:.4f}, "
                     f"{first.seconds_per_game * 1000:.1f} ms per game on this machine\n")
    rows = [(r.estimator, f"{r.sd:.4f}", f"{r.ess_factor:.2f}", _count(r.games_for_ci), _hours(r.hours_for_ci),
             _count(r.games_for_power), _hours(r.hours_for_power)) for r in table.itertuples(index=False)]
    header = ("estimator", "sd/game", "ess", f"games ±{first.half_width:g}", "time",
              f"games 80% power ({first.effect:g})", "time")
    print_plain_table(header, rows, right=(1, 2, 3, 4, 5, 6))
    sys.stdout.write("power: one estimate against a known value; two independent arms need twice the games per arm\n")
