"""What makes a game a game: the :class:`GameSpec` each game declares in its own ``spec.py``.

A game package registers itself with one line in :data:`cardsim.simcore.registry.GAMES`;
everything else (rules class, tasks, policies, summary, experiment metrics, its own
command-line options, its rules document) is declared here, in one frozen record that
is checked when it is built, so a game that lacks a piece fails at import, never after
a dataset has been written.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from cardsim.simcore.config import Rules
from cardsim.simcore.tasks import DealTaskBase, PlayTaskBase, Task


@dataclass(frozen=True)
class MetricSpec:
    """Per-game metric columns of one task, for experiments and reports.

    Parameters
    ----------
    table : str
        The per-game table the metrics are computed from (``per_deal``, ``games``, ``matches``).
    function : callable
        ``function(frame) -> frame``: one row per game, indexed like the input, of numeric
        columns (0/1 indicators, whose mean is a rate, or quantities such as points).
    required_options : mapping
        Task options the metrics need (``{"per_deal": True}`` for deal metrics).
    units : mapping
        Unit of each metric name prefix that is not a rate (``{"points_": "points"}``);
        everything else is a rate (a 0/1 indicator).
    """

    table: str
    function: Callable[[Any], Any]
    required_options: Mapping[str, Any] = field(default_factory=dict)
    units: Mapping[str, str] = field(default_factory=dict)
    #: ``points_seat_S`` are penalties (rummy totals): fewer is better when ranking seats.
    points_lower_is_better: bool = False

    def unit_of(self, metric: str) -> str:
        """``rate`` or the unit given in :attr:`units` for the longest matching prefix."""
        best = ""
        unit = "rate"
        for prefix, u in self.units.items():
            if metric.startswith(prefix) and len(prefix) > len(best):
                best, unit = prefix, u
        return unit


@dataclass(frozen=True)
class OptionSpec:
    """A game's own ``play``/``deal`` option (``--games-per-match``, ``--claim-seats`` ...).

    ``name`` is the task-option key (``games_per_match``); the command-line flag is the
    same with dashes. ``task`` is the task that takes it.
    """

    name: str
    task: str
    help: str

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


@dataclass(frozen=True)
class GameSpec:
    """One game: everything the runner, the CLI and the analysis need to know.

    Parameters
    ----------
    name : str
        Registry key and CLI name (``tienlen``).
    title : str
        One line for ``cardsim games``.
    rules_cls : type
        The game's frozen :class:`~cardsim.simcore.config.Rules` subclass.
    deal, play : Task
        The ``deal`` and ``play`` tasks.
    summary : callable
        ``summary(dataset) -> DataFrame`` of a ``play`` run (metric, group, n, value, ci_low, ci_high).
    metrics : mapping
        ``{task: MetricSpec}`` for experiments and reports; ``play`` is required.
    options : tuple of OptionSpec
        The game's own task options, for help and validation.
    rules_doc : str
        Repository path of the rules as implemented (``docs/rules/tienlen.md``).
    exact : str
        ``"module:function"`` of the game's exact deal probabilities,
        ``function(rules) -> [(event, seat or "any", low, high)]`` (``low == high`` when
        exact, else a guaranteed bracket); empty when the game has none yet.
    """

    name: str
    title: str
    rules_cls: type
    deal: DealTaskBase
    play: PlayTaskBase
    summary: Callable[[Any], Any]
    metrics: Mapping[str, MetricSpec]
    options: tuple[OptionSpec, ...] = ()
    rules_doc: str = ""
    exact: str = ""

    def __post_init__(self) -> None:
        problems = []
        if not isinstance(self.rules_cls, type) or not issubclass(self.rules_cls, Rules):
            problems.append("rules_cls is not a Rules subclass")
        for task_name in ("deal", "play"):
            task = getattr(self, task_name)
            if not isinstance(task, Task):
                problems.append(f"{task_name} is not a Task")
            elif task.game != self.name:
                problems.append(f"{task_name}.game is {task.game!r}")
        if "play" not in self.metrics:
            problems.append("no play metrics")
        if not callable(self.summary):
            problems.append("summary is not callable")
        for option in self.options:
            owner = getattr(self, option.task, None)
            if not isinstance(owner, Task) or option.name not in owner.option_names():
                problems.append(f"option {option.name} is not an option of its {option.task} task")
        if problems:
            raise TypeError(f"GameSpec {self.name!r}: " + "; ".join(problems))

    def task(self, name: str) -> Task:
        from cardsim.simcore.config import ConfigError

        if name == "deal":
            return self.deal
        if name == "play":
            return self.play
        raise ConfigError(f"'{name}' is not a task of {self.name} (tasks: deal, play)")

    @property
    def policies(self) -> tuple[str, ...]:
        return tuple(self.play.policy_names)

    def exact_rows(self, rules) -> list:
        """Exact deal probabilities for ``rules`` (see ``exact``), or ConfigError."""
        import importlib

        from cardsim.simcore.config import ConfigError

        if not self.exact:
            raise ConfigError(f"no exact values are available for {self.name} yet")
        module, _, function = self.exact.partition(":")
        return getattr(importlib.import_module(module), function)(rules)

    def metric_spec(self, task: str) -> MetricSpec:
        from cardsim.simcore.config import ConfigError

        if task not in self.metrics:
            raise ConfigError(f"experiments are not available for {self.name} {task} "
                              f"(available: {', '.join(self.metrics)})")
        return self.metrics[task]
