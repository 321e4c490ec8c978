"""Compile plans: a first run compiles its kernels in two processes at once.

Numba compiles one function at a time under a global lock, so a cold first run uses one
core. A *compile plan* is the list of kernels a command compiled on its first run (each
with its argument types, its caller and the CPU seconds it took), recorded once by
``python -m cardsim.simcore.compile_plan record`` and shipped with the package. On a cold
cache the command splits the plan's independent subtrees into two halves of equal
compile time: a helper process compiles one half into Numba's on-disk cache while the
command compiles the other, waits for the helper, then runs; its own kernels then load
the helper's half from the cache instead of compiling it.

Nothing here changes what runs: a plan only decides *when* and *where* a kernel is
compiled. A stale plan (a kernel renamed, a signature changed) costs only the wasted
compile; entries that no longer resolve are skipped. ``CARDSIM_PARALLEL_COMPILE=0``
turns the helper off (the test suite does).
"""
from __future__ import annotations

import importlib
import os
import pickle
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

PLAN_DIR = Path(__file__).with_name("compile_plans")
ENV_SWITCH = "CARDSIM_PARALLEL_COMPILE"
#: Another folder of plans (tests).
ENV_PLANS = "CARDSIM_COMPILE_PLANS"
#: Seconds a helper process needs before it compiles (interpreter, numba and cardsim imports).
HELPER_START_S = 1.5


@dataclass(frozen=True)
class Entry:
    """One compilation of a recorded first run.

    ``module``/``qualname`` name the dispatcher, ``args`` are its Numba argument types,
    ``parent`` the index of the calling entry (-1 for a kernel called from Python) and
    ``seconds`` the CPU seconds it took, callees included.
    """

    module: str
    qualname: str
    args: tuple
    parent: int
    seconds: float


def games() -> list[str]:
    """The registered games (each has its plans)."""
    from cardsim.simcore.registry import game_names

    return list(game_names())


def recorded_commands(game: str) -> list[tuple[str, list[str]]]:
    """The commands whose plans are recorded, as ``(plan key, cardsim arguments)``; the keys
    are those of :func:`cardsim.cli.runs.plan_key`."""
    return [
        (f"{game}-deal", ["deal", game, "--deals", "20000", "--seed", "1", "--quiet", "--threads", "1"]),
        (f"{game}-play", ["play", game, "--games", "20", "--seed", "1", "--quiet", "--threads", "1"]),
        (f"{game}-play-search", ["play", game, "--games", "2", "--seed", "1", "--quiet", "--threads", "1",
                                 "--policy", "0=search:4"]),
        (f"{game}-replay", ["replay", game, "--seed", "1", "--index", "0"]),
    ]


def plan_path(key: str) -> Path:
    return Path(os.environ.get(ENV_PLANS) or PLAN_DIR) / f"{key}.pkl"


# -- recording -------------------------------------------------------------------------

def _recorder():
    """A Numba compile-event listener that keeps every compilation (dicts of :class:`Entry` fields)."""
    from numba.core import event

    class Recorder(event.Listener):
        def __init__(self) -> None:
            self.stack: list[list] = []
            self.entries: list[dict] = []

        def on_start(self, ev) -> None:
            fn = ev.data["dispatcher"].py_func
            parent = self.stack[-1][0] if self.stack else -1
            self.stack.append([len(self.entries), time.process_time()])
            self.entries.append(dict(module=fn.__module__, qualname=fn.__qualname__, args=tuple(ev.data["args"]),
                                     parent=parent, seconds=0.0))

        def on_end(self, ev) -> None:
            index, start = self.stack.pop()
            self.entries[index]["seconds"] = time.process_time() - start

    return Recorder()


def record(key: str, argv: list[str]) -> list[Entry]:
    """Run ``cardsim ARGV`` in this process (its cache must be empty) and save its compile plan as ``key``."""
    from numba.core import event

    from cardsim.cli.main import main as cardsim

    os.environ[ENV_SWITCH] = "0"  # record what the command compiles itself
    recorder = listener = _recorder()
    event.register("numba:compile", listener)
    try:
        cardsim(argv)
    except SystemExit as stop:
        if stop.code not in (0, None):
            raise
    finally:
        event.unregister("numba:compile", listener)
    # keep cardsim's own kernels; numba's internal overloads fold into their callers
    keep = [i for i, e in enumerate(recorder.entries) if e["module"].startswith("cardsim.") and _resolves(e)]
    new_index = {old: new for new, old in enumerate(keep)}
    entries = []
    for old in keep:
        e = dict(recorder.entries[old])
        parent = e["parent"]
        while parent >= 0 and parent not in new_index:
            parent = recorder.entries[parent]["parent"]
        e["parent"] = new_index.get(parent, -1)
        entries.append(Entry(**e))
    save(key, entries)
    return entries


def save(key: str, entries: list[Entry]) -> None:
    """Write plan ``key`` (a pickle of plain dicts: readable whatever module defines :class:`Entry`)."""
    plan_path(key).parent.mkdir(exist_ok=True)
    with open(plan_path(key), "wb") as f:
        pickle.dump([vars(e) for e in entries], f, protocol=4)


