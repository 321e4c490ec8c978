"""cardsim: Monte Carlo statistics for traditional card games.

One import namespace for the project's three parts, which keep their own top-level
folders in the repository: :mod:`cardsim.simcore` (kernels, rules, runner),
:mod:`cardsim.analysis` (pandas side) and :mod:`cardsim.cli` (the Typer app).
An installed cardsim adds no other top-level module.
"""
from __future__ import annotations

import os as _os

_here = _os.path.dirname(_os.path.abspath(__file__))
_root = _os.path.dirname(_here)
# In a checkout (or an editable install) the subpackages are folders beside this one;
# an installed wheel has them inside it (setuptools' package-dir mapping).
if not _os.path.isdir(_os.path.join(_here, "simcore")) and _os.path.isdir(_os.path.join(_root, "simcore")):
    __path__.append(_root)  # type: ignore[name-defined]  # noqa: F821

from cardsim.simcore import __version__  # noqa: E402

__all__ = ["__version__"]
