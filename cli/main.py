"""The ``cardsim`` command line (Typer): argument parsing and the commands.

Running tasks lives in :mod:`cardsim.cli.runs`, rendering in :mod:`cardsim.cli.render`.
Every user error prints one line ``cardsim: error: ...`` on stderr and exits with
code 2, leaving no output behind.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any, List, Optional

import typer

try:  # recent typer vendors click; older releases depend on it
    from typer._click.exceptions import ClickException
except ImportError:  # pragma: no cover
    from click.exceptions import ClickException

from cardsim.cli.options import given_options, with_game_options
from cardsim.cli.render import (_exact_text, compiling_notice, print_comparison,
                                print_ladder, print_plain_table, print_summary, print_sweep)
from cardsim.cli.runs import (_CUSTOM_METRICS, _DRAWN_SEED, _YES, _required, check_custom_metrics,
                              execute_precision_run, execute_run, parse_count, parse_seed, report_result,
                              resolve_rules, say_drawn_seed, task_options)
from cardsim.simcore.framework import registry
from cardsim.simcore.framework.config import CardsimError, ConfigError, Interrupted, RunFailed
from cardsim.simcore.framework.spec import option_flag

def _games_line() -> str:
    """The app help's game list, from each registered game's spec (its title up to the first comma)."""
    return "Games: " + "; ".join(f"{name}: {registry.get_spec(name).title.split(',')[0]}"
                                  for name in registry.game_names()) + ". "


app = typer.Typer(
    name="cardsim",
    help=(
        "Monte Carlo statistics for traditional card games.\n\n"
        "Deal millions of hands or play whole games with numba kernels, write Parquet "
        "datasets that pandas reads directly, and print rates with 95% intervals. "
        "Randomness depends only on (seed, game index): same seed, same results, "
        "whatever the threads or chunk size.\n\n"
        + _games_line() +
        "Compare rule variants on the same deals with `cardsim experiment`.\n\n"
        "The first run of a command compiles the Numba kernels it needs (seconds to about a minute and a "
        "half, said on the terminal); later runs load them from Numba's cache. "
        "`cardsim compile [GAME...]` fills the cache for every command ahead of time, in parallel."
    ),
    add_completion=False,
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _print_version(value: bool) -> None:
    if value:
        from cardsim import __version__

        sys.stdout.write(f"cardsim {__version__}\n")
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[bool, typer.Option("--version", "-V", help="print the version and exit",
                                                is_eager=True, callback=_print_version)] = False) -> None:
    """Monte Carlo statistics for traditional card games."""


YesOpt = Annotated[bool, typer.Option("--yes", help="run even when the estimate says it takes over a day or "
                                                    "does not fit on the disk")]


@app.command("games")
def games_command() -> None:
    """List the games and the commands that run each."""
    specs = [registry.get_spec(name) for name in registry.game_names()]
    rows = [(s.name, ", ".join(_game_commands(s)), s.title) for s in specs]
    print_plain_table(("game", "commands", "description"), rows)


def _game_commands(spec) -> list[str]:
    """The commands that take ``spec``'s game: its tasks (``deal``, ``play``), ``replay``,
    ``ladder``, ``experiment``, and ``exact`` where exact values exist."""
    names = [*registry.TASKS, "replay", "ladder", "experiment"]
    return names + ["exact"] if spec.exact else names


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


BACKEND_HELP = "local (this machine, numba threads) or dask (one task per chunk; pip install 'cardsim[dask]')"


SCHEDULER_HELP = ("Dask scheduler address (default: a LocalCluster for this run); the workers must see --out "
                  "under the same absolute path (a shared file system)")


WORKERS_HELP = "worker processes of the LocalCluster (--backend dask)"


RESUME_HELP = "continue an interrupted run with the same settings at --out instead of starting again"


SEED_HELP = "run seed (0..2**64-1); random and printed when omitted"


SET_HELP = "rule switch override key=value (repeatable); see `cardsim rules GAME`"


POLICY_HELP = ("policies: one for all seats (heuristic), one per seat (heuristic,random,greedy,random), "
               "or SEAT=NAME pairs (0=search:256,1=random; others heuristic). Names: random, heuristic, "
               "search (determinized Monte Carlo search, 64 rollouts per decision) or search:N "
               "(Tiến Lên also greedy)")


# Options shared by several commands.
ThreadsOpt = Annotated[Optional[int], typer.Option("--threads", "-t", help="worker threads (default: all cores)")]


SetsOpt = Annotated[List[str], typer.Option("--set", "-s", help=SET_HELP)]


WorkersOpt = Annotated[Optional[int], typer.Option("--workers", help=WORKERS_HELP)]


SchedulerOpt = Annotated[Optional[str], typer.Option("--scheduler", help=SCHEDULER_HELP)]


RulesFileOpt = Annotated[Optional[Path], typer.Option("--rules", help="TOML file of rule switches (--set wins)")]


QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="no progress bar or closing line")]


JsonOpt = Annotated[bool, typer.Option("--json", help="print the summary as JSON records")]


BackendOpt = Annotated[str, typer.Option("--backend", help=BACKEND_HELP)]


GameArg = Annotated[str, typer.Argument(help="game name (see `cardsim games`)")]


SeedOpt = Annotated[Optional[str], typer.Option("--seed", help=SEED_HELP)]


PolicyOpt = Annotated[Optional[str], typer.Option("--policy", "-p", help=POLICY_HELP)]


OutOpt = Annotated[Optional[Path], typer.Option("--out", "-o", help="write a Parquet dataset directory here")]


ResumeOpt = Annotated[bool, typer.Option("--resume", help=RESUME_HELP)]


OverwriteOpt = Annotated[bool, typer.Option("--overwrite", help="replace an existing dataset at --out")]


PrecisionOpt = Annotated[Optional[float], typer.Option(
    "--precision", help="run until the 95% interval half-width of every target is <= EPS (e.g. 0.001), "
                        "deciding on whole chunks in index order (reproducible)", metavar="EPS")]


TargetOpt = Annotated[List[str], typer.Option(
    "--target", help="with --precision: a target (repeatable): deal EVENT@SEAT (e.g. weak_hand@any), play a "
                     "metric (e.g. win_seat_0); default: every deal rate / every seat's win rate", metavar="NAME")]


MaxOpt = Annotated[Optional[str], typer.Option(
    "--max", help="with --precision: at most this many deals/games (default 1e9 deals, 1e7 games)", metavar="N")]


MetricOpt = Annotated[List[str], typer.Option(
    "--metric", help="your own per-game metric PATH.py:FUNCTION (repeatable): a function of one game's row "
                     "(a dict) or of the per-game DataFrame, returning a number or bool per game")]


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
    _YES[0] = yes
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
    chunk_size: Optional[int] = typer.Option(None, "--chunk-size", help="games per chunk / Parquet part"),
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
    _YES[0] = yes
    options: dict[str, Any] = given_options(game_options)
    if policy is not None:
        options["policy"] = policy
    if precision is not None:
        execute_precision_run(game, "play", games, max_n, precision, targets, seed, threads, sets, rules_file, out,
                              overwrite, chunk_size, quiet, as_json, options, backend, resume)
        return
    n = parse_count(_required(games, "--games"), "--games")
    execute_run(game, "play", n, seed, threads, sets, rules_file, out, overwrite, chunk_size, quiet,
                as_json, options, backend, scheduler, workers, resume)


@app.command("replay")
@with_game_options("play")
def replay_command(
    game: GameArg,
    index: Optional[int] = typer.Option(None, "--index", "-i", help="game index in the run (0-based)"),
    index_alias: Optional[int] = typer.Option(None, "--game", "-g", hidden=True, help="old name of --index"),
    seed: Optional[str] = typer.Option(None, "--seed", help="the run's seed (or take everything from --run)"),
    run_path: Optional[Path] = typer.Option(None, "--run", help="take seed, rules and policies from this dataset"),
    policy: PolicyOpt = None,
    sets: SetsOpt = [],
    rules_file: RulesFileOpt = None,
    **game_options: Any,
) -> None:
    """Print one game move by move (the deal, every play and pass, places, points),
    exactly as `cardsim play` played it: same seed, same game index, same game."""
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
    for line in lines:
        sys.stdout.write(line + "\n")


LADDER_POLICIES_HELP = ("candidate policies, comma-separated (default: the game's policies plus "
                        "search:16 and search:64)")


@app.command("ladder")
def ladder_command(
    game: GameArg,
    policies: Optional[str] = typer.Option(None, "--policies", help=LADDER_POLICIES_HELP),
    field: str = typer.Option("heuristic", "--field", help="the policy of every other seat"),
    games: str = typer.Option("2000", "--games", "-n", help="deals per candidate and seat (each deal is played "
                                                            "with the candidate in every seat)"),
    seed: SeedOpt = None,
    threads: ThreadsOpt = None,
    sets: SetsOpt = [],
    rules_file: RulesFileOpt = None,
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="write ladder.json, ratings.parquet and "
                                                                 "games.parquet into this new folder"),
    overwrite: OverwriteOpt = False,
    quiet: QuietOpt = False,
    as_json: bool = typer.Option(False, "--json", help="print the rating table as JSON records"),
) -> None:
    """Rate policies against a fixed field: each candidate plays every seat on the same deals.

    Prints win rate and points of the candidate's seat, its score against the field
    (fraction of field players it finished ahead of) and a Bradley–Terry rating on the
    Elo scale (field = 0) with 95% intervals. `cardsim report DIR` draws the skill trace
    (rating against search budget).
    """
    from cardsim import api

    result = api.ladder(game, policies=policies, field=field, games=parse_count(games, "--games"),
                        seed=parse_seed(seed), rules=None, out=out, overwrite=overwrite, threads=threads,
                        progress=not quiet, sets=sets, rules_file=rules_file)
    table, config = result.summary(), result.meta
    print_ladder(table, as_json)
    if as_json or quiet:
        say_drawn_seed()
    sys.stdout.flush()
    if not as_json and not quiet:
        where = f", written to {out}" if out is not None else ""
        sys.stderr.write(f"{game} ladder: field {config['field']}, {config['n']:,} deals x "
                         f"{config['players']} seats per policy, seed={config['seed']}{where}\n")


@app.command("exact")
def exact_command(
    game: GameArg,
    sets: SetsOpt = [],
    rules_file: RulesFileOpt = None,
    as_json: bool = typer.Option(False, "--json", help="JSON records: event, seat (-1: any seat), exact_low, "
                                                       "exact_high"),
) -> None:
    """Exact probabilities of deal events, for the configured rules (players, cards, deck).

    Computed by dynamic programmes / generating functions, not simulation. Where the
    table ("any seat") value has no cheap exact form, a guaranteed bracket [low, high]
    is printed when it is narrow. `cardsim summary` of a deal run shows these values
    and the z-score of each simulated rate next to it.
    """
    from cardsim.simcore.framework.registry import get_spec

    spec = get_spec(game)
    rules = resolve_rules(game, rules_file, sets)
    rows = spec.exact_rows(rules)
    if as_json:
        records = [{"event": e, "seat": -1 if s == "any" else int(s), "exact_low": float(lo), "exact_high": float(hi)}
                   for e, s, lo, hi in rows]  # seat -1: the table ("any seat"), as in `deal --json`
        sys.stdout.write(json.dumps(records) + "\n")
        return
    table = [(e, str(s), _exact_text(float(lo), float(hi)), "exact" if lo == hi else "bracket")
             for e, s, lo, hi in rows]
    print_plain_table(("event", "seat", "probability", "kind"), table, right=(1, 2))


@app.command("summary")
def summary_command(
    path: Path = typer.Argument(..., help="dataset directory written with --out"),
    as_json: bool = typer.Option(False, "--json", help="JSON array of records: deal runs event, seat (-1: any "
                                                       "seat), count, n, rate, ci_low, ci_high (+ exact_low, "
                                                       "exact_high, z); play runs metric, group, n, value, "
                                                       "ci_low, ci_high"),
    metrics: MetricOpt = [],
) -> None:
    """Print the summary table of a saved dataset (plus your own --metric functions)."""
    from cardsim import analysis

    print_summary(analysis.summary(path, metrics=check_custom_metrics(metrics)), as_json)


@app.command("experiment")
def experiment_command(
    spec_file: Path = typer.Argument(..., help="experiment spec (TOML): game, task, n, seed, [baseline], [[arms]]"),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="write each arm's dataset and the comparison here"),
    overwrite: bool = typer.Option(False, "--overwrite", help="replace an existing experiment at --out"),
    n: Optional[str] = typer.Option(None, "--n", "-n", help="override the spec's number of games per arm"),
    seed: Optional[str] = typer.Option(None, "--seed", help="override the spec's seed"),
    threads: ThreadsOpt = None,
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress bar"),
    as_json: bool = typer.Option(False, "--json", help="print the comparison as JSON records"),
) -> None:
    """Run a baseline and its arms on the same deals and compare them game by game.

    Every arm uses the same seed, so game i starts from the same deal in all arms
    (common random numbers); differences get a paired 95% interval, much tighter than
    two independent runs (whose interval is printed too, for reference).
    """
    from cardsim import api

    result = api.experiment(spec_file, n=n, seed=seed, out=out, overwrite=overwrite, threads=threads,
                            progress=not quiet)
    if "sweep" in result.tables and not as_json:
        print_sweep(result.tables["sweep"])
    print_comparison(result.tables["comparison"], as_json)
    if not as_json and not quiet:
        meta = result.meta
        where = f", written to {result.path}" if result.path is not None else ""
        sys.stderr.write(f"{meta['name']}: {meta['game']} {meta['task']}, n={meta['n']:,} per arm, "
                         f"seed={meta['seed']}{where}\n")


@app.command("report")
def report_command(
    paths: List[Path] = typer.Argument(..., help="run datasets and/or experiment directories"),
    out: Path = typer.Option(Path("report.html"), "--out", "-o", help="report file: .html (self-contained) or .md (+ PNG files)"),
    overwrite: bool = typer.Option(False, "--overwrite", help="replace an existing report file (and a .md report's PNG files)"),
) -> None:
    """Write a report with tables and plots: a deal run's rates per seat (log scale) beside
    exact values; a play run's win rates and game lengths; an experiment's arms, comparison
    table and differences with their intervals, one panel per unit."""
    from cardsim.analysis.report import build_report

    written = build_report(paths, out, overwrite=overwrite)
    sys.stderr.write(f"report written to {written}\n")


@app.command("resume")
def resume_command(
    path: Path = typer.Argument(..., help="the --out PATH of an interrupted run"),
    threads: ThreadsOpt = None,
    backend: BackendOpt = "local",
    scheduler: SchedulerOpt = None,
    workers: WorkersOpt = None,
    quiet: QuietOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Finish an interrupted run: run only its missing chunks (same result as an uninterrupted run)."""
    from cardsim import api

    report_result(api.resume(path, threads=threads, progress=not quiet, backend=backend, scheduler=scheduler,
                             workers=workers), as_json, quiet, temporary=False)


