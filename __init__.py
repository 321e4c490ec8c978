"""Not a package: the repository's root folder. It is here to say what happened when Python takes it for one.

A clone kept as ``cardsim/`` (git's default name) and a script run from its parent folder:
``import cardsim`` finds this folder before the installed package, and without this file
Python made it an empty namespace package (``module 'cardsim' has no attribute 'play'``).
The package itself is ``cardsim/`` (with ``simcore/``, ``cli/``, ``analysis/``), installed
by ``pip install -e .`` (see README.md).
"""
import os as _os

if __name__ == "cardsim":
    _root = _os.path.dirname(_os.path.abspath(__file__))
    raise ImportError(
        f"`import cardsim` found the cardsim source folder {_root} (a clone named cardsim, "
        f"imported from its parent folder {_os.path.dirname(_root)}) instead of the installed package. "
        f"Run your script from another folder, or rename the clone (e.g. git clone URL cardsim-src); "
        f"install it with `pip install -e {_root}` if it is not installed.")
