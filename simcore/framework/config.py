"""Frozen, validated rule configurations ("rules are data").

Each game defines a frozen dataclass deriving from :class:`Rules` whose fields are the
rule switches of its spec (defaults = the spec's default profile) and a ``SWITCHES``
mapping describing how to parse and validate each one. Kernels never see these
objects: ``Rules.kernel_params()`` turns them into plain integers.

Every problem with user input raises :class:`ConfigError` with a one-line message;
the CLI turns it into exit code 2.
"""
from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Mapping

if TYPE_CHECKING:  # annotations only: the rules load without numpy
    import numpy


class CardsimError(Exception):
    """An error reported to the user as one line; ``exit_code`` is the CLI's status."""

    exit_code = 1


class ConfigError(CardsimError, ValueError):
    """Invalid user input (unknown game or switch, bad value, bad path...): exit code 2."""

    exit_code = 2


class RunFailed(CardsimError):
    """A run that started but could not finish (I/O error, worker failure): exit code 1."""


class Interrupted(CardsimError):
    """The user interrupted a run (Ctrl-C): exit code 130; finished parts are kept."""

    exit_code = 130


@dataclass(frozen=True)
class Switch:
    """How one rule switch is parsed and validated.

    Parameters
    ----------
    kind : {"int", "choice", "bool", "set", "list"}
        ``int``: an integer in ``[low, high]``; ``choice``: one of ``choices``;
        ``bool``: on/off; ``set``: a comma-separated subset of ``choices``
        (``none`` = empty, ``all`` = every choice), stored as a tuple in
        ``choices`` order; ``list``: a comma-separated sequence of ``choices``
        in the given order, repeats allowed (``all`` = every choice once).
    help : str
        One line for ``cardsim rules GAME``.
    """

    kind: str
    help: str
    choices: tuple[str, ...] = ()
    low: int | None = None
    high: int | None = None

    def allowed(self) -> str:
        """Human description of the allowed values."""
        if self.kind == "int":
            return f"integer {self.low}..{self.high}"
        if self.kind == "bool":
            return "on | off"
        if self.kind == "set":
            return "comma list of " + ", ".join(self.choices) + " | none | all"
        if self.kind == "list":
            return "ordered comma list of " + ", ".join(self.choices) + " (repeats allowed) | all"
        return " | ".join(self.choices)

    def parse(self, name: str, raw: Any) -> Any:
        """Convert a CLI string or a TOML value into the typed value, or raise."""
        bad = f"bad value {raw!r} for switch '{name}': expected {self.allowed()}"
        if self.kind == "int":
            if isinstance(raw, bool):
                raise ConfigError(bad)
            try:
                value = int(str(raw).strip().replace("_", ""), 10)
            except ValueError:
                raise ConfigError(bad) from None
            if not (self.low <= value <= self.high):
                raise ConfigError(bad)
            return value
        if self.kind == "bool":
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in ("on", "true", "yes", "1"):
                return True
            if text in ("off", "false", "no", "0"):
                return False
            raise ConfigError(bad)
        if self.kind == "choice":
            text = str(raw).strip()
            if text not in self.choices:
                raise ConfigError(bad)
            return text
        if self.kind == "list":
            items = raw if isinstance(raw, (list, tuple)) else str(raw).split(",")
            items = [str(x).strip() for x in items if str(x).strip()]
            if items == ["all"]:
                return tuple(self.choices)
            if not items or any(x not in self.choices for x in items):
                raise ConfigError(bad)
            return tuple(items)
        if self.kind == "set":
            items = raw if isinstance(raw, (list, tuple)) else str(raw).split(",")
            items = [str(x).strip() for x in items if str(x).strip()]
            if items == ["none"] or not items:
                return ()
            if items == ["all"]:
                return tuple(self.choices)
            unknown = [x for x in items if x not in self.choices]
            if unknown:
                raise ConfigError(bad)
            return tuple(c for c in self.choices if c in items)
        raise AssertionError(self.kind)

    def encode(self, value: Any) -> int:
        """The kernel's integer for a parsed value, declared once here for every game.

        ``int``: the value; ``bool``: 0/1; ``choice``: its index in ``choices``;
        ``set``: a bit mask (bit ``i`` set when ``choices[i]`` is in the set). ``list``
        switches (ordered, repeats allowed) are not one integer: a game encodes them
        itself (an array), so this raises.
        """
        if self.kind == "int":
            return int(value)
        if self.kind == "bool":
            return int(bool(value))
        if self.kind == "choice":
            return self.choices.index(value)
        if self.kind == "set":
            return sum(1 << self.choices.index(x) for x in value)
        raise TypeError(f"a {self.kind} switch has no single-integer kernel encoding")


