"""The commands that study results: ``ladder``, ``balance``, ``tune``, ``exact``, ``summary``, ``experiment``, ``report``."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Optional

import typer


from cardsim.cli.render import (_exact_text, print_balance, print_comparison, print_ladder, print_tune,
                                print_plain_table, print_summary, print_sweep)
from cardsim.cli.runs import (check_custom_metrics, parse_count, parse_seed, resolve_rules, say_drawn_seed)

from cardsim.cli.app import app
from cardsim.cli.params import (ThreadsOpt, SetsOpt, RulesFileOpt, QuietOpt, GameArg, SeedOpt, OverwriteOpt, MetricOpt,
                               YesOpt)


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
    Elo scale (field = 0) with 95% intervals, adjusted for the luck of the deal and the
    draws (ess: the win rate's effective sample-size factor; --no-variance-reduction: plain). `cardsim report DIR` draws the skill trace
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


@app.command("balance")
def balance_command(
    game: GameArg,
    policies: Optional[str] = typer.Option(None, "--policies", help="strengths, comma-separated (default: random,"
                                                                     "heuristic,search, plus learned where the "
                                                                     "game has one); add oracle for "
                                                                     "relative_skill"),
    field: str = typer.Option("heuristic", "--field", help="the other seats' policy when one strength is measured"),
    games: str = typer.Option("2000", "--games", "-n", help="deals per table (every table plays the same deals)"),
    seed: SeedOpt = None,
    threads: ThreadsOpt = None,
    sets: SetsOpt = [],
    rules_file: RulesFileOpt = None,
    compare: Optional[Path] = typer.Option(None, "--compare", help="a second rules TOML (on top of the first "
                                                                   "rule set): both on the same deals, with "
                                                                   "paired differences"),
    compare_sets: List[str] = typer.Option([], "--compare-set", help="a switch of the second rule set, "
                                                                     "key=value (repeatable; with or without "
                                                                     "--compare)"),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="write balance.json, card.parquet, seats.parquet "
                                                                 "and games.parquet into this new folder"),
    overwrite: OverwriteOpt = False,
    mix: str = typer.Option("1", "--mix", help="seats a measured strength holds against the field, comma-separated: "
                                               "1 (one seat in turn), 2 (two and two: every pair of seats)"),
    pairs: bool = typer.Option(False, "--pairs", help="also play every two strengths that are not the field "
                                                      "against each other (one seat of the later among the earlier)"),
    resume: bool = typer.Option(False, "--resume", help="with --out: continue a card that was interrupted (the "
                                                        "games it played are saved beside OUT; same settings)"),
    yes: YesOpt = False,
    quiet: QuietOpt = False,
    as_json: bool = typer.Option(False, "--json", help="print the card as JSON records: metric, group, strength, "
                                                       "unit, n, value, ci_low, ci_high, ess_factor, note (+ rules)"),
) -> None:
    """The balance card of a rule set: is it fair, how long is it, how much is luck?

    Every strength plays alone at the table (win rate per seat and role, seat_gap,
    points, length, no_winner_rate, comeback_rate) and in one seat of the field in every
    seat rotation (win rate, score and Elo against the field; luck_share, skill_share
    and residual_share from a two-way analysis of variance of hand and player); then
    elo_spread and levels_60 over the ladder, and relative_skill when random and oracle
    are among the strengths. With --mix 1,2 each strength also holds every pair of seats
    (two and two) and gets that mix's luck/skill split; with --pairs every two strengths
    that are not the field also meet (e.g. search in one seat among learned players). All
    on the same deals, every figure with a 95% interval; seat and one-seat figures are
    adjusted for the luck of the deal and the draws (ess column). A card expected to take 10 s or
    more prints its estimate first; with --out an interrupted card continues with --resume.
    """
    from cardsim import api

    result = api.balance(game, policies=policies, field=field, games=parse_count(games, "--games"),
                         seed=parse_seed(seed), rules_file=rules_file, sets=sets, compare_file=compare,
                         compare_sets=compare_sets, out=out, overwrite=overwrite, threads=threads,
                         progress=not quiet, yes=yes, mixes=mix, pairs=pairs, resume=resume)
    print_balance(result.summary(), as_json)
    if as_json or quiet:
        say_drawn_seed()
    sys.stdout.flush()
    if not as_json and not quiet:
        meta = result.meta
        where = f", written to {out}" if out is not None else ""
        sys.stderr.write(f"{game} balance card: {', '.join(meta['policies'])} (field {meta['field']}), "
                         f"{meta['n']:,} deals per table, seed={meta['seed']}{where}\n")


@app.command("tune")
def tune_command(
    game: GameArg,
    switches: List[str] = typer.Option([], "--switch", help="NAME=V1,V2,...: candidates are every combination of "
                                                            "the values (repeatable)"),
    objectives: List[str] = typer.Option([], "--objective", help="METRIC[:min|max] (default min): a balance-card "
                                                                 "figure (seat_gap, length, win_rate@dealer ...) "
                                                                 "or a play metric (draw, turns); the first ranks"),
    constraints: List[str] = typer.Option([], "--constraint", help="\"METRIC<X\" or \"METRIC>X\" (repeatable)"),
    policies: Optional[str] = typer.Option(None, "--policies", help="the strength that plays (default heuristic)"),
    field: Optional[str] = typer.Option(None, "--field", help="with it, the strength also plays one seat of this "
                                                              "field in every rotation (luck_share, elo)"),
    budget: str = typer.Option("100000", "--budget", help="games in all, every candidate and table together"),
    batch: str = typer.Option("200", "--batch", help="deals of the first round; each round doubles the deals"),
    seed: SeedOpt = None,
    threads: ThreadsOpt = None,
    sets: SetsOpt = [],
    rules_file: RulesFileOpt = None,
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="write tune.json, candidates.parquet and "
                                                                 "rounds.parquet into this new folder"),
    overwrite: OverwriteOpt = False,
    yes: YesOpt = False,
    quiet: QuietOpt = False,
    as_json: bool = typer.Option(False, "--json", help="print the candidates as JSON records"),
    resume: bool = typer.Option(False, "--resume", help="with --out: continue an interrupted race with the same "
                                                        "settings from the games it saved"),
) -> None:
    """Inverse design: which rule variants meet the targets? Race every combination of the
    --switch values on the same deals (common random numbers), in rounds of doubling size;
    a candidate leaves the race once another beats it on every objective with a paired
    interval excluding 0 (Bonferroni over the candidates), or a constraint's interval is
    wholly on its wrong side. Prints the candidates best first with 95% intervals, when and
    why each left, and with two objectives the Pareto set of the survivors.
    """
    from cardsim import api

    result = api.tune(game, switches=switches, objectives=objectives, constraints=constraints, policies=policies,
                      field=field, budget=parse_count(budget, "--budget"), batch=parse_count(batch, "--batch"),
                      seed=parse_seed(seed), rules_file=rules_file, sets=sets, out=out, overwrite=overwrite,
                      threads=threads, progress=not quiet, yes=yes, resume=resume)
    print_tune(result.summary(), result.meta, as_json)
    if as_json or quiet:
        say_drawn_seed()
    sys.stdout.flush()
    if not as_json and not quiet:
        meta = result.meta
        where = f", written to {out}" if out is not None else ""
        sys.stderr.write(f"{game} tune: {meta['candidates']} candidates, {meta['games_played']:,} games played "
                         f"(a full grid at the same deals: {meta['grid_games_at_final_deals']:,}), "
                         f"seed={meta['seed']}{where}\n")


@app.command("exact")
def exact_command(
    game: GameArg,
    sets: SetsOpt = [],
    rules_file: RulesFileOpt = None,
    as_json: bool = typer.Option(False, "--json", help="JSON records: event, seat (-1: any seat), exact_low, "
                                                       "exact_high"),
) -> None:
    """Exact probabilities of deal events, for the configured rules (players, cards, deck).

    Computed by dynamic programmes / generating functions, not simulation. Tiến Lên's
    table ("any seat") values are exact by inclusion-exclusion over the seats (seconds on
    a first call, then cached); a row that is still a bracket [low, high] says so.
    `cardsim deal` and `cardsim summary` show the same values once this command computed
    them (until then the quick table's brackets), with the z-score of each simulated rate.
    """
    from cardsim.simcore.framework.registry import get_spec

    spec = get_spec(game)
    rules = resolve_rules(game, rules_file, sets)
    from cardsim.simcore.framework.exact_cache import is_cached

    if spec.exact_full and not is_cached(game, spec.exact_full, rules):
        sys.stderr.write("computing the exact table values (inclusion-exclusion over the seats; up to a minute "
                         "on a first run, cached afterwards)\n")
    rows = spec.exact_rows(rules, full=True)
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
    print_comparison(result.tables["comparison"], as_json, result.tables.get("interaction"))
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
