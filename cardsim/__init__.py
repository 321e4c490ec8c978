"""cardsim: Monte Carlo statistics for traditional card games.

The Python API (:mod:`cardsim.api`) runs what the command line runs::

    import cardsim
    r = cardsim.play("tienlen", games=1000, seed=1)
    r.summary()            # pandas DataFrame: metric, group, n, value, ci_low, ci_high

One import namespace for the project's parts, which keep their own top-level folders in
the repository: :mod:`cardsim.simcore` (kernels, rules, runner), :mod:`cardsim.analysis`
(pandas side) and :mod:`cardsim.cli` (the Typer app).
"""
from __future__ import annotations

from cardsim.simcore import __version__
from cardsim.simcore.framework.config import CardsimError, ConfigError

__all__ = ["__version__", "env", "Env", "deal", "play", "experiment", "ladder", "balance", "tune", "load", "resume", "Result",
           "TableResult",
           "ConfigError", "CardsimError"]


def __getattr__(name: str):
    if name in ("env", "Env"):  # the step interface (cardsim.step_api), loaded on first use
        import importlib

        return getattr(importlib.import_module("cardsim.step_api"), name)
    # the API module loads pandas-side helpers lazily; `import cardsim` itself stays light
    if name in ("deal", "play", "experiment", "ladder", "balance", "tune", "load", "resume", "Result", "TableResult",
                "api"):
        import importlib

        api = importlib.import_module("cardsim.api")
        return api if name == "api" else getattr(api, name)
    raise AttributeError(f"module 'cardsim' has no attribute {name!r}")