def load(key: str) -> list[Entry] | None:
    """The plan ``key``, or None when there is none or it cannot be read (another Numba version)."""
    try:
        with open(plan_path(key), "rb") as f:
            return [Entry(**fields) for fields in pickle.load(f)]
    except Exception:  # a missing or unreadable plan only means no parallel compile
        return None


# -- splitting -------------------------------------------------------------------------

def own_seconds(entries: list[Entry]) -> list[float]:
    """Each entry's own seconds: its compile time minus its callees'."""
    own = [e.seconds for e in entries]
    for e in entries:
        if e.parent >= 0:
            own[e.parent] -= e.seconds
    return own


def split(entries: list[Entry]) -> tuple[list[int], list[int], list[int]]:
    """Split a plan into ``(mine, helper's, serial)`` entry indices.

    A kernel compiles after its callees, so a subtree's own time (the kernel minus its
    callees) comes after its callees' time. Starting from the kernels Python calls, the
    most expensive subtree is opened up (its kernel becomes *serial*: the command compiles
    it at the end, itself, loading its callees from the cache) while that shortens the
    estimated first run: the serial seconds plus the longer of two halves of the open
    subtrees (dealt largest first, the helper's half charged its start-up time).
    """
    children: dict[int, list[int]] = {}
    for i, e in enumerate(entries):
        children.setdefault(e.parent, []).append(i)
    own = own_seconds(entries)

    def deal(frontier: list[int]) -> tuple[list[int], list[int], float]:
        mine: list[int] = []
        helper: list[int] = []
        load_mine, load_helper = 0.0, HELPER_START_S
        for i in sorted(frontier, key=lambda k: -entries[k].seconds):
            if load_helper <= load_mine:
                helper.append(i)
                load_helper += entries[i].seconds
            else:
                mine.append(i)
                load_mine += entries[i].seconds
        return mine, helper, max(load_mine, load_helper)

    frontier = list(children.get(-1, []))
    serial: list[int] = []
    best = (deal(frontier)[2], list(frontier), [])
    while frontier:  # open the biggest subtree until its kernel has no callees; keep the best state
        big = max(frontier, key=lambda k: entries[k].seconds)
        if big not in children:
            break
        frontier = [k for k in frontier if k != big] + children[big]
        serial.append(big)
        cost = sum(own[k] for k in serial) + deal(frontier)[2]
        if cost < best[0]:
            best = (cost, list(frontier), list(serial))
    mine, helper, _ = deal(best[1])
    return mine, helper, best[2]


# -- compiling -------------------------------------------------------------------------

def _dispatcher(entry: Entry):
    """The Numba dispatcher an entry names (its module's attribute)."""
    obj = importlib.import_module(entry.module)
    for part in entry.qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _resolves(fields: dict) -> bool:
    """Whether a recorded compilation is of a module-level kernel (not a parfor body or a closure)."""
    try:
        return hasattr(_dispatcher(Entry(**fields)), "compile")
    except Exception:
        return False


def compile_entries(entries: list[Entry], indices: list[int]) -> int:
    """Compile the given entries (each with its callees) into Numba's cache; returns how many compiled.
    An entry that no longer resolves or compiles (a stale plan) is skipped."""
    from cardsim.simcore import dispatch

    done = 0
    for i in indices:
        try:
            kernel = _dispatcher(entries[i])
            if entries[i].parent >= 0:  # called by another kernel: compiled as that call would
                dispatch.compile_as_callee(kernel, entries[i].args)
            else:
                kernel.compile(entries[i].args)
                dispatch.ensure_python_wrapper(kernel, entries[i].args)
            done += 1
        except Exception:  # stale plan: the command compiles what it needs itself
            pass
    return done


def _is_cold(entries: list[Entry], indices: list[int]) -> bool:
    """Whether none of the first few of these kernels is in Numba's cache for its recorded
    signature (reads the cache indexes only, loads nothing)."""
    from numba.core.registry import cpu_target

    codegen = cpu_target.target_context.codegen()
    for i in indices[:3]:
        try:
            cache = _dispatcher(entries[i])._cache
            if cache._index_key(entries[i].args, codegen) in cache._cache_file._load_index():
                return False
        except Exception:  # not a cached kernel, or numba's cache internals changed: do nothing
            return False
    return True


def enabled() -> bool:
    return os.environ.get(ENV_SWITCH, "1") not in ("0", "off", "false", "no")


def prepare(key: str) -> float:
    """Before a command's first kernel call: when the cache is cold and a plan ``key``
    exists, compile the plan's subtrees in this process and a helper process at once.
    Returns the seconds spent (0.0 when nothing was done)."""
    if not enabled():
        return 0.0
    entries = load(key)
    if not entries:
        return 0.0
    mine, helper, spine = split(entries)
    if not helper or not _is_cold(entries, helper + mine):
        return 0.0
    return _compile_in_two(key, entries, mine, helper)


