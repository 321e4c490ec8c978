"""Compile a first run's kernels in two processes at once.

Numba compiles a kernel's callees one after another in the calling process. On a first
run (an empty cache) a game can name independent parts of its kernel tree: part 0
compiles here, every other part in a helper process (``python -m
cardsim.simcore.primitives.compile_parts``) at the same time, and each writes Numba's ordinary
on-disk cache. When they are done the run's entry kernel compiles here and loads the
parts from the cache instead of compiling them again. Only public Numba:
``Dispatcher.compile(signature)``, ``cache=True``, picklable ``numba.core.types``.

Nothing here changes what a kernel computes: a part is the same kernel with the same
argument types the entry kernel would compile. Once a part list has compiled, its key
is recorded beside the cache (:data:`RECORD`), so warm runs start no process; the kernel
cache check (:mod:`cardsim.simcore.primitives.kernel_cache`) deletes the record with the
cache. Without a second CPU, or with ``CARDSIM_COMPILE_PROCESSES=1``, nothing happens.
"""
from __future__ import annotations

import hashlib
import importlib
import os
import pickle
import subprocess
import sys
from pathlib import Path

from cardsim.simcore.primitives.kernel_cache import PARTS_RECORD as RECORD  # one line per part list compiled
_DONE: set[str] = set()  # part lists compiled (or found recorded) in this process


def record_path() -> Path:
    """Where the record lives: beside cardsim's cache digest marker."""
    from cardsim.simcore.primitives.kernel_cache import SIMCORE

    cache_dir = os.environ.get("NUMBA_CACHE_DIR")
    return (Path(cache_dir) if cache_dir else SIMCORE / "__pycache__") / RECORD


def _names(parts) -> list[list[tuple[str, str, tuple]]]:
    return [[(k.py_func.__module__, k.py_func.__name__, tuple(sig)) for k, sig in part] for part in parts]


def parts_key(parts) -> str:
    """A digest of the part list: kernels and argument types."""
    return hashlib.sha256(repr(_names(parts)).encode()).hexdigest()[:32]


def _recorded(key: str) -> bool:
    try:
        return key in record_path().read_text().split()
    except OSError:
        return False


def _record(key: str) -> None:
    try:
        path = record_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a") as f:  # one short line per write: appends from processes do not interleave
            f.write(key + "\n")
    except OSError:
        pass


def _processes() -> int:
    env = os.environ.get("CARDSIM_COMPILE_PROCESSES")
    if env and env.isdigit():
        return int(env)
    return os.cpu_count() or 1


def compile_parts(parts) -> bool:
    """Compile ``parts`` (a list of parts; a part is a list of ``(dispatcher, argument
    types)``) side by side: part 0 here, the others in helper processes, then wait.

    Returns True when helper processes ran. A helper that fails is ignored: its kernels
    then compile here, from the entry kernel, as they would without this module.
    """
    if len(parts) < 2 or _processes() < 2:
        return False
    key = parts_key(parts)
    if key in _DONE or _recorded(key):
        _DONE.add(key)
        return False
    helpers = []
    for part in _names(parts)[1:]:
        try:
            proc = subprocess.Popen([sys.executable, "-m", "cardsim.simcore.primitives.compile_parts"], stdin=subprocess.PIPE,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            proc.stdin.write(pickle.dumps(part))
            proc.stdin.close()
            helpers.append(proc)
        except OSError:
            pass
    for kernel, sig in parts[0]:
        kernel.compile(tuple(sig))
    ok = bool(helpers) and all(proc.wait() == 0 for proc in helpers)
    _DONE.add(key)
    if ok:  # every part is in the cache now
        _record(key)
    return bool(helpers)


def _compile_named(part) -> None:
    for module, name, sig in part:
        getattr(importlib.import_module(module), name).compile(sig)


if __name__ == "__main__":
    _compile_named(pickle.loads(sys.stdin.buffer.read()))
