"""Exact deal probabilities (and other tables) computed once per rules: kept in memory and
in the user cache dir.

The exact values (pure-Python dynamic programmes, seconds per rule set) do not change
between runs, so ``cardsim deal`` and ``cardsim summary`` read them from a small JSON file
keyed by the game, the rules, :data:`CACHE_VERSION` and a hash of the source of the
module that computes them (an edited formula never reads a stale value). Files are
written atomically (temporary file, then rename); an unreadable, damaged or unwritable
cache is ignored and the values are recomputed. Values are exact fractions either way.
:func:`cached_arrays` does the same for NumPy tables a game builds in plain Python on
every start (Tứ Sắc's meld tables: about 2 s of each run otherwise).
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable

#: Bump to drop every cached file (e.g. when the row format changes).
CACHE_VERSION = 1

#: Environment variable naming the cache directory (``off`` disables the disk cache).
CACHE_ENV = "CARDSIM_CACHE_DIR"

#: Files kept per game (a few KB each); older ones (other rules, older code) are deleted.
MAX_FILES_PER_GAME = 64

_MEMORY: dict[str, list] = {}


def cache_dir() -> Path | None:
    """The directory of cardsim's cached files: ``$CARDSIM_CACHE_DIR``, else the platform's
    user cache directory (``$XDG_CACHE_HOME`` or ``~/.cache`` on Linux) + ``cardsim``;
    None when disabled (``CARDSIM_CACHE_DIR=off``)."""
    given = os.environ.get(CACHE_ENV)
    if given:
        return None if given.lower() == "off" else Path(given)
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "cardsim"


def _key(game: str, ref: str, rules) -> str:
    """Hex digest of what the values depend on: game, rules, version and the module's source."""
    from cardsim.simcore.framework.spec import resolve_ref

    function = resolve_ref(ref)
    module = sys.modules[function.__module__]
    source = Path(module.__file__).read_bytes() if getattr(module, "__file__", None) else b""
    text = json.dumps([CACHE_VERSION, game, ref, rules.to_dict()], sort_keys=True, default=str)
    return hashlib.sha256(text.encode() + b"\0" + source).hexdigest()[:32]


def _encode(rows: list) -> list:
    return [[event, seat, str(Fraction(low)), str(Fraction(high))] for event, seat, low, high in rows]


def _decode(data: Any) -> list:
    rows = []
    for event, seat, low, high in data:
        if not isinstance(event, str) or not (seat == "any" or (isinstance(seat, int) and seat >= 0)):
            raise ValueError("bad cached row")
        rows.append((event, seat, Fraction(low), Fraction(high)))
    return rows


def is_cached(game: str, ref: str, rules) -> bool:
    """Whether :func:`cached_exact_rows` would read these rows rather than compute them."""
    key = _key(game, ref, rules)
    folder = cache_dir()
    return key in _MEMORY or (folder is not None and (folder / f"exact-{game}-{key}.json").is_file())


def cached_exact_rows(game: str, ref: str, rules, compute: Callable[[Any], list]) -> list:
    """``compute(rules)`` (rows ``(event, seat, low, high)`` with fractions), from memory or
    the disk cache when this game, rules and code were computed before."""
    key = _key(game, ref, rules)
    if key in _MEMORY:
        return list(_MEMORY[key])
    folder = cache_dir()
    path = folder / f"exact-{game}-{key}.json" if folder is not None else None
    rows = None
    if path is not None:
        try:
            rows = _decode(json.loads(path.read_text(encoding="utf-8")))
        except Exception:  # missing, unreadable or damaged: recompute (and rewrite) below
            rows = None
    if rows is None:
        rows = [(event, seat, Fraction(low), Fraction(high)) for event, seat, low, high in compute(rules)]
        if path is not None:
            _write_atomically(path, json.dumps(_encode(rows)))
            _prune(path.parent, f"exact-{game}-*.json")
    _MEMORY[key] = rows
    return list(rows)


def _write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file and a rename; give up silently on
    any OS error (a read-only home only costs the recomputation next time)."""
    _replace_atomically(path, lambda stream: stream.write(text.encode("utf-8")))


def _replace_atomically(path: Path, write: Callable[[Any], None]) -> None:
    """``write(binary stream)`` into a temporary file next to ``path``, then rename it to
    ``path``; any OS error leaves ``path`` as it was and is ignored."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(handle, "wb") as stream:
                write(stream)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        pass


def _prune(folder: Path, pattern: str) -> None:
    """Delete all but the :data:`MAX_FILES_PER_GAME` most recently written files matching
    ``pattern`` (a game's exact values, or one kind of cached arrays)."""
    try:
        files = sorted(folder.glob(pattern), key=lambda f: f.stat().st_mtime, reverse=True)
        for old in files[MAX_FILES_PER_GAME:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass


def cached_arrays(stem: str, key_text: str, modules: list, names: tuple, compute: Callable[[], dict]) -> dict:
    """``compute()`` (a dict of NumPy arrays named ``names``) from the disk cache when the
    same ``key_text`` and the same source of ``modules`` (the code that computes them) were
    computed before.

    Stored as ``{stem}-{hash}.npz`` next to the exact values; a missing, damaged or
    unwritable file only means computing the arrays. The arrays come back read-only.
    """
    import numpy as np

    digest = hashlib.sha256(f"{CACHE_VERSION}\0{stem}\0{key_text}".encode())
    for module in modules:
        digest.update(b"\0" + Path(module.__file__).read_bytes())
    folder = cache_dir()
    path = folder / f"{stem}-{digest.hexdigest()[:32]}.npz" if folder is not None else None
    arrays = None
    if path is not None:
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {name: data[name] for name in names} if sorted(data.files) == sorted(names) else None
        except Exception:  # missing, unreadable or damaged: recompute (and rewrite) below
            arrays = None
    if arrays is None:
        arrays = compute()
        if path is not None:
            _replace_atomically(path, lambda stream: np.savez(stream, **arrays))
            _prune(path.parent, f"{stem}-*.npz")
    for array in arrays.values():
        array.setflags(write=False)
    return arrays