def compile_ahead(key: str) -> tuple[bool, int]:
    """Compile every kernel of plan ``key`` into Numba's cache now, as its command's first
    run would (two processes at once when the cache is cold), so that the command's first
    run loads them instead. Returns ``(was_cold, kernels)``: whether anything needed
    compiling and how many kernels the plan names (0: no plan)."""
    entries = load(key)
    if not entries:
        return False, 0
    roots = [i for i, e in enumerate(entries) if e.parent < 0]
    cold = any(_is_cold(entries, [i]) for i in roots)
    if cold and enabled():
        # only the subtrees still missing: an earlier plan (another task of the game) may
        # have compiled some of them already
        mine, helper, _ = split(entries)
        mine = [i for i in mine if _is_cold(entries, [i])]
        helper = [i for i in helper if _is_cold(entries, [i])]
        if helper:
            _compile_in_two(key, entries, mine, helper)
    compile_entries(entries, roots)  # the serial kernels; the rest load from the cache
    return cold, len(entries)


def _compile_in_two(key: str, entries: list[Entry], mine: list[int], helper: list[int]) -> float:
    """Compile ``helper`` (entry indices of plan ``key``) in a helper process while this
    process compiles ``mine``; wait for the helper. Returns the seconds spent."""
    start = time.perf_counter()
    env = dict(os.environ, **{ENV_SWITCH: "0"})
    proc = subprocess.Popen([sys.executable, "-m", "cardsim.simcore.compile_plan", "compile", key,
                             ",".join(map(str, helper))], env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        compile_entries(entries, mine)
        # a helper that hangs must not hang the command: past twice its recorded time, the
        # command compiles the rest itself
        proc.wait(timeout=30 + 2 * sum(entries[i].seconds for i in helper))
    except subprocess.TimeoutExpired:
        pass
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return time.perf_counter() - start


def _path(entries: list[Entry], i: int) -> list[int]:
    """Entry ``i``'s ancestors from the root, for printing a plan as a tree."""
    path = [i]
    while entries[path[-1]].parent >= 0:
        path.append(entries[path[-1]].parent)
    return path[::-1]


def _main(argv: list[str]) -> None:
    if argv[:1] == ["compile"]:
        key, indices = argv[1], argv[2]
        entries = load(key) or []
        compile_entries(entries, [int(i) for i in indices.split(",") if i])
    elif argv[:1] == ["record"]:
        key = argv[1]
        entries = record(key, argv[2:])
        mine, helper, serial = split(entries)
        sec = lambda ix: sum(entries[i].seconds for i in ix)  # noqa: E731
        print(f"{key}: {len(entries)} kernels, {sec([i for i, e in enumerate(entries) if e.parent < 0]):.1f} s; "
              f"mine {sec(mine):.1f} s, helper {sec(helper):.1f} s, serial {len(serial)} kernels", file=sys.stderr)
    elif argv[:1] == ["show"]:
        entries = load(argv[1]) or []
        mine, helper, serial = split(entries)
        where = {**{i: "mine" for i in mine}, **{i: "helper" for i in helper}, **{i: "serial" for i in serial}}
        own = own_seconds(entries)
        depth = [0] * len(entries)
        for i, e in enumerate(entries):
            depth[i] = depth[e.parent] + 1 if e.parent >= 0 else 0
        halves = (sum(entries[i].seconds for i in mine), HELPER_START_S + sum(entries[i].seconds for i in helper))
        print(f"{argv[1]}: {sum(e.seconds for e in entries if e.parent < 0):.1f} s recorded; serial "
              f"{sum(own[i] for i in serial):.1f} s + halves {halves[0]:.1f} s (mine) / {halves[1]:.1f} s (helper, "
              f"start-up included): about {sum(own[i] for i in serial) + max(halves):.1f} s on two cores")
        for i in sorted(range(len(entries)), key=lambda i: (_path(entries, i))):
            if entries[i].seconds >= 0.2 or i in where:
                print(f"{'  ' * depth[i]}{entries[i].qualname}  incl {entries[i].seconds:.2f}  self {own[i]:.2f}"
                      f"  {where.get(i, '')}")
    elif argv[:1] == ["record-all"]:
        # each command in a fresh process with an empty cache: python -m cardsim.simcore.compile_plan record-all [GAME...]
        import tempfile

        for game in argv[1:] or games():
            for key, args in recorded_commands(game):
                with tempfile.TemporaryDirectory() as cache:
                    env = dict(os.environ, NUMBA_CACHE_DIR=cache, CARDSIM_CACHE_DIR=cache + "-exact", **{ENV_SWITCH: "0"})
                    subprocess.run([sys.executable, "-m", "cardsim.simcore.compile_plan", "record", key, *args],
                                   env=env, check=True, stdout=subprocess.DEVNULL)
    else:
        raise SystemExit("usage: python -m cardsim.simcore.compile_plan record KEY CARDSIM-ARGS... | record-all [GAME...] | show KEY | compile KEY I,J,...")


if __name__ == "__main__":
    _main(sys.argv[1:])
