"""How Numba compiles a cardsim kernel that another kernel calls (patches, installed on import).

Five patches of Numba, all but the third for kernels of ``cardsim.*`` modules only; none
changes the machine code of a kernel body, so results are identical:

*Callees are compiled without Python wrappers.* Numba compiles every function with a
CPython wrapper (unboxes Python arguments) and a C-callable wrapper, even when only other
kernels call it. For a kernel that takes a game state of a dozen arrays, the two wrappers
cost more to compile than a small kernel's body (a caller with ten such callees: 2.9 s
with their wrappers, 1.4 s without, ``benchmarks/bench_dispatch_patches.py``), and a
first run compiles dozens of such callees. A kernel compiled because
another kernel calls it now gets no wrappers. If Python later calls the same kernel with
the same argument types (a test, a replay), it is compiled once more with its wrappers,
and that version replaces the wrapper-less one in Numba's cache (it serves both kinds of
callers). A wrapper-less version is never entered in the table Python calls go through:
calling one from Python would jump to a null pointer. (The wrapper options are part of
a kernel's symbol, so the version with wrappers has another symbol: a cached caller
linked by symbol to the wrapper-less one, :mod:`cardsim.simcore.linking`, is then a
cache miss and compiled again. That costs time, never correctness.)
``CARDSIM_CALLEE_WRAPPERS=1`` turns this patch off. Measured on ``play loba``'s first
run: 41 s of compile CPU time without it, 26 s with it.

*Integer constants do not specialise a callee.* Numba types a constant argument as a
literal (``Literal[int](0)``) and compiles the callee for it, so a variable that starts as
a constant and is changed later (``t = 0`` then ``t += n``) compiled the callee twice:
once while type inference still saw the constant, once for ``int64``. Integer literals
passed to a cardsim kernel are typed as plain integers. Boolean constants keep their
literal type: kernels use them as compile-time switches (a move log or a search stop
compiled out of the turn loop).

*Comparing compiler flags is cheap* (:func:`_fast_flags`). Every typing of a call to a
Numba overload looks the flags up in a cache keyed by them, and Numba compares and
hashes flags option by option through properties: a tenth of a profiled rummy compile
(about 3 s for the comparisons of one ``play loba`` first run, 0.1 s patched:
``benchmarks/bench_dispatch_patches.py``). The same answers, computed directly from the
stored values.

*A kernel the cache misses is looked up among the kernels shipped precompiled*
(:mod:`cardsim.simcore.kernel_store`) before Numba compiles it.

*Loading a cached kernel does not load the compiler.* Before it loads a kernel from its
cache, Numba refreshes its compiler's registries: it imports the implementations of every
Python and NumPy feature it compiles (``numba.np.linalg``, ``numba.typed``, ...) and
registers them, about 0.2 s of a warm command's 2 s, none of which a loaded kernel uses.
A load of a cardsim kernel now initialises only the runtime (NRT) whose symbols loaded
code links to; a compile still refreshes the registries first, as Numba's compiler does on
its own (``test_a_warm_load_skips_the_compiler_registries``). ``CARDSIM_FULL_CACHE_LOAD=1``
turns this patch off.
"""
from __future__ import annotations

import os
import threading
from contextlib import contextmanager

from numba.core import caching, dispatcher, sigutils, types
from numba.core import event as ev
from numba.core.compiler_lock import global_compiler_lock


def _switched_on(name: str) -> bool:
    """Whether the environment switch ``name`` is set (``1``/``on``/``true``/``yes``, any case)."""
    return os.environ.get(name, "0").strip().lower() not in ("0", "", "off", "false", "no")


WRAPPERLESS = not _switched_on("CARDSIM_CALLEE_WRAPPERS")
_WRAPPER_OPTIONS = ("no_cpython_wrapper", "no_cfunc_wrapper")
_local = threading.local()  # the dispatcher a call from Python is compiling for


def _is_cardsim(disp) -> bool:
    """Whether a dispatcher (or a Numba cache, which keeps ``_py_func``) is a cardsim kernel's."""
    func = getattr(disp, "py_func", None) or getattr(disp, "_py_func", None)
    return getattr(func, "__module__", "").startswith("cardsim.")


