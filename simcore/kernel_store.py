"""Kernels shipped precompiled: a first run loads them instead of compiling them.

Numba compiles a kernel in two halves: its Python front end (bytecode to typed IR to LLVM
IR, then LLVM's optimiser) and LLVM's code generator (optimised IR to machine code for this
CPU). The first half is most of a first run's time (a Loba search compiled in one
process: all but 5.0 of 34.9 CPU s, ``benchmarks/compile_phases.py``) and gives the same
optimised IR on every x86-64 machine; only the
second half depends on the CPU. The package ships that IR, as LLVM bitcode, for the
kernels its commands compile (``kernel_store/kernels.pkl``, built by
``python -m cardsim.simcore.kernel_store build``). When Numba's cache misses a cardsim
kernel, the kernel is rebuilt from its bitcode: machine code is generated for this
machine's CPU, and the result goes into Numba's cache like a compiled kernel, so later
runs load it from there.

The bitcode names no CPU model or feature and calls no CPU-specific intrinsic but x86
atomics, which every x86-64 has (checked when it is built): LLVM turns it into code for
whatever x86-64 CPU runs it. Its optimiser ran on the build machine, so choices such as
vector widths (256-bit) were made for that CPU: correct anywhere, and as fast as code
compiled from source on a machine like it. Optimised IR computes what the kernel's source says
(integer arithmetic, IEEE floating point without fast-math), so results are identical to a
compiled kernel's; the test suite compares the two.

The store is used only when it was built from these very sources (a digest of every
``.py`` file of :mod:`cardsim.simcore` but this one), by the same CPython minor version, Numba,
llvmlite and NumPy (major.minor), for the same LLVM target triple, with the same Numba
compile settings (``NUMBA_OPT``, ``NUMBA_BOUNDSCHECK``, debug info, CPU name and features,
vectorisation). Otherwise, and for any kernel it does not hold
(a user's own event, an argument type no recorded command uses), Numba compiles as
usual. ``CARDSIM_KERNEL_STORE=0`` turns it off.

``python -m cardsim.simcore.kernel_store build`` rebuilds the store, ``... status`` says
whether this process would use it, ``... check CARDSIM-ARGS...`` runs one command on an
empty cache and lists the cardsim kernels it compiled instead of loading.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import re
import shutil
import sys
import tempfile
import threading
import zlib
from pathlib import Path

ENV_SWITCH = "CARDSIM_KERNEL_STORE"
STORE_FILE = Path(__file__).with_name("kernel_store") / "kernels.pkl"
#: Another store file to read (tests).
ENV_FILE = "CARDSIM_KERNEL_STORE_FILE"
#: The package whose kernels the store holds (and whose sources its digest covers).
KERNEL_PACKAGE = "cardsim.simcore."
FORMAT = 1
_SOURCES = Path(__file__).parent  # the cardsim.simcore package: every kernel's source


def enabled() -> bool:
    return os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "off", "false", "no")


def store_file() -> Path:
    return Path(os.environ.get(ENV_FILE) or STORE_FILE)


def source_digest(root: Path = _SOURCES) -> str:
    """SHA-256 of every ``.py`` file under ``root`` (relative path and content, sorted by path),
    this module excepted (it loads kernels, it compiles none)."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        if "__pycache__" in path.parts or path.name == "kernel_store.py":
            continue
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


def environment() -> dict:
    """What a stored kernel is valid for, besides the sources."""
    import llvmlite
    import llvmlite.binding as ll
    import numba
    import numpy
    from numba.core import config

    return {"format": FORMAT, "python": f"{sys.version_info[0]}.{sys.version_info[1]}",
            "numba": numba.__version__, "llvmlite": llvmlite.__version__,
            "numpy": ".".join(numpy.__version__.split(".")[:2]), "triple": ll.get_process_triple(),
            # Numba's settings that change what a kernel compiles to (NUMBA_OPT, NUMBA_BOUNDSCHECK, ...)
            "compiler": f"opt={int(config.OPT)} boundscheck={config.BOUNDSCHECK} "
                        f"debuginfo={config.DEBUGINFO_DEFAULT} cpu={config.CPU_NAME}/{config.CPU_FEATURES} "
                        f"vectorize={config.LOOP_VECTORIZE}/{config.SLP_VECTORIZE}"}


def entry_key(module: str, qualname: str, args, wrapperless: bool) -> str:
    """A stored kernel's name: where its dispatcher lives, its argument types (repr: every
    flag of an array type), and whether it was compiled without Python wrappers (a
    callee; :mod:`cardsim.simcore.dispatch`)."""
    return f"{module}:{qualname}:{tuple(args)!r}:{'callee' if wrapperless else 'python'}"


