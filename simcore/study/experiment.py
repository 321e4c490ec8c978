"""A/B experiments: a baseline and arms that change some switches, on the same deals.

An experiment spec is a TOML file::

    name = "Tiến Lên: southern chop rules"
    game = "tienlen"
    task = "play"                   # or "deal"
    n = 200_000                     # games (or deals) per arm
    seed = 1
    [baseline]
    rules = { chop_rules = "seed" }
    options = { policy = "heuristic" }
    [[arms]]
    name = "southern"
    rules = { chop_rules = "southern" }
    metrics = ["win_seat_0", "tricks"]   # optional: report only these
    policies = ["heuristic", "search:64", "search:256"]  # optional: every arm at each strength

A sweep replaces the arms by one arm per value of one switch (the first value is the
baseline), on the same deals; the output adds a tidy table ``sweep.parquet``
(value, metric, estimate, interval)::

    [sweep]
    switch = "win_threshold"
    values = [0, 3, 6, 9, 12]

With ``policies`` (play experiments), every arm runs once per entry (a ``--policy``
text: one policy for every seat, or per seat) on the same deals, and the comparison
shows each effect at each strength with a robustness verdict.

Every arm runs with the same seed and chunking, so game ``i`` of every arm starts from
the same deal (common random numbers) and differences can be taken game by game.
Arm rules and options are applied on top of the baseline's.
"""
from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardsim.simcore.framework import registry
from cardsim.simcore.framework.config import ConfigError

_SPEC_KEYS = {"name", "game", "task", "n", "seed", "chunk_size", "baseline", "arms", "description", "metrics",
              "policies", "sweep", "custom_metrics", "custom_events"}
_ARM_KEYS = {"name", "rules", "options"}
# An arm's dataset is the folder EXPERIMENT/NAME: a name must be a plain file name that
# starts with a letter or digit (never ".", ".." or hidden) and is not one of the
# experiment's own files.
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_RESERVED_NAMES = {"comparison.csv", "comparison.parquet", "experiment.json", "run.json", "manifest.json",
                   "interaction.csv", "interaction.parquet", "sweep.csv", "sweep.parquet"}


@dataclass(frozen=True)
class Arm:
    name: str
    rules: Any  # validated Rules
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Experiment:
    name: str
    game: str
    task: str
    n: int
    seed: int
    chunk_size: int
    arms: tuple[Arm, ...]  # arms[0] is the baseline
    description: str = ""
    metrics: tuple[str, ...] = ()  # metrics to report (empty: all)
    strengths: tuple[str, ...] = ()  # policy texts: every arm is run at each (empty: as the arms say)
    sweep_switch: str = ""  # with a sweep: the swept switch; arm i ran sweep_values[i]
    sweep_values: tuple = ()
    custom_metrics: tuple[str, ...] = ()  # PATH.py:NAME per-game metric functions
    custom_events: tuple[str, ...] = ()  # PATH.py:NAME deal events (deal experiments)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "game": self.game, "task": self.task, "n": self.n, "seed": self.seed,
            "chunk_size": self.chunk_size, "description": self.description, "metrics": list(self.metrics),
            "policies": list(self.strengths),
            "custom_metrics": list(self.custom_metrics),
            "custom_events": list(self.custom_events),
            "sweep": {"switch": self.sweep_switch, "values": list(self.sweep_values)} if self.sweep_switch else None,
            "arms": [{"name": a.name, "rules": a.rules.to_dict(), "options": a.options} for a in self.arms],
        }


def _table(value: Any, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"{where} must be a table")
    return dict(value)


