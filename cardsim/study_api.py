"""The study functions of the Python API: experiments, ladders, balance cards and rule tuning.

>>> import cardsim
>>> cardsim.ladder("tienlen", games=500, seed=1).summary()      # doctest: +SKIP
>>> cardsim.balance("tusac", games=500, seed=1).summary()       # doctest: +SKIP

Each runs many plays on shared seeds and returns a :class:`cardsim.api.TableResult`; the
command line's ``cardsim experiment/ladder/balance/tune`` call these same functions. The
single-run functions (``deal``, ``play``, ``resume``, ``load``), the result classes and
the input checks these functions share live in :mod:`cardsim.api`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence

from cardsim.api import (PathLike, TableResult, _count, _rule_settings, _run_missing_chunks, _say_outside_speed, draw_seed,
                         parse_seed,
                         resolve_rules)
from cardsim.simcore.framework import registry
from cardsim.simcore.framework.config import ConfigError, Interrupted

#: A study whose estimate is at least this many seconds says it before it starts.
ESTIMATE_NOTE_SECONDS = 10.0


def experiment(spec: PathLike | Mapping[str, Any], n: Optional[int | str] = None, seed: Optional[int] = None,
               out: Optional[PathLike] = None, overwrite: bool = False, threads: Optional[int] = None,
               progress: bool = True) -> TableResult:
    """Run an experiment: a baseline and arms on the same deals, compared game by game.

    Parameters
    ----------
    spec : path or dict
        A TOML spec file (``experiments/*.toml``) or the same content as a dict.
    n, seed : optional
        Override the spec's games per arm and seed.
    out : path, optional
        Write each arm's dataset and the comparison here.

    Returns
    -------
    TableResult
        ``.summary()``: the comparison (paired differences with 95% intervals);
        ``.tables["sweep"]`` for a sweep.
    """
    return _run_experiment(spec, None if n is None else _count(n, "--n"), None if seed is None else parse_seed(seed),
                          out, overwrite, threads, progress)


def ladder(game: str, policies: Optional[Sequence[str] | str] = None, field: str = "heuristic",
           games: int | str = 2000, seed: Optional[int] = None, rules: Optional[Mapping[str, Any]] = None,
           out: Optional[PathLike] = None, overwrite: bool = False, threads: Optional[int] = None,
           progress: bool = True, rules_file: Optional[PathLike] = None, sets: Sequence[str] = (),
           on_step: Optional[Callable[[int, int], None]] = None) -> TableResult:
    """Rate policies against a fixed field: each candidate plays every seat on the same deals.

    Parameters
    ----------
    game : str
        The game.
    policies : list of str or str, optional
        Candidates (default: the game's policies plus ``search:16`` and ``search:64``).
    field : str
        The policy of every other seat.
    games : int
        Deals per candidate and seat.

    Returns
    -------
    TableResult
        ``.summary()``: the ratings (win rate, points, score against the field, Elo, 95% intervals);
        ``.tables["games"]``: one row per game.
    """

    from cardsim.analysis.ladder import ratings
    from cardsim.simcore.run.folders import write_study_folder
    from cardsim.progress import RunProgress
    from cardsim.simcore.run import lifecycle
    from cardsim.simcore.study.ladder import LadderConfig, play_ladder, validate
    from cardsim.simcore.run.outpath import check_output_path
    from cardsim.simcore.run.runner import set_threads
    from cardsim.simcore.framework.tasks import BUDGETED_POLICIES, canonical_policy

    spec = registry.get_spec(game)
    rules = resolve_rules(game, rules, rules_file, sets)
    if policies is None:  # the peeking oracle is never a default: ask for it by name
        names = [p for p in spec.policies if p not in BUDGETED_POLICIES]
        names += ["search:16", "search:64"] if "search" in spec.policies else []
    else:
        listed = policies.split(",") if isinstance(policies, str) else list(policies)
        names = [str(x).strip() for x in listed if str(x).strip()]
    names = list(dict.fromkeys(canonical_policy(x, spec.policies) for x in names))
    field_name = canonical_policy(field, spec.policies)
    config = LadderConfig(game=game, rules=rules, policies=tuple(names), field=field_name,
                          n=_count(games, "--games"), seed=draw_seed() if seed is None else parse_seed(seed))
    validate(config)
    if out is not None:
        out = lifecycle.resolve_out(out)
        check_output_path(out, overwrite)
    set_threads(threads)
    if progress:
        from cardsim.simcore.study.ladder import seat_policies

        _say_outside_speed(game, [(seat_policies(config, p, s), config.n) for p in names for s in range(rules.players)])
    bar = RunProgress(progress, f"ladder {game}", len(names) * rules.players)

    def step(done: int, total: int) -> None:
        bar.update(done, total)
        if on_step is not None:
            on_step(done, total)

    try:
        frame = play_ladder(config, on_step=step)
    except KeyboardInterrupt:
        raise Interrupted("interrupted; nothing was written") from None
    finally:
        bar.close()
    table = ratings(frame, config.seed)
    if out is not None:
        write_study_folder(out, overwrite, "ladder", config.manifest(), {"ratings": table, "games": frame})
    meta = dict(config.manifest(), players=rules.players)
    return TableResult({"ratings": table, "games": frame}, meta, out, "ratings")


def balance(game: str, policies: Optional[Sequence[str] | str] = None, field: str = "heuristic",
            games: int | str = 2000, seed: Optional[int] = None, rules: Optional[Mapping[str, Any]] = None,
            rules_file: Optional[PathLike] = None, sets: Sequence[str] = (),
            compare_file: Optional[PathLike] = None, compare_sets: Sequence[str] = (),
            out: Optional[PathLike] = None, overwrite: bool = False, threads: Optional[int] = None,
            progress: bool = True, yes: bool = False, mixes: Sequence[int] | str = (1,),
            pairs: bool = False, resume: bool = False) -> TableResult:
    """The balance card of one rule set: seat and role balance, length, draws, comebacks,
    luck versus skill and the strength ladder, every figure with a 95% interval.

    Every strength in ``policies`` plays alone at the table, and (except the field) in
    one seat of a ``field`` table in every seat rotation, all on games ``0 .. games-1``
    of one seed (:mod:`cardsim.simcore.study.balance`; figures:
    :mod:`cardsim.analysis.balance`).

    Parameters
    ----------
    policies : list of str or str, optional
        The strengths (default ``random, heuristic, search``); add ``oracle`` (the
        peeking bound) for ``relative_skill``.
    field : str
        The policy of the other seats when one strength is measured (added to the
        strengths when missing).
    games : int
        Deals per table.
    compare_file, compare_sets : optional
        A second rule set (a rules TOML and/or ``key=value`` on top of the first): both
        cards are played on the same deals and every figure gets a paired difference.
    mixes : list of int or str
        Seats a measured strength holds in its mixed tables (``"1,2"``: also two and two,
        every pair of seats in turn, with its own luck/skill split); default one seat.
    pairs : bool
        Also play every two strengths that are not the field against each other (the
        later-listed one in one seat of the earlier one's table, every seat in turn),
        for their head to head and luck/skill split.
    resume : bool
        With ``out``: reuse the games an interrupted card with the same settings saved
        beside ``out`` (``.OUT.partial-balance``); the card is the same as an uninterrupted one.

    Returns
    -------
    TableResult
        ``.summary()``: the card, one row per figure (``metric, group, strength, unit, n,
        value, ci_low, ci_high, note``; with a comparison also ``rules``: ``base``,
        ``compare``, ``difference``); ``.tables["seats"]``, ``.tables["games"]``: the
        played games.
    """

    import sys

    from cardsim.simcore.framework.tasks import canonical_policy
    from cardsim.simcore.run import lifecycle
    from cardsim.simcore.run.estimate import MAX_SECONDS, estimate, human_time
    from cardsim.simcore.run.outpath import check_output_path
    from cardsim.simcore.run.runner import set_threads
    from cardsim.simcore.study.balance import DEFAULT_POLICIES, BalanceConfig, table_options, validate

    spec = registry.get_spec(game)
    base_rules = resolve_rules(game, rules, rules_file, sets)
    other_rules = None
    if compare_file is not None or compare_sets:  # the second rule set: the first one's settings, then these
        other = _rule_settings(game, rules, rules_file, sets)
        other.update(_rule_settings(game, None, compare_file, compare_sets))
        other_rules = registry.rules_class(game).from_settings(other)
    if policies is None:  # the learned player joins the default strengths where the game has one
        listed = list(DEFAULT_POLICIES) + (["learned"] if "learned" in spec.policies else [])
    else:
        listed = policies.split(",") if isinstance(policies, str) else list(policies)
    names = [str(x).strip() for x in listed if str(x).strip()]
    field_name = canonical_policy(field, spec.policies)
    names = list(dict.fromkeys(canonical_policy(x, spec.policies) for x in names))
    if field_name not in names:
        names.append(field_name)
    n = _count(games, "--games")
    seed = draw_seed() if seed is None else parse_seed(seed)
    if isinstance(mixes, str):
        try:
            mixes = [int(x) for x in mixes.split(",") if x.strip()]
        except ValueError:
            raise ConfigError(f"--mix must be seat counts like 1,2, got {mixes!r}") from None
    configs = [BalanceConfig(game=game, rules=r, policies=tuple(names), field=field_name, n=n, seed=seed,
                             mixes=tuple(int(m) for m in mixes), pairs=bool(pairs))
               for r in (base_rules, other_rules) if r is not None]
    for config in configs:
        validate(config)
    cores = set_threads(threads)
    # a table a strength plays alone is played twice where the game's comebacks come from its move log
    replays = 2 if spec.balance_progress else 1
    seconds = sum(estimate(game, "play", n, n, table_options(c, seats), cores)[0] * (replays if rotation < 0 else 1)
                  for c in configs for _, rotation, seats in c.tables())
    if progress:
        _say_outside_speed(game, [(seats, n) for c in configs for _, _, seats in c.tables()])
    if seconds > MAX_SECONDS and not yes:
        raise ConfigError(f"this card would take about {human_time(seconds)} on {cores} core(s): use fewer "
                          f"--games or cheaper --policies, or --yes to run anyway")
    if resume and out is None:
        raise ConfigError("--resume needs --out PATH")
    if out is not None:
        out = lifecycle.resolve_out(out)
        check_output_path(out, overwrite)
    if progress and seconds >= ESTIMATE_NOTE_SECONDS:  # the estimate play's refusal gives, said up front
        tables = sum(len(c.tables()) for c in configs)
        sys.stderr.write(f"balance {game}: {tables} tables x {n:,} deals, about {human_time(seconds)} on "
                         f"{cores} core(s) (estimate)\n")
    if out is None:
        return _balance_play(game, configs, None, None, overwrite, progress)
    import json
    import shutil

    from cardsim.simcore.run.outpath import refuse_link

    with lifecycle.OutputLock(out):  # one card per output; its saved games are this run's alone
        lifecycle.clean_debris(out)
        check_output_path(out, overwrite)
        cache = out.parent / f".{out.name}.partial-balance"
        refuse_link(cache, f"a balance card saved by cardsim for {out.name}")  # never followed
        if (cache / "balance.json").is_symlink():
            raise ConfigError(f"{cache / 'balance.json'} is a link: refusing to use it (remove {cache} if no "
                              "cardsim run of yours made it)")
        players = spec.play.player_notes({"policies": [p for c in configs for p in c.policies]})
        manifest = json.dumps({"cards": [c.manifest() for c in configs], "players": players}, sort_keys=True)
        if resume and not (cache / "balance.json").is_file():
            raise ConfigError(f"nothing to resume at {out}: no interrupted balance card was saved there")
        if resume and (cache / "balance.json").read_text() != manifest:
            raise ConfigError(f"the balance card saved at {out} has other settings (or a model file changed): "
                              f"rerun it with the same ones, or without --resume to start again")
        if not resume:
            shutil.rmtree(cache, ignore_errors=True)
        cache.mkdir(parents=True, exist_ok=True)
        (cache / "balance.json").write_text(manifest)
        result = _balance_play(game, configs, out, cache, overwrite, progress)
        shutil.rmtree(cache, ignore_errors=True)  # the card is written: its saved games are not needed
    return result


def _balance_play(game: str, configs: list, out: Optional[Path], cache: Optional[Path], overwrite: bool,
                  progress: bool) -> TableResult:
    """The games and figures of :func:`balance` once its output is checked (and locked, with
    ``out``; ``cache``: where each chunk's outcomes are saved for ``--resume``)."""
    from cardsim.analysis.balance import card, compare_cards
    from cardsim.progress import RunProgress
    from cardsim.simcore.run.folders import write_study_folder
    from cardsim.simcore.study.balance import play_balance, to_frames

    bar = RunProgress(progress, f"balance {game}", 1)
    try:
        plays = []
        for i, config in enumerate(configs):
            def step(done: int, total: int, i: int = i) -> None:  # the cards have the same number of chunks
                bar.update(i * total + done, total * len(configs))
            plays.append(play_balance(config, on_step=step, cache=cache, cache_key=str(i)))
    except KeyboardInterrupt:
        if cache is not None:
            raise Interrupted("interrupted; the games played so far are saved: rerun the same command with "
                              "--resume to continue") from None
        raise Interrupted("interrupted; nothing was written") from None
    finally:
        bar.close()
    table = card(plays[0]) if len(plays) == 1 else compare_cards(plays[0], plays[1])
    frames = [to_frames(p) for p in plays]
    seats, played = frames[0]
    if len(frames) > 1:
        import pandas as pd

        seats = pd.concat([seats.assign(rules="base"), frames[1][0].assign(rules="compare")], ignore_index=True)
        played = pd.concat([played.assign(rules="base"), frames[1][1].assign(rules="compare")], ignore_index=True)
    first = next(iter(plays[0].alone.values()))
    meta = dict(configs[0].manifest(), length_unit=first.length_unit,
                points_lower_is_better=bool(first.points_lower_is_better), no_winner_group=first.no_winner_group)
    if len(configs) > 1:
        meta["compare_rules"] = configs[1].rules.to_dict()
    if out is not None:
        write_study_folder(out, overwrite, "balance", meta, {"card": table, "seats": seats, "games": played},
                           locked=True)
    return TableResult({"card": table, "seats": seats, "games": played}, meta, out, "card")


def tune(game: str, switches: Sequence[str], objectives: Sequence[str], constraints: Sequence[str] = (),
         policies: Optional[Sequence[str] | str] = None, field: Optional[str] = None, budget: int | str = 100_000,
         seed: Optional[int] = None, batch: int | str = 200, rules: Optional[Mapping[str, Any]] = None,
         rules_file: Optional[PathLike] = None, sets: Sequence[str] = (), out: Optional[PathLike] = None,
         overwrite: bool = False, threads: Optional[int] = None, progress: bool = True,
         yes: bool = False, resume: bool = False,
         on_round: Optional[Callable[[int, int, int], None]] = None) -> TableResult:
    """Find the rule variants that best meet objectives: race every combination of the
    switch values on the same deals, dropping candidates once a paired test rules them out.

    Parameters
    ----------
    switches : list of str
        ``"NAME=V1,V2,..."``: the candidates are every combination of the values.
    objectives : list of str
        ``"METRIC[:min|max]"``: a balance-card figure (``seat_gap``, ``length``,
        ``win_rate@dealer``, ``luck_share`` with a field) or a per-game play metric
        (``draw``, ``turns``); the first ranks the candidates.
    constraints : list of str
        ``"METRIC<X"`` or ``"METRIC>X"``.
    policies : str, optional
        The strength that plays (default ``heuristic``); with ``field`` different from it,
        the rotation tables of the balance card are played too (``luck_share``, ``elo``).
    budget : int
        Games in all (every table of every candidate).
    batch : int
        Deals of the first round (each later round doubles the deals played).
    resume : bool
        With ``out``: reuse the games an interrupted race with the same settings saved
        beside ``out`` (``.OUT.partial-tune``); the result is the same as an uninterrupted race.
    on_round : callable, optional
        ``on_round(round, games played, budget)`` after each round.

    Returns
    -------
    TableResult
        ``.summary()``: the candidates, best first, with each objective's estimate and 95%
        interval, status (``racing`` = survived, ``eliminated``, ``infeasible``), the round
        it left and why; ``.tables["rounds"]``: the race round by round.
    """
    import dataclasses
    import json
    import shutil

    from cardsim.simcore.framework.tasks import canonical_policy
    from cardsim.simcore.run import lifecycle
    from cardsim.simcore.run.estimate import MAX_SECONDS, estimate, human_time
    from cardsim.simcore.run.outpath import check_output_path, refuse_link
    from cardsim.simcore.run.runner import set_threads
    from cardsim.simcore.study.balance import table_options
    from cardsim.simcore.study.tune import Constraint, Objective, TuneConfig, validate

    spec = registry.get_spec(game)
    base = _rule_settings(game, rules, rules_file, sets)
    grid = []
    for text in switches:
        name, sep, values = str(text).partition("=")
        listed = tuple(v.strip() for v in values.split(",") if v.strip())
        if not sep or not name.strip() or not listed:
            raise ConfigError(f"bad --switch {text!r}: expected NAME=V1,V2,...")
        grid.append((name.strip(), listed))
    listed = ["heuristic"] if policies is None else (policies.split(",") if isinstance(policies, str)
                                                     else list(policies))
    names = [canonical_policy(str(x).strip(), spec.policies) for x in listed if str(x).strip()]
    if len(names) != 1:
        raise ConfigError("--policies takes one strength for tune (the field is --field)")
    field_name = canonical_policy(field, spec.policies) if field else names[0]
    config = TuneConfig(game=game, base_settings=base, switches=tuple(grid),
                        objectives=tuple(Objective.parse(o) for o in objectives),
                        constraints=tuple(Constraint.parse(c) for c in constraints),
                        policies=(names[0], *([field_name] if field_name != names[0] else [])), field=field_name,
                        budget=_count(budget, "--budget"), seed=draw_seed() if seed is None else parse_seed(seed),
                        batch=_count(batch, "--batch"))
    candidates = validate(config)
    cores = set_threads(threads)
    first = config.balance_config(config.candidate_rules(candidates[0]), 2)
    per_game = sum(estimate(game, "play", 1, 1, table_options(first, seats), cores)[0]
                   for _, _, seats in first.tables()) / len(first.tables())
    if per_game * config.budget > MAX_SECONDS and not yes:
        raise ConfigError(f"{len(candidates)} candidates: a budget of {config.budget:,} games would take about "
                          f"{human_time(per_game * config.budget)} on {cores} core(s): lower --budget, or --yes")
    if resume and out is None:
        raise ConfigError("--resume needs --out PATH")
    if out is None:
        return _tune_race(config, candidates, first, None, overwrite, progress, on_round)
    out = lifecycle.resolve_out(out)
    with lifecycle.OutputLock(out):  # one race per output: a second `tune --out X` is refused, not mixed in
        lifecycle.clean_debris(out)
        check_output_path(out, overwrite)
        cache = out.parent / f".{out.name}.partial-tune"
        refuse_link(cache, f"a race saved by cardsim for {out.name}")  # never followed: it would write there
        if (cache / "tune.json").is_symlink():
            raise ConfigError(f"{cache / 'tune.json'} is a link: refusing to use it (remove {cache} if no cardsim "
                              "run of yours made it)")
        manifest = json.dumps(config.manifest(), sort_keys=True)
        if resume and not (cache / "tune.json").is_file():
            raise ConfigError(f"nothing to resume at {out}: no interrupted race was saved there")
        if resume and (cache / "tune.json").read_text() != manifest:
            raise ConfigError(f"the race saved at {out} has other settings: rerun it with the same ones, or "
                              f"without --resume to start again")
        if not resume:
            shutil.rmtree(cache, ignore_errors=True)
        cache.mkdir(parents=True, exist_ok=True)
        (cache / "tune.json").write_text(manifest)
        result = _tune_race(dataclasses.replace(config, cache=str(cache)), candidates, first, out, overwrite,
                            progress, on_round)
        shutil.rmtree(cache, ignore_errors=True)  # the race is written: its saved games are not needed
    return result


def _tune_race(config, candidates: list, first, out: Optional[Path], overwrite: bool, progress: bool,
               on_round: Optional[Callable[[int, int, int], None]]) -> TableResult:
    """The race of :func:`tune` once its output is checked (and locked, with ``out``):
    play it, then write the folder."""
    import pandas as pd

    from cardsim.analysis.tune import candidate_table, estimates
    from cardsim.progress import RunProgress
    from cardsim.simcore.run.folders import write_study_folder
    from cardsim.simcore.study.tune import race

    bar = RunProgress(progress, f"tune {config.game} ({len(candidates)} candidates)", config.budget)
    try:
        def after_round(round_no: int, spent: int, total: int) -> None:
            bar.update(spent, total)
            if on_round is not None:
                on_round(round_no, spent, total)

        states, log = race(config, lambda alive, w: estimates(config, alive, w), on_round=after_round)
    except KeyboardInterrupt:
        if config.cache is not None:
            raise Interrupted("interrupted; the games played so far are saved: rerun the same command with "
                              "--resume to continue") from None
        raise Interrupted("interrupted; nothing was written") from None
    finally:
        bar.close()
    table = candidate_table(config, states)
    rounds = pd.DataFrame(log)
    meta = dict(config.manifest(), candidates=len(candidates), games_played=int(sum(
        s.deals for s in states) * len(first.tables())), grid_games_at_final_deals=int(
        max(s.deals for s in states) * len(states) * len(first.tables())))
    if out is not None:
        write_study_folder(out, overwrite, "tune", meta, {"candidates": table, "rounds": rounds}, locked=True)
    return TableResult({"candidates": table, "rounds": rounds}, meta, out, "candidates")


def _run_experiment(spec, n: Optional[int], seed: Optional[int], out: Optional[PathLike], overwrite: bool,
                    threads: Optional[int], progress: bool) -> TableResult:
    """The body of :func:`experiment` (and ``cardsim experiment``): every arm at every
    strength on the same seed, then the comparison, written atomically into ``out``."""
    import shutil
    import tempfile
    import uuid

    from cardsim.analysis.compare import compare
    from cardsim.simcore.study.experiment import read_experiment, write_experiment_json
    from cardsim.simcore.run.outpath import check_output_path
    from cardsim.simcore.run.output import PartialRun
    from cardsim.simcore.run.runner import set_threads

    from cardsim.simcore.run import lifecycle
    from cardsim.simcore.run.outpath import replace_directory

    if isinstance(spec, Mapping):
        from cardsim.simcore.study.experiment import parse_experiment

        spec_file = "spec"
        experiment = parse_experiment(dict(spec), spec_file, n, seed)
    else:
        spec_file = Path(spec)
        lifecycle.check_input_file(spec_file, "experiment spec")
        experiment = read_experiment(spec_file, n, seed)
    set_threads(threads)
    from cardsim.simcore.study.experiment import check_metric_names

    check_metric_names(experiment, str(spec_file))  # a typo costs seconds, not the whole run
    if progress:
        from cardsim.simcore.study.experiment import strength_runs as _runs

        _say_outside_speed(experiment.game, [(c.options.get("policies") or (), c.n) for _, configs in _runs(experiment)
                                             for c in configs if experiment.task == "play"])
    if out is not None:
        out = lifecycle.resolve_out(out)
        lock = lifecycle.OutputLock(out).acquire()  # one writer per output; released in the finally below
        try:
            lifecycle.clean_debris(out)
            out = check_output_path(out, overwrite)
            work = out.parent / f".{out.name}.experiment-{uuid.uuid4().hex[:8]}"
            work.mkdir()
        except BaseException:
            lock.release()
            raise
    else:
        lifecycle.clean_stale_temp_dirs()
        work = Path(tempfile.mkdtemp(prefix="cardsim-experiment-"))
        lock = lifecycle.OutputLock(work / "run", work / ".run.lock").acquire()
    try:
        import pandas as pd

        from cardsim.simcore.study.experiment import strength_label, strength_runs

        names = [arm.name for arm in experiment.arms]
        by_strength: dict[str, dict[str, Path]] = {}  # the strength x arm interaction test pairs them
        tables = []
        sweeps = []
        sweep = None
        for strength, configs in strength_runs(experiment):
            paths = {}
            folder = work / strength_label(strength) if strength else work
            folder.mkdir(exist_ok=True)
            for arm, config in zip(experiment.arms, configs):
                run = PartialRun.create(folder / arm.name, config.manifest())
                _run_missing_chunks(run, "local", None, None, progress)
                paths[arm.name] = run.commit()
            part = compare(paths[names[0]], {name: paths[name] for name in names[1:]},
                           custom_metrics=list(experiment.custom_metrics),
                           custom_events=list(experiment.custom_events))
            if strength:
                part.insert(2, "strength", strength)
                by_strength[strength] = paths
            tables.append(part)
            if experiment.sweep_switch:
                from cardsim.analysis.compare import sweep_table

                tidy = sweep_table(experiment.sweep_switch,
                                   {v: paths[name] for v, name in zip(experiment.sweep_values, names)},
                                   custom_metrics=list(experiment.custom_metrics),
                                   custom_events=list(experiment.custom_events))
                if strength:
                    tidy.insert(0, "strength", strength)
                sweeps.append(tidy)
        table = pd.concat(tables, ignore_index=True)
        if sweeps:
            sweep = pd.concat(sweeps, ignore_index=True)
            if experiment.metrics:
                sweep = sweep[sweep["metric"].isin(experiment.metrics)].reset_index(drop=True)
            sweep.to_parquet(work / "sweep.parquet", index=False)
            sweep.to_csv(work / "sweep.csv", index=False)
        if experiment.metrics:
            unknown = sorted(set(experiment.metrics) - set(table["metric"]))
            if unknown:
                raise ConfigError(f"{spec_file}: unknown metric(s) {', '.join(unknown)} "
                                  f"(available: {', '.join(dict.fromkeys(table['metric']))})")
            table = table[table["metric"].isin(experiment.metrics)].reset_index(drop=True)
        table.to_parquet(work / "comparison.parquet", index=False)
        table.to_csv(work / "comparison.csv", index=False)
        interactions = None
        if len(by_strength) >= 2:
            from cardsim.analysis.compare import interaction

            interactions = interaction(by_strength, names[0], metrics=sorted(set(table["metric"])),
                                       custom_metrics=list(experiment.custom_metrics),
                                       custom_events=list(experiment.custom_events))
            interactions.to_parquet(work / "interaction.parquet", index=False)
            interactions.to_csv(work / "interaction.csv", index=False)
        write_experiment_json(work, experiment)
        from cardsim.simcore.run.folders import write_checksums

        write_checksums(work)  # last: the tables and every arm dataset, checked by verify, report and load
        if out is not None:
            replace_directory(work, out, overwrite=True)  # checked above: --overwrite or nothing there
    except KeyboardInterrupt:
        raise Interrupted("interrupted; experiments restart from scratch") from None
    finally:
        if out is None or work.exists():
            shutil.rmtree(work, ignore_errors=True)
        lock.release()
    tables = {"comparison": table}
    if sweep is not None:
        tables["sweep"] = sweep
    if interactions is not None:
        tables["interaction"] = interactions
    return TableResult(tables, experiment.to_dict(), out, "comparison")