@app.command("verify")
def verify_command(path: Path = typer.Argument(..., help="dataset directory")) -> None:
    """Check a dataset: manifest vs parts, row counts, checksums, metadata. Exit 1 on any problem."""
    from cardsim.simcore.run.output import Dataset, verify

    problems = verify(path)
    if problems:
        for problem in problems:
            sys.stdout.write(f"PROBLEM {problem}\n")
        raise RunFailed(f"{path}: {len(problems)} problem(s) found")
    meta = Dataset(path).meta
    rows = sum(p["rows"] for p in meta["parts"])
    sys.stdout.write(f"OK {path}: {meta['game']} {meta['task']}, n={meta['n']:,}, "
                     f"{len(meta['parts'])} parts, {rows:,} rows, checksums match\n")


COMPILE_TASKS = ("deal", "play", "search", "replay")


@app.command("compile")
def compile_command(
    games: Optional[List[str]] = typer.Argument(None, help="games to compile (default: all)"),
    tasks: str = typer.Option(",".join(COMPILE_TASKS), "--tasks",
                              help="comma-separated, of: deal, play, search (play with a search seat), replay"),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="processes at once (default: all cores)"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="print nothing"),
) -> None:
    """Fill Numba's cache with every command's kernels now, in parallel processes.
    Optional: without it each command compiles what it needs on its first run (seconds
    to half a minute) and later runs load it from the cache. Use it once after installing
    or upgrading cardsim, Numba or NumPy, or after editing a kernel, before timing runs or
    starting batch jobs. Each (game, task) is one small run in its own process; what is
    already in the cache loads instead of compiling. Also builds the games' lookup tables
    (Tứ Sắc's meld tables) into cardsim's cache folder."""
    from cardsim.cli.warm import warm_commands

    names = list(games or registry.game_names())
    for name in names:  # an unknown game: exit 2 before compiling anything
        registry.get_spec(name)
    chosen = [t.strip() for t in tasks.split(",") if t.strip()]
    unknown = [t for t in chosen if t not in COMPILE_TASKS]
    if unknown or not chosen:
        raise ConfigError(f"--tasks takes {', '.join(COMPILE_TASKS)} (comma-separated), got {tasks!r}")
    if jobs is not None and jobs < 1:
        raise ConfigError(f"--jobs must be at least 1, got {jobs}")
    warm_commands(names, chosen, jobs or os.cpu_count() or 1, quiet)


