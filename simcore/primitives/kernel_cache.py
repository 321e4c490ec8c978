"""Keep Numba's on-disk kernel cache in step with the kernel sources, as a whole.

Numba checks a cached kernel against its own source file only (timestamp and size), but a
kernel carries the machine code of every kernel it calls: after an edit of a callee (a
``git pull`` in an editable install, a local change), a caller in an unchanged file would
load stale code and give different results silently. So before any kernel module is
imported, :func:`check` compares a digest of every source under ``simcore/`` with the one
recorded beside the cache, and when they differ it deletes cardsim's cached kernels (the
``*.nbi`` / ``*.nbc`` files): the next run compiles afresh, once. File operations only, no
Numba internals (Numba's own fix for dependencies in other files, numba/numba#8396, is not
merged).

Where the cache is: ``__pycache__`` folders beside the sources, or under
``NUMBA_CACHE_DIR`` when that is set (Numba mirrors the source folders there; cardsim's
are the ones below a ``simcore`` folder). Set ``CARDSIM_KEEP_KERNEL_CACHE=1`` to skip the
check.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

SIMCORE = Path(__file__).resolve().parent.parent
MARKER = "cardsim-kernels.sha256"
#: the record of kernels compiled ahead (:mod:`cardsim.simcore.primitives.compile_parts`), kept beside the marker
PARTS_RECORD = "cardsim-compiled-parts.txt"


def source_digest(root: Path = SIMCORE) -> str:
    """SHA-256 over every ``*.py`` below ``root`` (relative path and content, in path order)."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode())
        h.update(b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def _flat_names(root: Path) -> set[str]:
    """The folder names Numba 0.60+ gives ``root``'s source folders under ``NUMBA_CACHE_DIR``:
    ``NAME_<sha1 of the folder's full path>`` (one flat folder per source folder)."""
    folders = [root, *(p for p in root.rglob("*") if p.is_dir() and p.name != "__pycache__")]
    return {f"{d.name}_{hashlib.sha1(str(d).encode()).hexdigest()}" for d in folders}


def cache_files(root: Path = SIMCORE, cache_dir: str | None = None) -> list[Path]:
    """cardsim's cached kernels: below ``root``'s ``__pycache__`` folders, or below
    ``cache_dir`` (``NUMBA_CACHE_DIR``): in the flat ``NAME_<hash>`` folders of ``root``'s
    source folders, or (older Numba) in folders that mirror the path under a ``simcore`` folder."""
    if cache_dir:
        base = Path(cache_dir)
        flat = _flat_names(root)
        return [p for p in base.rglob("*.nb[ic]")
                if "simcore" in p.relative_to(base).parts[:-1] or p.parent.name in flat]
    return list(root.rglob("__pycache__/*.nb[ic]"))


def check(root: Path = SIMCORE) -> bool:
    """Delete cardsim's cached kernels when the sources changed since they were cached.
    Returns True when it deleted (or found nothing to keep). Never raises for a read-only
    or missing cache: the check is skipped then."""
    if os.environ.get("CARDSIM_KEEP_KERNEL_CACHE"):
        return False
    cache_dir = os.environ.get("NUMBA_CACHE_DIR") or None
    marker = (Path(cache_dir) if cache_dir else root / "__pycache__") / MARKER
    try:
        digest = source_digest(root)
        if marker.is_file() and marker.read_text().strip() == digest:
            return False
        for path in cache_files(root, cache_dir):
            path.unlink(missing_ok=True)
        (marker.parent / PARTS_RECORD).unlink(missing_ok=True)  # it goes with the kernels it lists
        marker.parent.mkdir(parents=True, exist_ok=True)
        tmp = marker.with_name(f".{MARKER}.{os.getpid()}")
        tmp.write_text(digest + "\n")
        os.replace(tmp, marker)
    except OSError:
        return False
    return True