# -- loading ---------------------------------------------------------------------------

_store: dict | None = None
_checked = False
_lock = threading.RLock()
#: why the store is not used (None: it is), for ``python -m cardsim.simcore.kernel_store status``
why_not: str | None = None
#: kernels rebuilt from the store in this process
loaded = 0


def _entries() -> dict | None:
    """The stored kernels, read once per process; None when the store cannot be used."""
    with _lock:  # another thread asking meanwhile waits for the answer
        return _read_store()


def _read_store() -> dict | None:
    global _store, _checked, why_not
    if _checked:
        return _store
    _checked, _store = True, None
    if not enabled():
        why_not = f"{ENV_SWITCH}=0"
        return None
    try:
        with open(store_file(), "rb") as f:
            data = pickle.load(f)
        meta, entries = data["meta"], data["entries"]
    except FileNotFoundError:
        why_not = f"no store at {store_file()}"
        return None
    except Exception as error:  # unreadable: compile instead
        why_not = f"unreadable store: {error}"
        return None
    wanted = dict(environment(), sources=source_digest())
    differ = [k for k in wanted if meta.get(k) != wanted[k]]
    if differ:
        why_not = "built for another " + ", ".join(
            f"{k} ({meta.get(k)!s:.12} here {wanted[k]!s:.12})" for k in differ)
        return None
    _store = entries
    return _store


def _rebuild(target_context, blob: bytes):
    """A compile result from a stored payload: the library from its bitcode (machine code
    generated here, object code kept for Numba's cache), as Numba's ``CompileResult._rebuild``."""
    import llvmlite.binding as ll
    from numba.core.compiler import CompileResult

    libdata, fndesc, env, signature, objectmode, lifted, typeann, reload_init, referenced_envs = \
        pickle.loads(zlib.decompress(blob))
    for load_callee in reload_init:  # by-symbol callees first (cardsim.simcore.linking)
        load_callee()
    name, _, bitcode = libdata
    library = target_context.codegen().create_library(name)
    library.enable_object_caching()  # so that Numba's cache can save the object code
    library._final_module = ll.parse_bitcode(bitcode)
    library._finalize_final_module()
    entry_point = target_context.get_executable(library, fndesc, env)
    cres = CompileResult(target_context=target_context, typing_context=target_context.typing_context,
                         library=library, environment=env, entry_point=entry_point, fndesc=fndesc,
                         type_annotation=typeann, signature=signature, objectmode=objectmode, lifted=lifted,
                         typing_error=None, call_helper=None, metadata=None, reload_init=reload_init,
                         referenced_envs=referenced_envs)
    for referenced in referenced_envs:
        library.codegen.set_env(referenced.env_name, referenced)
    return cres


def load(cache, sig, target_context, wrapperless: bool):
    """The compile result of a cardsim kernel that Numba's cache ``cache`` missed, rebuilt
    from the store and saved into that cache; None when the store does not hold it (or
    cannot be used). Called under Numba's compiler lock."""
    global loaded, _store, why_not
    entries = _entries()
    if not entries:
        return None
    from numba.core import sigutils

    func = cache._py_func
    if not func.__module__.startswith(KERNEL_PACKAGE):  # the digest covers this package only
        return None
    args = sigutils.normalize_signature(sig)[0]
    blob = entries.get(entry_key(func.__module__, func.__qualname__, args, wrapperless))
    if blob is None:
        return None
    from cardsim.simcore.linking import StaleCallee

    try:
        cres = _rebuild(target_context, blob)
    except StaleCallee:  # a by-symbol callee compiled otherwise: linking makes this a cache miss
        raise
    except Exception as error:  # never worse than compiling: stop using the store
        _store, why_not = None, f"a stored kernel failed to load ({func.__qualname__}: {error})"
        return None
    try:
        cache.save_overload(sig, cres)
    except Exception:  # an unwritable or full cache: this run still has its kernel
        pass
    loaded += 1
    return cres


# -- building --------------------------------------------------------------------------

def payload(cres) -> bytes:
    """A compile result as the store keeps it (Numba's cache payload, the library as bitcode)."""
    library = cres.library
    module = library._final_module
    text = str(module)
    # code for one CPU model would not run on another; x86 atomics (LLVM's own lowering of
    # an atomic decrement) run on every x86-64
    for marker in ('"target-cpu"', '"target-features"'):
        if marker in text:
            raise ValueError(f"{cres.fndesc.qualname}: its IR names a CPU ({marker})")
    for intrinsic in re.findall(r"@llvm\.x86\.[\w.]+", text):
        if not intrinsic.startswith("@llvm.x86.atomic."):
            raise ValueError(f"{cres.fndesc.qualname}: its IR calls {intrinsic}")
    fndesc = cres.fndesc
    fndesc.typemap = fndesc.calltypes = None  # as Numba's cache does: not needed, may not pickle
    data = ((library.name, "bitcode", module.as_bitcode()), fndesc, cres.environment, cres.signature,
            cres.objectmode, cres.lifted, str(cres.type_annotation), cres.reload_init,
            tuple(cres._find_referenced_environments()))
    return zlib.compress(pickle.dumps(data, protocol=4), 6)