_METAVARS = {"int": "N", "float": "X", "path": "PATH", "bool": ""}


def _usage_piece(param) -> str:
    """An argument on a usage line: ``GAME``, ``[GAME]...`` when optional, ``PATHS...``."""
    name = param.metavar or (param.name or "value").upper()
    name = name if param.required else f"[{name}]"
    return name + ("..." if param.nargs != 1 else "")


def _click_command():
    """The click command of the Typer app, built once, with readable metavars in help
    (``GAME``, ``SEED``, ``N``, ``PATH``) instead of the internal type names."""
    global _COMMAND
    if _COMMAND is not None:
        return _COMMAND
    command = typer.main.get_command(app)
    for sub in getattr(command, "commands", {}).values():
        if sub.help and not sub.short_help:  # the whole first sentence, never cut with "..."
            first = " ".join(sub.help.split("\n\n")[0].split())
            sub.short_help = first.split(". ")[0].rstrip(".")
        for param in sub.params:
            if type(param).__name__.endswith("Argument"):
                param.display_type = lambda ctx: None  # "GAME  game name", not "GAME <str>"
                # the usage line as click writes it ("cardsim replay [OPTIONS] GAME"), not typer's "{GAME}"
                param.get_usage_pieces = lambda ctx, p=param: [_usage_piece(p)]
            if getattr(param, "metavar", None):
                continue
            descriptor = getattr(param, "type_descriptor", None)
            annotation = getattr(descriptor, "annotation", None)
            kind = {int: "int", float: "float", bool: "bool", Path: "path"}.get(annotation, "text")
            if type(param).__name__.endswith("Argument"):
                param.metavar = (param.name or "value").upper()
            elif getattr(param, "is_flag", False) or kind == "bool":
                continue
            elif kind in _METAVARS:
                param.metavar = _METAVARS[kind]
            else:
                longest = max(param.opts, key=len).lstrip("-")
                param.metavar = {"set": "KEY=VALUE", "policy": "POLICY", "policies": "LIST"}.get(longest, longest.upper())
    _COMMAND = command
    return command