def param_layout(rules_cls: type, switches: tuple[str, ...], extras: tuple[str, ...] = ()) -> dict[str, int]:
    """Index of each kernel parameter: the given rule switches, then ``extras``
    (run options such as ``games_per_match``). Fails at import when a name is not a
    switch of ``rules_cls`` or has no integer encoding, so the kernel's parameter
    vector cannot drift from the rules class.
    """
    layout: dict[str, int] = {}
    for name in switches:
        switch = rules_cls.SWITCHES.get(name)
        if switch is None:
            raise TypeError(f"{rules_cls.__name__} has no switch {name!r}")
        if switch.kind == "list":
            raise TypeError(f"switch {name!r} is a list: encode it as an array, not a parameter")
        layout[name] = len(layout)
    for name in extras:
        if name in layout:
            raise TypeError(f"parameter {name!r} declared twice")
        layout[name] = len(layout)
    return layout


@dataclass(frozen=True)
class Rules:
    """Base class of a game's rule configuration.

    Subclasses are frozen dataclasses; ``SWITCHES`` maps each field name to its
    :class:`Switch`, and ``HOUSE_CHOICES`` records decisions the spec leaves open
    (written into every run's metadata).
    """

    GAME: ClassVar[str] = ""
    SWITCHES: ClassVar[Mapping[str, Switch]] = {}
    HOUSE_CHOICES: ClassVar[Mapping[str, str]] = {}

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any] | None = None) -> "Rules":
        """Build validated rules from ``{switch: raw value}`` (strings or TOML values)."""
        values = {}
        for name, raw in (settings or {}).items():
            if name not in cls.SWITCHES:
                known = ", ".join(cls.SWITCHES)
                raise ConfigError(f"unknown switch '{name}' for {cls.GAME} (known: {known})")
            values[name] = cls.SWITCHES[name].parse(name, raw)
        rules = cls(**values)
        rules.validate()
        return rules

    def validate(self) -> None:
        """Cross-switch checks; raise :class:`ConfigError`. Override in subclasses."""

    def encode_params(self, layout: Mapping[str, int], extras: Mapping[str, int] | None = None) -> "numpy.ndarray":
        """The int64 parameter vector of a :func:`param_layout`: switches encoded by
        :meth:`Switch.encode`, extras (run options) given as integers."""
        import numpy as np

        extras = dict(extras or {})
        params = np.zeros(len(layout), np.int64)
        for name, index in layout.items():
            if name in self.SWITCHES:
                params[index] = self.SWITCHES[name].encode(getattr(self, name))
            else:
                params[index] = int(extras.pop(name))
        if extras:
            raise TypeError(f"unknown kernel parameter(s): {', '.join(extras)}")
        return params

    def to_dict(self) -> dict[str, Any]:
        """Fully resolved switches, JSON-ready (tuples become lists)."""
        out = {}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            out[field.name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def describe(cls) -> list[tuple[str, str, str, str]]:
        """Rows ``(switch, default, allowed values, help)`` for ``cardsim rules``."""
        defaults = cls().to_dict()
        rows = []
        for name, switch in cls.SWITCHES.items():
            default = defaults[name]
            if isinstance(default, list):
                default = ",".join(default) if default else "none"
            elif isinstance(default, bool):
                default = "on" if default else "off"
            rows.append((name, str(default), switch.allowed(), switch.help))
        return rows


def rule_text(value) -> str:
    """A rule value written as ``--set NAME=VALUE`` takes it: on/off, comma-separated lists."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (list, tuple)):
        return ",".join(map(rule_text, value))
    return str(value)


def parse_set_options(pairs: list[str]) -> dict[str, str]:
    """Parse repeated ``--set key=value`` options into a dict (later ones win)."""
    settings: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"bad --set {pair!r}: expected key=value")
        settings[key.strip()] = value.strip()
    return settings


def load_rules_file(path: str | Path, game: str) -> dict[str, Any]:
    """Read switches from a TOML file: flat ``key = value`` pairs, or a ``[GAME]`` table."""
    path = Path(path)
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError(f"rules file not found: {path}") from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read rules file {path}: {exc}".replace("\n", " ")) from None
    if game in data and isinstance(data[game], dict):
        data = data[game]
    nested = [k for k, v in data.items() if isinstance(v, dict)]
    if nested:
        raise ConfigError(f"rules file {path}: unexpected table [{nested[0]}] (switches for {game} only)")
    return data