def storable(cres) -> bool:
    """Whether a compile result can be stored as Numba's cache would store it: nopython
    code compiled in this process (its IR at hand), no lifted loops, and no addresses of
    this process baked in (Numba's "dynamic globals": large or non-contiguous constant
    arrays)."""
    library = cres.library
    if cres.objectmode or cres.lifted or library.has_dynamic_globals:
        return False
    try:
        func = library._final_module.get_function(cres.fndesc.llvm_func_name)
    except NameError:  # a library loaded from a cache has no IR
        return False
    return not func.is_declaration


def collect(entries: dict) -> int:
    """Add every cardsim kernel compiled in this process (disk-cached dispatchers only) to
    ``entries``; returns how many were new."""
    import gc

    from numba.core import caching
    from numba.core.registry import CPUDispatcher

    from cardsim.simcore.dispatch import has_python_wrapper

    new = 0
    for disp in gc.get_objects():
        if not (isinstance(disp, CPUDispatcher) and disp.py_func.__module__.startswith(KERNEL_PACKAGE)
                and isinstance(disp._cache, caching.Cache)):
            continue
        for args, cres in list(disp.overloads.items()):
            if not storable(cres):
                continue
            key = entry_key(disp.py_func.__module__, disp.py_func.__qualname__, args, not has_python_wrapper(cres))
            if key not in entries:
                entries[key] = payload(cres)
                new += 1
    return new


def store_commands(game: str, out: str) -> list[list[str]]:
    """The commands whose kernels a game's store entries cover: those of its compile plans,
    and the same with a written output (into folder ``out``)."""
    from cardsim.simcore.compile_plan import recorded_commands

    commands = [argv for _, argv in recorded_commands(game)]
    commands += [["deal", game, "--deals", "2000", "--seed", "1", "--quiet", "--threads", "1",
                  "--out", f"{out}/deal"],
                 ["play", game, "--games", "4", "--seed", "1", "--quiet", "--threads", "1", "--out", f"{out}/play"]]
    return commands


def _dump(out: str, game: str) -> None:
    """Run ``game``'s store commands in this process with Numba's disk cache off (every
    kernel is compiled here and keeps its IR) and pickle the collected entries to ``out``."""
    from numba.core import caching

    import cardsim.simcore.linking  # noqa: F401  (cardsim's Numba patches first)
    from cardsim.cli.main import main as cardsim

    caching.Cache.load_overload = lambda self, sig, target_context: None
    caching.Cache.save_overload = lambda self, sig, data: None
    entries: dict = {}
    with tempfile.TemporaryDirectory(prefix="cardsim-store-") as runs:
        for argv in store_commands(game, runs):
            try:
                cardsim(argv)
            except SystemExit as stop:
                if stop.code not in (0, None):
                    raise
            collect(entries)  # after each command: a later one may replace an overload (wrappers)
    with open(out, "wb") as f:
        pickle.dump(entries, f, protocol=4)