@contextmanager
def _options(disp, value: bool):
    """Set the wrapper options of one dispatcher (its compiler shares the dict) for a while,
    under Numba's compiler lock (another thread must not compile with them meanwhile)."""
    with global_compiler_lock:
        options = disp.targetoptions
        saved = {k: options[k] for k in _WRAPPER_OPTIONS if k in options}
        for k in _WRAPPER_OPTIONS:
            options[k] = value
        try:
            yield
        finally:
            for k in _WRAPPER_OPTIONS:
                options.pop(k, None)
            options.update(saved)


def has_python_wrapper(cres) -> bool:
    """Whether a compile result can be called from Python (its CPython wrapper exists)."""
    if cres.objectmode:
        return True
    return cres.library.get_pointer_to_function(cres.fndesc.llvm_cpython_wrapper_name) != 0


_original_add_overload = dispatcher.Dispatcher.add_overload
_original_compile = dispatcher.Dispatcher.compile
_original_compile_for_args = dispatcher.Dispatcher._compile_for_args
_original_get_call_template = dispatcher.Dispatcher.get_call_template


def _add_overload(self, cres):
    """Keep a wrapper-less overload out of the table Python calls go through."""
    if _is_cardsim(self) and not has_python_wrapper(cres):
        self.overloads[tuple(cres.signature.args)] = cres
        return None
    return _original_add_overload(self, cres)


def _compile_for_args(self, *args, **kws):
    """A call from Python: the overload it gets must have its Python wrapper (also when
    the call happens while a callee compiles, e.g. a kernel called at a module's import)."""
    saved = getattr(_local, "python_call", None)
    _local.python_call = self
    try:
        return _original_compile_for_args(self, *args, **kws)
    finally:
        _local.python_call = saved


def _compile(self, sig):
    saved = getattr(_local, "compiling", None)
    _local.compiling = self  # the dispatcher whose cache a load consults (kernel store: which version)
    try:
        return _compile_overload(self, sig)
    finally:
        _local.compiling = saved


def _compile_overload(self, sig):
    if getattr(_local, "python_call", None) is not self:
        return _original_compile(self, sig)
    _local.python_call = None  # this dispatcher's own callees are not Python calls
    # one lock for compiling and adding the wrappers: another thread must not get the
    # wrapper-less entry in between
    with global_compiler_lock:
        _original_compile(self, sig)
        ensure_python_wrapper(self, sig)
        return self.overloads[tuple(sigutils.normalize_signature(sig)[0])].entry_point


def ensure_python_wrapper(disp, sig) -> None:
    """If ``disp``'s overload for ``sig`` (compiled or loaded) has no Python wrapper, compile
    it again with its wrappers and replace it in the dispatcher and in Numba's cache."""
    args, return_type = sigutils.normalize_signature(sig)
    with global_compiler_lock:
        cres = disp.overloads.get(tuple(args))
        if cres is None or has_python_wrapper(cres):
            return
        with _options(disp, False), \
                ev.trigger_event("numba:compile", data=dict(dispatcher=disp, args=args, return_type=return_type)):
            cres = disp._compiler.compile(args, return_type)
            disp.add_overload(cres)
        disp._cache.save_overload(sig, cres)


@contextmanager
def _as_callee(disp):
    """Compilations of ``disp`` inside are for calls from other kernels: no wrappers."""
    if WRAPPERLESS and _is_cardsim(disp):
        with _options(disp, True):
            yield
    else:
        yield


def compile_as_callee(disp, args) -> None:
    """Compile (or load) ``disp`` for argument types ``args`` as a call from another kernel would."""
    with _as_callee(disp):
        disp.compile(tuple(args))


def _plain_int(t):
    return types.unliteral(t) if isinstance(t, types.IntegerLiteral) else t


