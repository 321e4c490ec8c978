"""Link the large cardsim kernels to their callers by symbol, not by copying their code.

Numba links every callee's whole optimised LLVM module into each caller and optimises and
compiles the result again, so a kernel five calls deep is optimised and turned into machine
code five times, and a game's top kernel recompiles the whole game. Here a call from one
cardsim kernel to another stays an ordinary call to the callee's already compiled machine
code, resolved by symbol when the caller is loaded, so it is compiled once.

Only kernels decorated with :func:`by_symbol` are linked this way: the optimiser can no longer
inline them into their callers, so they are the turn-sized ones (choose a move, apply it, play
a round or a game), whose call costs nothing next to their work. Small helpers called in inner
loops keep Numba's linking and are inlined as before.

A caller loaded from Numba's on-disk cache must find its callees already loaded: each caller
records its callees in ``reload_init``, which Numba runs before it loads the caller's
machine code, and which loads (or compiles) each callee first.

Importing this module patches Numba (see :func:`install`); every module whose kernels call a
``@by_symbol`` kernel imports it (directly or through the callee's module) before compiling,
and a light command that never touches a kernel does not import Numba at all.

The machine code is the same either way, so results are identical. ``CARDSIM_LINK_BY_SYMBOL=0``
switches back to Numba's own linking for kernels compiled from then on (cache entries of
either kind load under either setting).

Importing this module also installs :mod:`cardsim.simcore.dispatch` (callees compiled
without Python wrappers, integer constants typed as plain integers), since every kernel
module imports this one before it compiles.
"""
from __future__ import annotations

import importlib
import os
import zlib

from numba.core import bytecode, caching, codegen, dispatcher

from cardsim.simcore import dispatch  # noqa: F401  (installs its patches first)

ENABLED = os.environ.get("CARDSIM_LINK_BY_SYMBOL", "1") != "0"
BY_SYMBOL: set[tuple[str, str]] = set()  # (module, qualname) of the kernels linked by symbol


def by_symbol(kernel):
    """Mark a Numba kernel (decorate above ``@njit``) to be linked into callers by symbol."""
    BY_SYMBOL.add((kernel.py_func.__module__, kernel.py_func.__qualname__))
    return kernel


class StaleCallee(Exception):
    """A cached caller's callee is gone or compiles under another symbol: recompile the caller."""


class LoadCallee:
    """Load (or compile) one cardsim kernel's overload: a picklable ``reload_init`` entry.

    Parameters
    ----------
    module, qualname : str
        Where the kernel's dispatcher lives.
    args : tuple of numba types
        The overload's argument types.
    symbol : str
        The overload's mangled name, which the caller's machine code calls. A callee that
        no longer loads under this name (renamed, moved, other flags) raises
        :class:`StaleCallee`, and Numba compiles the caller again instead of loading it.
    """

    def __init__(self, module: str, qualname: str, args: tuple, symbol: str):
        self.module, self.qualname, self.args, self.symbol = module, qualname, tuple(args), symbol

    def __eq__(self, other):
        return isinstance(other, LoadCallee) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def _key(self):
        return (self.module, self.qualname, self.args, self.symbol)

    def __reduce__(self):
        return (LoadCallee, self._key())

    def __call__(self) -> None:
        try:
            target = importlib.import_module(self.module)
            for part in self.qualname.split("."):
                target = getattr(target, part)
            if self.args not in target.overloads:
                dispatch.compile_as_callee(target, self.args)
            symbol = target.overloads[self.args].fndesc.mangled_name
        except Exception as error:  # any failure: the cached caller cannot be used
            raise StaleCallee(f"{self.module}.{self.qualname}: {error}") from error
        if symbol != self.symbol:
            raise StaleCallee(f"{self.module}.{self.qualname} is now {symbol}, not {self.symbol}")


_original_from_function = bytecode.FunctionIdentity.from_function.__func__
_original_add_overload = dispatcher.Dispatcher.add_overload
_original_add_linking_library = codegen.CPUCodeLibrary.add_linking_library
_original_load_overload = caching.Cache.load_overload


def _from_function(cls, pyfunc):
    """A by-symbol kernel's symbol is the same in every process.

    Numba numbers every compilation in a process (its ``unique_id``, part of the symbol), so
    a kernel compiled by the compile-plan helper and again by the main process got two
    names, and callers cached by one could not call the other's code. A module-level
    kernel needs no per-process number: its number is derived from where it is defined.
    """
    identity = _original_from_function(cls, pyfunc)
    if (identity.modname, identity.func_qualname) in BY_SYMBOL:
        where = f"{identity.modname}.{identity.func_qualname}:{identity.firstlineno}"
        identity.unique_id = 1_000_000 + zlib.crc32(where.encode()) % 1_000_000_000
        identity.unique_name = f"{identity.func_qualname}${identity.unique_id}"
    return identity


def _add_overload(self, cres):
    """Tag a by-symbol kernel's library with where its dispatcher lives.

    A library loaded from the cache also gets back its ``reload_init`` (Numba keeps it only
    in the compile result), so that a caller that links it inherits the by-symbol callees
    its code calls, as it does from a freshly compiled library.
    """
    library = cres.library
    if cres.reload_init:
        library._reload_init.update(cres.reload_init)
    where = (getattr(self.py_func, "__module__", None), getattr(self.py_func, "__qualname__", None))
    if ENABLED and where in BY_SYMBOL:
        library._cardsim_callee = LoadCallee(*where, cres.signature.args, cres.fndesc.mangled_name)
    return _original_add_overload(self, cres)


def _add_linking_library(self, library):
    """Keep a by-symbol callee out of the caller's module; load it first on cache reload."""
    callee = getattr(library, "_cardsim_callee", None)
    if callee is None:
        return _original_add_linking_library(self, library)
    library._ensure_finalized()
    self._reload_init.add(callee)
    self._reload_init.update(library._reload_init)  # harmless; keeps the load order complete


def _load_overload(self, sig, target_context):
    """A cache entry whose by-symbol callee is stale is a cache miss, not an error."""
    try:
        return _original_load_overload(self, sig, target_context)
    except StaleCallee:
        return None


def install() -> None:
    """Patch Numba's linking and cache loading (idempotent).

    With ``CARDSIM_LINK_BY_SYMBOL=0`` no kernel is linked by symbol, but cache entries that
    were (and their callers) still load correctly.
    """
    bytecode.FunctionIdentity.from_function = classmethod(_from_function)
    dispatcher.Dispatcher.add_overload = _add_overload
    codegen.CPUCodeLibrary.add_linking_library = _add_linking_library
    caching.Cache.load_overload = _load_overload


install()