def _untracked_sources() -> list[str]:
    """``.py`` files under the kernel package that git does not track (none outside a checkout)."""
    import subprocess

    try:
        out = subprocess.run(["git", "ls-files", "--others", "--exclude-standard", "--", "*.py"], cwd=_SOURCES,
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return []
    return out.stdout.split() if out.returncode == 0 else []


def build(games: list[str] | None = None, jobs: int = 2) -> dict:
    """Compile every game's store commands (one process per game, ``jobs`` at once) and write
    the store; returns its metadata."""
    import subprocess

    from cardsim.simcore.registry import game_names

    games = list(games or game_names())
    untracked = _untracked_sources()
    if untracked:  # a clone would not have them: its digest would differ
        raise SystemExit(f"untracked sources under simcore/ ({', '.join(untracked)}): add or remove them first")
    tmp = Path(tempfile.mkdtemp(prefix="cardsim-store-"))
    # Numba's and cardsim's compile switches at their defaults: the store is what a plain run compiles
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "CARDSIM_"))}
    env.update(CARDSIM_PARALLEL_COMPILE="0", **{ENV_SWITCH: "0"})
    running: list[tuple[str, subprocess.Popen]] = []
    pending = list(games)
    while pending or running:
        while pending and len(running) < jobs:
            game = pending.pop(0)
            cmd = [sys.executable, "-m", "cardsim.simcore.kernel_store", "_dump", str(tmp / f"{game}.pkl"), game]
            running.append((game, subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL)))
        game, proc = running.pop(0)
        if proc.wait() != 0:
            raise SystemExit(f"building the {game} kernels failed (exit {proc.returncode})")
        print(f"{game}: compiled", file=sys.stderr)
    entries: dict = {}
    for game in games:
        with open(tmp / f"{game}.pkl", "rb") as f:
            for key, blob in pickle.load(f).items():
                entries.setdefault(key, blob)  # the same kernel from two games: either copy
    shutil.rmtree(tmp, ignore_errors=True)
    meta = dict(environment(), sources=source_digest())
    STORE_FILE.parent.mkdir(exist_ok=True)
    part = STORE_FILE.with_suffix(".part")
    with open(part, "wb") as f:
        pickle.dump({"meta": meta, "entries": entries}, f, protocol=4)
    os.replace(part, STORE_FILE)
    return dict(meta, kernels=len(entries), bytes=STORE_FILE.stat().st_size)


def in_use() -> bool:
    """Whether this process rebuilds kernels its cache misses from the store."""
    return _entries() is not None


def status() -> str:
    """One line: whether this process can use the store, and why not."""
    entries = _entries()
    if entries is None:
        return f"kernel store not used: {why_not}"
    return f"kernel store in use: {len(entries)} kernels ({store_file()})"


_CHECK = r"""
import json, sys, time
from numba.core import event
from cardsim.cli.main import main
from cardsim.simcore import kernel_store

compiled = []


class Compiles(event.Listener):
    def on_start(self, ev):
        func = ev.data["dispatcher"].py_func
        if func.__module__.startswith("cardsim."):
            compiled.append(func.__module__ + "." + func.__qualname__)

    def on_end(self, ev):
        pass


event.register("numba:compile", Compiles())
start = time.perf_counter()
code = main(sys.argv[1:])
print(json.dumps({"code": code, "seconds": time.perf_counter() - start, "compiled": compiled,
                  "loaded": kernel_store.loaded, "status": kernel_store.status()}), file=sys.stderr)
"""


def check(argv: list[str], store: bool = True, cache: str | None = None, env: dict | None = None) -> dict:
    """Run ``cardsim ARGV`` in a new process on Numba cache folder ``cache`` (default: a new,
    empty one; one process, no compile helper; the store on unless ``store`` is False,
    ``env``: more environment) and report what it compiled and what it loaded from the
    store: ``{"code", "seconds", "compiled": [kernel, ...], "loaded", "status", "stdout"}``."""
    import json
    import subprocess

    with tempfile.TemporaryDirectory() as tmp:
        folder = cache or tmp + "/numba"
        env = {**os.environ, "NUMBA_CACHE_DIR": folder, "CARDSIM_CACHE_DIR": folder + "-cardsim",
               "CARDSIM_PARALLEL_COMPILE": "0", ENV_SWITCH: "1" if store else "0", **(env or {})}
        proc = subprocess.run([sys.executable, "-c", _CHECK, *argv], env=env, capture_output=True, text=True,
                              cwd=tmp, timeout=600)
    lines = proc.stderr.strip().splitlines()
    try:
        return dict(json.loads(lines[-1]), stdout=proc.stdout)
    except (IndexError, ValueError):
        raise SystemExit(f"cardsim {' '.join(argv)} failed: {proc.stderr.strip()[-2000:]}") from None


def _main(argv: list[str]) -> None:
    if argv[:1] == ["check"]:
        report = check(argv[1:])
        print(f"{report['status']}\nexit {report['code']} in {report['seconds']:.1f} s; "
              f"{report['loaded']} kernels from the store, {len(report['compiled'])} compiled"
              + "".join(f"\n  compiled {name}" for name in report["compiled"]))
    elif argv[:1] == ["build"]:
        meta = build(argv[1:] or None)
        print(f"{STORE_FILE}: {meta['kernels']} kernels, {meta['bytes'] / 1e6:.1f} MB, "
              f"numba {meta['numba']}, python {meta['python']}")
    elif argv[:1] == ["_dump"]:
        _dump(argv[1], argv[2])
    elif argv[:1] == ["status"]:
        print(status())
    else:
        raise SystemExit("usage: python -m cardsim.simcore.kernel_store build [GAME ...] | status"
                         " | check CARDSIM-ARGS...")


if __name__ == "__main__":
    _main(sys.argv[1:])