_COMMAND = None


def main(argv: Optional[list[str]] = None) -> int:
    """Console-script entry point; returns the exit code (2 for any user error)."""
    _CUSTOM_METRICS.clear()  # per-command state: main() may run many commands in one process
    _YES[0] = False
    _DRAWN_SEED[0] = None
    try:
        result = _click_command()(args=argv, prog_name="cardsim", standalone_mode=False)
    except ClickException as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # bare `cardsim`: show the help
            sys.stdout.write(exc.format_message() + "\n")
            return 0
        ctx = getattr(exc, "ctx", None)
        command = ctx.command_path if ctx is not None else "cardsim"
        message = " ".join(exc.format_message().split())
        _error(f"{message} (see '{command} --help')")
        return 2 if exc.exit_code == 2 else 1
    except CardsimError as exc:
        if isinstance(exc, Interrupted):
            sys.stderr.write(f"cardsim: {exc}\n")
        else:
            _error(str(exc))
        return exc.exit_code
    except (typer.Abort, KeyboardInterrupt):
        sys.stderr.write("cardsim: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except (OverflowError, RecursionError, UnicodeDecodeError) as exc:
        # Raised by parsing what the user gave (--deals 1e400, --game 2**63, a deeply
        # nested or non-UTF-8 TOML file) before any run starts: bad input, not a bug.
        if os.environ.get("CARDSIM_DEBUG"):
            raise
        what = {OverflowError: "a number is out of range", RecursionError: "an input is nested too deeply",
                UnicodeDecodeError: "an input file is not UTF-8 text"}[type(exc)]
        _error(f"{what} ({exc})")
        return 2
    except Exception as exc:  # a bug, not bad input: one line, the traceback on request
        if os.environ.get("CARDSIM_DEBUG"):
            raise
        _error(f"internal error: {type(exc).__name__}: {exc} (rerun with CARDSIM_DEBUG=1 for the traceback)")
        return 1
    if result == 130:  # typer turns a KeyboardInterrupt outside a run into exit code 130
        sys.stderr.write("cardsim: interrupted\n")
    return result if isinstance(result, int) else 0


def _error(message: str) -> None:
    """One line on stderr, never wrapped; an echoed value of any length is cut to 240 characters."""
    words = [word if len(word) <= _ERROR_WORD_CHARS else f"{word[:_ERROR_WORD_CHARS - 20]}...({len(word):,} characters)"
             for word in message.split()]
    line = " ".join(words)
    if len(line) > _ERROR_LINE_CHARS:
        line = line[:_ERROR_LINE_CHARS] + "..."
    sys.stderr.write("cardsim: error: " + line + "\n")


_ERROR_WORD_CHARS = 240


_ERROR_LINE_CHARS = 1000


if __name__ == "__main__":
    sys.exit(main())
