"""What makes a game a game: the :class:`GameSpec` each game declares in its own ``spec.py``.

A game package registers itself with one line in :data:`cardsim.simcore.framework.registry.GAMES`;
everything else (rules class, tasks, policies, summary, experiment metrics, its own
command-line options, its rules document) is declared here, in one frozen record.

A spec stays cheap to import (``cardsim games``, ``rules``, ``--help`` load no numba,
pandas or pyarrow): the pieces that need them (tasks, summary and metric functions) may
be given as ``"module:attribute"`` text, imported on first use and checked then, before
any chunk runs. ``tests/test_conformance.py`` resolves every piece of every game.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping

from cardsim.simcore.framework.config import Rules

if TYPE_CHECKING:  # the task module imports numpy; a spec needs it only once a task is used
    from cardsim.simcore.framework.tasks import DealTaskBase, PlayTaskBase, Task


def resolve_ref(ref: str) -> Any:
    """The object named by ``"package.module:attribute"`` (imported now)."""
    module, sep, attribute = ref.partition(":")
    if not sep or not module or not attribute:
        raise TypeError(f"bad reference {ref!r}: expected 'module:attribute'")
    return getattr(importlib.import_module(module), attribute)


class _LazyField:
    """A dataclass field that may be set to ``"module:attribute"`` text: the object is
    imported on first read, checked by the owner's ``_check_piece(name, value)`` and kept.

    ``__get__`` on the class raises AttributeError, so the field has no default.
    """

    def __set_name__(self, owner, name: str) -> None:
        self.name = name
        self.slot = f"_{name}_value"

    def __get__(self, obj, owner=None):
        if obj is None:
            raise AttributeError(self.name)
        value = obj.__dict__[self.slot]
        if isinstance(value, str):
            value = resolve_ref(value)
            obj._check_piece(self.name, value)
            obj.__dict__[self.slot] = value
        return value

    def __set__(self, obj, value) -> None:
        obj.__dict__[self.slot] = value  # given directly: the owner's __post_init__ checks it

    @staticmethod
    def given(obj, name: str) -> Any:
        """The value as given (text for a piece not imported yet)."""
        return obj.__dict__[f"_{name}_value"]


@dataclass(frozen=True)
class MetricSpec:
    """Per-game metric columns of one task, for experiments and reports.

    Parameters
    ----------
    table : str
        The per-game table the metrics are computed from (``per_deal``, ``games``, ``matches``).
    function : callable or str
        ``function(frame) -> frame`` (or its ``"module:attribute"``): one row per game, indexed like the input, of numeric
        columns (0/1 indicators, whose mean is a rate, or quantities such as points).
    required_options : mapping
        Task options the metrics need (``{"per_deal": True}`` for deal metrics).
    units : mapping
        Unit of each metric name prefix that is not a rate (``{"points_": "points"}``);
        everything else is a rate (a 0/1 indicator).
    """

    table: str
    function: Callable[[Any], Any] = _LazyField()  # type: ignore[assignment]
    required_options: Mapping[str, Any] = field(default_factory=dict)
    units: Mapping[str, str] = field(default_factory=dict)
    #: ``points_seat_S`` are penalties (rummy totals): fewer is better when ranking seats.
    points_lower_is_better: bool = False

    def __post_init__(self) -> None:
        if not isinstance(_LazyField.given(self, "function"), str):
            self._check_piece("function", self.function)

    def _check_piece(self, name: str, value: Any) -> None:
        if not callable(value):
            raise TypeError(f"MetricSpec({self.table!r}).{name} is not callable: {value!r}")

    def unit_of(self, metric: str) -> str:
        """``rate`` or the unit given in :attr:`units` for the longest matching prefix."""
        best = ""
        unit = "rate"
        for prefix, u in self.units.items():
            if metric.startswith(prefix) and len(prefix) > len(best):
                best, unit = prefix, u
        return unit


def option_flag(name: str) -> str:
    """The command-line flag of task option ``name`` (``games_per_match`` -> ``--games-per-match``;
    ``events``, the custom deal events, -> ``--event``, the flag that gives them)."""
    return "--event" if name == "events" else "--" + name.replace("_", "-")


def policy_label(policy) -> str:
    """A policy as tables name it: a seat read from a file by the file's name (its whole
    path is in the run's metadata): ``learned:FILE``, ``bigtwo-ppo:FILE`` and
    ``python:DIR/file.py:callable``; any other policy as it is."""
    import os

    text = str(policy)
    kind, _, rest = text.partition(":")
    if kind in ("learned", "bigtwo-ppo") and rest:
        return f"{kind}:" + os.path.basename(rest.rstrip("/\\"))
    if kind == "python" and rest:
        path, colon, function = rest.rpartition(":")
        if colon and (os.sep in path or "/" in path) and path.endswith(".py"):
            return f"python:{os.path.basename(path)}:{function}"
    return text


@dataclass(frozen=True)
class OptionSpec:
    """A game's own ``play``/``deal`` option (``--games-per-match``, ``--claim-seats`` ...).

    ``name`` is the task-option key (``games_per_match``); the command-line flag is the
    same with dashes (plus ``short``, e.g. ``-k``). ``task`` is the task that takes it,
    ``kind`` the type of its value (``int`` or ``str``). The CLI builds its game-specific
    flags from these declarations (:func:`cardsim.cli.options.with_game_options`), so a
    new option is one declaration here plus its use in the game's task.
    """

    name: str
    task: str
    help: str
    kind: type = str
    short: str = ""
    metavar: str = ""

    def __post_init__(self) -> None:
        if self.kind not in (int, str):
            raise TypeError(f"OptionSpec {self.name!r}: kind must be int or str")

    @property
    def flag(self) -> str:
        return option_flag(self.name)


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
        The game's frozen :class:`~cardsim.simcore.framework.config.Rules` subclass.
    deal, play : Task or str
        The ``deal`` and ``play`` tasks (or their ``"module:attribute"``, imported on first use).
    summary : callable or str
        ``summary(dataset) -> DataFrame`` of a ``play`` run (metric, group, n, value, ci_low,
        ci_high), or its ``"module:attribute"``.
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
    exact_full : str
        ``"module:function"`` like ``exact`` that also makes the rows ``exact`` brackets
        exact, at a higher cost (seconds); ``cardsim exact`` prints it. Empty: ``exact``.
    ledger : str
        ``"module:function"`` of the game's card ledger for the conservation check of the
        conformance suite: ``function(seed, start, count, rules, policies) -> (deck,
        where)``, ``deck`` int64[T] the count of each of the ``T`` card types in play and
        ``where`` int64[rows, places, T] the count of each type in each place (a hand,
        the table, the discards, the stock, the played cards ...) at the end of each of
        games ``start .. start+count-1`` as the play kernel plays them (one row per
        game, or per round where a game is a match of deals). Cards are conserved when
        every ``where[g].sum(axis=0) == deck`` and no count is negative.
    hands : str
        ``"module:attribute"`` of the game's :class:`~cardsim.simcore.framework.custom_events.HandsSpec`
        (the hand a user's own deal event receives, ``--event``); empty when the game
        takes no custom events yet.
    tables : str
        ``"module:function"`` that builds the game's plain-Python lookup tables for a
        rules object, ``function(rules)``, keeping them in cardsim's cache folder;
        ``cardsim compile`` calls it with the default rules. Empty when the game has none.
    balance : str
        ``"module:function"`` of the game's outcomes for the balance card,
        ``function(tables, rules) -> BalanceOutcomes`` (:mod:`cardsim.simcore.framework.balance`)
        from one chunk's ``play`` tables as pandas frames; empty when the game has no card yet.
    balance_progress : str
        ``"module:function"`` of the comebacks of a game that records no progress in its
        tables, ``function(run, chunk_id, rules) -> {name: float64[games]}`` (1: the winner
        was not leading at that point, NaN: no such point); they replace the outcomes'
        ``comebacks``. Empty when ``balance`` gives them or the game has none.
    step : str
        ``"module:Class"`` of the game's :class:`~cardsim.simcore.framework.step.StepGame`
        (one decision at a time on the kernels' engine: :func:`cardsim.env` (:mod:`cardsim.step_api`)). Empty: none yet.
    trainer : str
        The module of the game's self-play training of its ``learned`` policy
        (``cardsim train``): it has ``run_training``, ``games_per_iteration`` and
        ``reproduce_command`` (see :mod:`cardsim.simcore.tienlen.train`). Empty: no learned policy yet.
    throughput : mapping
        ``{task: runs per second on one core}``, rough (deals for ``deal``, games or
        rounds for ``play``), for the time estimate that refuses runs that cannot finish
        (:mod:`cardsim.simcore.run.estimate`); a task missing here is estimated at 1,000/s.
    """

    name: str
    title: str
    rules_cls: type
    deal: DealTaskBase = _LazyField()  # type: ignore[assignment]
    play: PlayTaskBase = _LazyField()  # type: ignore[assignment]
    summary: Callable[[Any], Any] = _LazyField()  # type: ignore[assignment]
    metrics: Mapping[str, MetricSpec]
    options: tuple[OptionSpec, ...] = ()
    rules_doc: str = ""
    exact: str = ""
    exact_full: str = ""
    ledger: str = ""
    hands: str = ""
    tables: str = ""
    balance: str = ""
    balance_progress: str = ""
    trainer: str = ""
    step: str = ""
    throughput: Mapping[str, float] = field(default_factory=dict)
    #: One line saying what a replay's card codes mean (``cardsim replay`` prints it on stderr, before the game).
    replay_legend: str = ""

    def __post_init__(self) -> None:
        problems = []
        if not isinstance(self.rules_cls, type) or not issubclass(self.rules_cls, Rules):
            problems.append("rules_cls is not a Rules subclass")
        if "play" not in self.metrics:
            problems.append("no play metrics")
        for option in self.options:
            if option.task not in ("deal", "play"):
                problems.append(f"option {option.name} names no task ({option.task!r})")
        if problems:
            raise TypeError(f"GameSpec {self.name!r}: " + "; ".join(problems))
        for piece in ("deal", "play", "summary"):
            if not isinstance(_LazyField.given(self, piece), str):  # given directly: check it now
                self._check_piece(piece, getattr(self, piece))

    def _check_piece(self, name: str, value: Any) -> None:
        """Raise TypeError unless ``value`` fits as this spec's ``name`` (a task of this
        game taking the game's declared options, or a callable summary)."""
        from cardsim.simcore.framework.tasks import Task

        problems = []
        if name == "summary":
            if not callable(value):
                problems.append("summary is not callable")
        elif not isinstance(value, Task):
            problems.append(f"{name} is not a Task")
        elif value.game != self.name:
            problems.append(f"{name}.game is {value.game!r}")
        else:
            problems += [f"option {option.name} is not an option of its {name} task" for option in self.options
                         if option.task == name and option.name not in value.option_names()]
        if problems:
            raise TypeError(f"GameSpec {self.name!r}: " + "; ".join(problems))

    def check(self) -> None:
        """Import and check every piece (tasks, summary, metric functions, exact values'
        module): what a run would otherwise find out on first use."""
        for piece in ("deal", "play", "summary"):
            getattr(self, piece)
        for metric in self.metrics.values():
            _ = metric.function  # imports it: a missing function fails here
        for piece in ("exact", "exact_full", "ledger", "tables", "balance", "balance_progress"):
            ref = getattr(self, piece)
            if ref and not callable(resolve_ref(ref)):
                raise TypeError(f"GameSpec {self.name!r}: {piece} {ref!r} is not callable")
        if self.trainer:
            module = importlib.import_module(self.trainer)
            for name in ("run_training", "games_per_iteration", "reproduce_command"):
                if not callable(getattr(module, name, None)):
                    raise TypeError(f"GameSpec {self.name!r}: trainer {self.trainer!r} has no {name}()")
        if self.hands:
            from cardsim.simcore.framework.custom_events import HandsSpec

            if not isinstance(resolve_ref(self.hands), HandsSpec):
                raise TypeError(f"GameSpec {self.name!r}: hands {self.hands!r} is not a HandsSpec")

    def task(self, name: str) -> "Task":
        from cardsim.simcore.framework.config import ConfigError

        if name == "deal":
            return self.deal
        if name == "play":
            return self.play
        raise ConfigError(f"'{name}' is not a task of {self.name} (tasks: deal, play)")

    @property
    def policies(self) -> tuple[str, ...]:
        return tuple(self.play.policy_names)

    def exact_rows(self, rules, full: bool = False) -> list:
        """Exact deal probabilities for ``rules`` (see ``exact``; ``full``: ``exact_full``
        where the game has it), or ConfigError.

        Computed once per rules and code version, then read from memory or the user
        cache directory (:mod:`cardsim.simcore.framework.exact_cache`): the same fractions.
        """
        from cardsim.simcore.framework.config import ConfigError
        from cardsim.simcore.framework.exact_cache import cached_exact_rows

        if not self.exact:
            raise ConfigError(f"no exact values are available for {self.name} yet")
        ref = self.exact_full if full and self.exact_full else self.exact
        return cached_exact_rows(self.name, ref, rules, resolve_ref(ref))

    def metric_spec(self, task: str) -> MetricSpec:
        from cardsim.simcore.framework.config import ConfigError

        if task not in self.metrics:
            raise ConfigError(f"experiments are not available for {self.name} {task} "
                              f"(available: {', '.join(self.metrics)})")
        return self.metrics[task]