def parse_experiment(data: dict[str, Any], source: str = "spec", n_override: int | None = None,
                     seed_override: int | None = None) -> Experiment:
    """Validate a spec dict (as read from TOML)."""
    unknown = set(data) - _SPEC_KEYS
    if unknown:
        raise ConfigError(f"{source}: unknown key(s) {', '.join(sorted(unknown))} "
                          f"(allowed: {', '.join(sorted(_SPEC_KEYS))})")
    for key in ("game", "n"):
        if key not in data and not (key == "n" and n_override):
            raise ConfigError(f"{source}: missing key '{key}'")
    game = str(data["game"])
    rules_cls = registry.rules_class(game)
    task = str(data.get("task", "play" if "play" in registry.tasks_of(game) else "deal"))
    spec = registry.get_task(game, task)
    n = n_override or data["n"]
    if isinstance(n, str):
        n = n.replace("_", "")
        try:
            n = int(float(n)) if float(n) == int(float(n)) else -1
        except ValueError:
            raise ConfigError(f"{source}: n must be a positive integer") from None
    if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
        raise ConfigError(f"{source}: n must be a positive integer")
    seed = seed_override if seed_override is not None else data.get("seed", 1)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**64:
        raise ConfigError(f"{source}: seed must be an integer in 0..2**64-1")
    chunk_size = data.get("chunk_size")
    if chunk_size is not None and (not isinstance(chunk_size, int) or isinstance(chunk_size, bool) or chunk_size <= 0):
        raise ConfigError(f"{source}: chunk_size must be a positive integer")

    from cardsim.simcore.framework.registry import get_spec

    required_options = get_spec(game).metric_spec(task).required_options
    baseline = _table(data.get("baseline"), f"{source}: [baseline]")
    arms_data = data.get("arms", [])
    sweep_switch, sweep_values = "", ()
    if "sweep" in data:
        sweep_switch, sweep_values, baseline, arms_data = _sweep_arms(data, source, rules_cls, baseline)
    if not isinstance(arms_data, list) or not arms_data:
        raise ConfigError(f"{source}: at least one [[arms]] entry is needed")
    arms = []
    names = set()
    for index, raw in enumerate([dict(baseline, name=baseline.get("name", "baseline"))] + list(arms_data)):
        where = f"{source}: " + ("[baseline]" if index == 0 else f"arm {index}")
        raw = _table(raw, where)
        bad = set(raw) - _ARM_KEYS
        if bad:
            raise ConfigError(f"{where}: unknown key(s) {', '.join(sorted(bad))} (allowed: name, rules, options)")
        name = str(raw.get("name", f"arm{index}"))
        if not _NAME_RE.match(name) or name in names or name.lower() in _RESERVED_NAMES:
            shown = name if len(name) <= 80 else name[:60] + f"...({len(name):,} characters)"
            raise ConfigError(f"{where}: arm names must be unique words of letters, digits, _ . - starting with a "
                              f"letter or digit, other than {', '.join(sorted(_RESERVED_NAMES))} (got {shown!r})")
        names.add(name)
        settings = dict(_table(baseline.get("rules"), where)) if index else {}
        settings.update(_table(raw.get("rules"), where))
        try:
            rules = rules_cls.from_settings(settings)
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        options = dict(_table(baseline.get("options"), where)) if index else {}
        options.update(_table(raw.get("options"), where))
        options = spec.parse_options(rules, options)
        options.update(required_options)
        try:
            spec.check_options(rules, options)
            spec.check_size(n, options)
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        arms.append(Arm(name=name, rules=rules, options=options))
    metrics = data.get("metrics", [])
    if not isinstance(metrics, list) or not all(isinstance(m, str) for m in metrics):
        raise ConfigError(f"{source}: metrics must be a list of metric names")
    metrics = tuple(metrics)
    strengths = data.get("policies", [])
    if not isinstance(strengths, list) or not all(isinstance(p, str) and p.strip() for p in strengths) \
            or len(set(strengths)) != len(strengths):
        raise ConfigError(f"{source}: policies must be a list of distinct policy texts (e.g. [\"heuristic\", \"search:64\"])")
    if strengths and task != "play":
        raise ConfigError(f"{source}: policies (strengths) need task = \"play\"")
    if strengths and any("policy" in _table(a.get("options"), "arm") or "policies" in _table(a.get("options"), "arm")
                         for a in [baseline, *arms_data] if isinstance(a, dict)):
        raise ConfigError(f"{source}: with policies = [...] the arms must not set their own policy")
    for strength in strengths:
        for arm in arms:
            try:
                spec.check_options(arm.rules, strength_options(spec, arm, strength))
            except ConfigError as exc:
                raise ConfigError(f"{source}: policies entry {strength!r}: {exc}") from None
    strengths = tuple(strengths)
    if chunk_size is None:  # the same chunking for every arm keeps game i paired
        chunk_size = min(spec.default_chunk_size(a.options) for a in arms)
    for arm in arms:
        try:
            spec.check_chunk_size(chunk_size, arm.options)
        except ConfigError as exc:
            raise ConfigError(f"{source}: arm {arm.name}: {exc}") from None
    return Experiment(name=str(data.get("name", Path(source).stem)), game=game, task=task, n=n, seed=seed,
                      chunk_size=chunk_size, arms=tuple(arms), description=str(data.get("description", "")),
                      metrics=metrics, strengths=strengths, sweep_switch=sweep_switch, sweep_values=sweep_values,
                      custom_metrics=_custom_refs(data, source, task, "custom_metrics"),
                      custom_events=_custom_refs(data, source, task, "custom_events", game))


def _custom_refs(data: dict[str, Any], source: str, task: str, key: str, game: str = "") -> tuple[str, ...]:
    """``custom_metrics`` (play) or ``custom_events`` (deal) = ``["file.py:name"]``, paths
    relative to the spec file; each is loaded (events: compiled) once to check it."""
    from cardsim.simcore.framework.custom import load_function, split_ref

    refs = data.get(key, [])
    if not isinstance(refs, list) or not all(isinstance(r, str) for r in refs):
        raise ConfigError(f"{source}: {key} must be a list of \"PATH.py:FUNCTION\" strings")
    needed = "play" if key == "custom_metrics" else "deal"
    if refs and task != needed:
        raise ConfigError(f"{source}: {key} need task = \"{needed}\"")
    out = []
    base = Path(source).parent if source != "spec" else Path(".")
    for ref in refs:
        path, name = split_ref(ref, key)
        full = f"{(path if path.is_absolute() else base / path).resolve()}:{name}"
        if key == "custom_events":
            from cardsim.simcore.framework.custom_events import compile_event

            compile_event(game, full)
        else:
            load_function(full, f"{source}: {key}")
        out.append(full)
    return tuple(out)


