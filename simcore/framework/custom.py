"""Users' own questions: load a function from a plain Python file (``PATH.py:NAME``).

Custom game metrics (``cardsim play GAME --metric PATH.py:NAME``) are functions of one
game's row (a dict of its columns) or, vectorised, of a whole per-game table (a
DataFrame) returning one number per game (bool for a rate). Custom deal events
(``cardsim deal GAME --event PATH.py:NAME``) are compiled with Numba and run inside the
deal loop (:mod:`cardsim.simcore.framework.custom_events`). Every problem is a one-line
:class:`ConfigError`.
"""
from __future__ import annotations

import importlib.util
import inspect
import os
from pathlib import Path
from typing import Any, Callable

import numpy as np

from cardsim.simcore.framework.config import ConfigError


def split_ref(ref: str, what: str) -> tuple[Path, str]:
    """``"dir/file.py:name"`` -> ``(path, name)``."""
    text = str(ref).strip()
    path, sep, name = text.rpartition(":")
    if not sep or not path or not name.isidentifier():
        raise ConfigError(f"{what} must look like PATH.py:FUNCTION, got {text[:200]!r}")
    return Path(os.path.expanduser(path)), name


def load_function(ref: str, what: str = "--metric") -> Callable[..., Any]:
    """Import ``NAME`` from the file ``PATH.py`` of ``PATH.py:NAME`` (a fresh module each time)."""
    path, name = split_ref(ref, what)
    if not path.is_file():
        raise ConfigError(f"{what} {ref}: file not found: {path}")
    module_name = f"cardsim_user_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ConfigError(f"{what} {ref}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except SystemExit as exc:  # sys.exit() in the file: cardsim would end without a word
        raise ConfigError(f"{what} {ref}: the file calls sys.exit({shorten_code(exc)}) when imported"[:400]) from None
    except Exception as exc:  # the user's file: report its first line, not a traceback
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise ConfigError(f"{what} {ref}: the file fails to import: {type(exc).__name__}: {first}"[:400]) from None
    function = getattr(module, name, None)
    if function is None or not callable(function):
        raise ConfigError(f"{what} {ref}: no function {name!r} in {path}")
    return function


def metric_name(ref: str) -> str:
    return split_ref(ref, "--metric")[1]


def custom_metric_frame(refs: list[str], frame) -> "Any":
    """Evaluate custom metrics on a per-game table: a DataFrame of one float column per
    metric (named after the function), indexed like ``frame``.

    A function is first called with the whole DataFrame (vectorised); when that fails
    or does not return one value per game, it is called once per game with the row as
    a dict.
    """
    import pandas as pd

    out = pd.DataFrame(index=frame.index)
    for ref in refs:
        function = load_function(ref, "--metric")
        name = metric_name(ref)
        values = None
        try:
            result = function(frame)
            array = np.asarray(result)
            if array.ndim == 1 and len(array) == len(frame):
                values = array
        except SystemExit as exc:
            raise _exits(ref, exc) from None
        except Exception:  # not vectorised: fall back to one call per row
            values = None
        if values is None:
            try:
                values = np.array([function(row) for row in frame.to_dict("records")])
            except SystemExit as exc:
                raise _exits(ref, exc) from None
            except Exception as exc:
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
                raise ConfigError(f"--metric {ref}: the function fails on a game: {type(exc).__name__}: {first}"[:400]) from None
        _check_numbers(ref, values)
        out[name] = values.astype(float)
    return out


def shorten_code(exc: SystemExit) -> str:
    """The argument of a ``sys.exit`` call, short (``""`` for none)."""
    return "" if exc.code is None else repr(exc.code)[:40]


def _exits(ref: str, exc: SystemExit) -> ConfigError:
    """The error for a metric that calls ``sys.exit`` instead of returning a value: the
    command would otherwise end with its code and print nothing."""
    return ConfigError(f"--metric {ref}: the function calls sys.exit({shorten_code(exc)}) instead of returning a "
                       "value per game"[:400])


def _check_numbers(ref: str, values: np.ndarray) -> None:
    """Refuse values that are not one real number or bool per game: ``float()`` would
    read the text ``"3"`` as 3, drop a complex number's imaginary part and count a date
    in days, all without a word."""
    if values.ndim == 1 and values.dtype.kind in "biuf":  # bool, signed, unsigned, float
        return
    raise ConfigError(f"--metric {ref}: must return a number or bool per game, returns {_value_type(values)}")


def _value_type(values: np.ndarray) -> str:
    """What a metric returned, for the error: the type of its first value that is no
    number, or the shape when it returned several values per game."""
    if values.ndim != 1:
        return f"an array of shape {values.shape[1:]} per game"
    if values.dtype == object:
        odd = [v for v in values if not isinstance(v, (bool, int, float, np.bool_, np.number))]
        return type(odd[0]).__name__ if odd else "object (not plain numbers)"
    return {"U": "str", "S": "bytes"}.get(values.dtype.kind, str(values.dtype))


def is_rate(values) -> bool:
    """0/1 values: summarised as a rate (Wilson interval) rather than a mean."""
    values = np.asarray(values, float)
    return bool(np.isin(values, (0.0, 1.0)).all())


def describe(function: Callable) -> str:
    """The first line of a user function's docstring, for tables."""
    doc = inspect.getdoc(function) or ""
    return doc.splitlines()[0] if doc else ""