def _get_call_template(self, args, kws):
    """Typing a call from one kernel to another: compile the callee for plain integers, without wrappers."""
    if not _is_cardsim(self):
        return _original_get_call_template(self, args, kws)
    args = tuple(_plain_int(a) for a in args)
    kws = {k: _plain_int(v) for k, v in kws.items()}
    with _as_callee(self):
        return _original_get_call_template(self, args, kws)


def _fast_flags() -> None:
    """``TargetConfig.values``, ``__eq__`` and ``__hash__`` with Numba's results, faster."""
    from numba.core.targetconfig import TargetConfig

    defaults: dict[type, dict] = {}

    def class_defaults(cls) -> dict:
        if cls not in defaults:
            defaults[cls] = {k: option.default for k, option in cls.options.items()}
        return defaults[cls]

    def values(self):
        # the same dict, in the same order, as Numba's {k: self._values.get(k, default)}
        return {**class_defaults(type(self)), **self._values}

    hashes: dict[type, int] = {}

    def hash_(self):
        # numba hashes tuple(sorted(self.values())): sorting a dict gives its sorted keys,
        # so the hash depends on the class's option names only
        cls = type(self)
        if cls not in hashes:
            hashes[cls] = hash(tuple(sorted(self.options)))
        return hashes[cls]

    def eq(self, other):
        if not isinstance(other, TargetConfig):
            return NotImplemented
        if self is other:
            return True
        if type(self) is not type(other):
            return values(self) == values(other)
        mine, theirs = self._values, other._values
        if mine == theirs:
            return True
        # options set in neither are equal (both default): compare the others only
        default = class_defaults(type(self))
        return all(mine.get(k, default[k]) == theirs.get(k, default[k]) for k in mine.keys() | theirs.keys())

    TargetConfig.values = values
    TargetConfig.__hash__ = hash_
    TargetConfig.__eq__ = eq


def _load_overload(self, sig, target_context):
    """Numba's ``Cache.load_overload`` without ``target_context.refresh()`` for cardsim's CPU
    kernels: a loaded kernel needs the runtime's symbols, not the compiler's registries.
    Other functions (a user's, a ufunc whose wrapper may be lowered after the load, another
    target) load as Numba loads them."""
    from numba.core.cpu import CPUContext
    from numba.core.runtime import rtsys

    if not (isinstance(target_context, CPUContext) and _is_cardsim(self)):
        return _numba_load_overload(self, sig, target_context)
    with global_compiler_lock:  # what Numba's refresh() holds while it initialises the runtime
        rtsys.initialize(target_context)  # idempotent
    with self._guard_against_spurious_io_errors():
        return self._load_overload(sig, target_context)
    # None when the block swallowed an I/O error (as in Numba's version)


_numba_load_overload = caching.Cache.load_overload


def _with_store(load_overload):
    """``load_overload`` then, for a cardsim CPU kernel it misses, the kernels shipped
    precompiled (:mod:`cardsim.simcore.kernel_store`): the version without Python wrappers
    when the dispatcher compiles for a call from another kernel."""
    def load_or_rebuild(self, sig, target_context):
        cres = load_overload(self, sig, target_context)
        if cres is not None or not _is_cardsim(self):
            return cres
        from numba.core.cpu import CPUContext

        if not isinstance(target_context, CPUContext):
            return None
        from cardsim.simcore import kernel_store

        disp = getattr(_local, "compiling", None)
        wrapperless = bool(disp is not None and disp._cache is self and disp.targetoptions.get("no_cpython_wrapper"))
        return kernel_store.load(self, sig, target_context, wrapperless)

    return load_or_rebuild


def install() -> None:
    """Patch Numba's dispatcher, flag comparisons and cache loads (idempotent)."""
    _fast_flags()
    load = _numba_load_overload if _switched_on("CARDSIM_FULL_CACHE_LOAD") else _load_overload
    caching.Cache.load_overload = _with_store(load)
    dispatcher.Dispatcher.add_overload = _add_overload
    dispatcher.Dispatcher.compile = _compile
    dispatcher.Dispatcher._compile_for_args = _compile_for_args
    dispatcher.Dispatcher.get_call_template = _get_call_template


install()