def _sweep_arms(data: dict[str, Any], source: str, rules_cls, baseline: dict[str, Any]):
    """``(switch, values, baseline, arms)`` of a ``[sweep]``: one arm per value."""
    sweep = _table(data["sweep"], f"{source}: [sweep]")
    if set(sweep) != {"switch", "values"}:
        raise ConfigError(f"{source}: [sweep] needs exactly the keys switch and values")
    if data.get("arms"):
        raise ConfigError(f"{source}: use [sweep] or [[arms]], not both")
    switch = str(sweep["switch"])
    if switch not in rules_cls.SWITCHES:
        raise ConfigError(f"{source}: [sweep] switch {switch!r} is not a switch of {rules_cls.GAME} "
                          f"(known: {', '.join(rules_cls.SWITCHES)})")
    values = sweep["values"]
    if not isinstance(values, list) or len(values) < 2 or len({str(v) for v in values}) != len(values):
        raise ConfigError(f"{source}: [sweep] values must be a list of at least two distinct values")
    if switch in _table(baseline.get("rules"), "[baseline]"):
        raise ConfigError(f"{source}: the baseline must not set the swept switch {switch!r}")

    def arm(value) -> dict[str, Any]:
        label = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{switch}-{value}")[:64]
        return {"name": label, "rules": {switch: value}}

    first = dict(baseline, **arm(values[0]))
    first["rules"] = dict(_table(baseline.get("rules"), "[baseline]"), **{switch: values[0]})
    return switch, tuple(values), first, [arm(v) for v in values[1:]]


def check_metric_names(experiment: Experiment, source: str) -> None:
    """Refuse unknown ``metrics`` before any arm runs: the metric columns are read off
    one game of the baseline (and custom metric names)."""
    if not experiment.metrics:
        return
    import dataclasses

    from cardsim.simcore.framework.custom import metric_name
    from cardsim.simcore.run.runner import run_chunk

    config = dataclasses.replace(strength_runs(experiment)[0][1][0], n=1, chunk_size=1)
    metric = registry.get_spec(experiment.game).metric_spec(experiment.task)
    known = list(metric.function(run_chunk(config, 0)[metric.table].to_pandas()).columns)
    known += [metric_name(ref) for ref in experiment.custom_metrics]
    for ref in experiment.custom_events:
        name = metric_name(ref)
        known += [name] + [f"{name}_seat_{s}" for s in range(experiment.arms[0].rules.players)]
    unknown = [m for m in experiment.metrics if m not in known]
    if unknown:
        raise ConfigError(f"{source}: unknown metric(s) {', '.join(unknown)} (available: {', '.join(known)})")


def strength_options(task, arm: Arm, strength: str) -> dict[str, Any]:
    """An arm's options with every seat's policy set by the policy text ``strength``."""
    options = {k: v for k, v in arm.options.items() if k != "policies"}
    options["policy"] = strength
    return task.parse_options(arm.rules, options)


def strength_label(strength: str) -> str:
    """A folder-safe name of a strength (``search:64`` -> ``search-64``)."""
    return re.sub(r"[^A-Za-z0-9_.=-]+", "-", strength).strip("-") or "policy"


def read_experiment(path: str | Path, n_override: int | None = None, seed_override: int | None = None) -> Experiment:
    path = Path(path)
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError(f"experiment spec not found: {path}") from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read experiment spec {path}: {exc}") from None
    return parse_experiment(data, str(path), n_override, seed_override)


def arm_configs(experiment: Experiment):
    """One :class:`RunConfig` per arm (baseline first), all with the same seed and chunking."""
    from cardsim.simcore.run.runner import RunConfig

    return [RunConfig(game=experiment.game, task=experiment.task, rules=arm.rules, n=experiment.n,
                      seed=experiment.seed, chunk_size=experiment.chunk_size, options=arm.options)
            for arm in experiment.arms]


def strength_runs(experiment: Experiment):
    """``[(strength, [RunConfig per arm, baseline first])]``: one entry per strength, or
    ``[("", arm_configs(...))]`` when the spec sets no ``policies``."""
    from cardsim.simcore.run.runner import RunConfig

    if not experiment.strengths:
        return [("", arm_configs(experiment))]
    task = registry.get_task(experiment.game, experiment.task)
    return [(strength, [RunConfig(game=experiment.game, task=experiment.task, rules=arm.rules, n=experiment.n,
                                  seed=experiment.seed, chunk_size=experiment.chunk_size,
                                  options=strength_options(task, arm, strength))
                        for arm in experiment.arms])
            for strength in experiment.strengths]


def write_experiment_json(out: Path, experiment: Experiment) -> None:
    from cardsim.simcore.run.layout import EXPERIMENT_JSON

    (out / EXPERIMENT_JSON).write_text(json.dumps(experiment.to_dict(), ensure_ascii=False, indent=2) + "\n")
