"""Compile plans: a first run compiles its kernels in two processes at once.

Numba compiles one function at a time under a global lock, so a cold first run uses one
core. A *compile plan* is the list of kernels a command compiled on its first run (each
with its argument types, its caller, every kernel it calls and the CPU seconds it took),
recorded once by ``python -m cardsim.simcore.compile_plan record`` and shipped with the
package. On a cold cache the command and a helper process share the plan's kernels:
each takes, in turn, a kernel whose callees are all compiled (the one with the longest
chain of callers above it first), claims it with a file in a shared folder, compiles it
into Numba's on-disk cache and marks it done; the callees it needs load from the cache,
whichever process compiled them. A kernel is compiled once, in one process, and callees
shared by several callers wait for neither. The command then runs, loading its kernels.

Nothing here changes what runs: a plan only decides *when* and *where* a kernel is
compiled. A stale plan (a kernel renamed, a signature changed) costs only the wasted
compile; entries that no longer resolve are skipped. ``CARDSIM_PARALLEL_COMPILE=0``
turns the helper off (the test suite does).
"""
from __future__ import annotations

import importlib
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

PLAN_DIR = Path(__file__).with_name("compile_plans")
ENV_SWITCH = "CARDSIM_PARALLEL_COMPILE"
#: Another folder of plans (tests).
ENV_PLANS = "CARDSIM_COMPILE_PLANS"
#: Seconds a helper process needs before it compiles (interpreter, numba and cardsim imports).
HELPER_START_S = 1.5
#: A file to append ``pid start end kernel`` lines to, one per kernel compiled (timing a first run).
_TRACE = os.environ.get("CARDSIM_COMPILE_TRACE")


@dataclass(frozen=True)
class Entry:
    """One compilation of a recorded first run.

    ``module``/``qualname`` name the dispatcher, ``args`` are its Numba argument types,
    ``parent`` the index of the entry whose compilation compiled it (-1 for a kernel
    called from Python), ``seconds`` the CPU seconds it took, callees included, and
    ``calls`` the indices of every kernel it calls (also those compiled earlier for
    another caller).
    """

    module: str
    qualname: str
    args: tuple
    parent: int
    seconds: float
    calls: tuple = ()


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
        (f"{game}-play-random", ["play", game, "--games", "20", "--seed", "1", "--quiet", "--threads", "1",
                                 "--policy", "1=random"]),
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
            self.edges: set[tuple] = set()  # (caller entry, callee module, qualname, args)

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

    from numba.core import dispatcher, sigutils

    os.environ[ENV_SWITCH] = "0"  # record what the command compiles itself
    recorder = listener = _recorder()
    compile_kernel = dispatcher.Dispatcher.compile

    def compile_and_note_the_call(disp, sig):
        # typing a call compiles (or finds) the callee: every call, also to kernels compiled before
        if recorder.stack and getattr(disp.py_func, "__module__", "").startswith("cardsim."):
            args = tuple(sigutils.normalize_signature(sig)[0])
            recorder.edges.add((recorder.stack[-1][0], disp.py_func.__module__, disp.py_func.__qualname__, args))
        return compile_kernel(disp, sig)

    event.register("numba:compile", listener)
    dispatcher.Dispatcher.compile = compile_and_note_the_call
    try:
        cardsim(argv)
    except SystemExit as stop:
        if stop.code not in (0, None):
            raise
    finally:
        event.unregister("numba:compile", listener)
        dispatcher.Dispatcher.compile = compile_kernel
    # keep cardsim's own kernels; numba's internal overloads fold into their callers
    keep = [i for i, e in enumerate(recorder.entries) if e["module"].startswith("cardsim.") and _resolves(e)]
    new_index = {old: new for new, old in enumerate(keep)}

    def kept(old: int) -> int:  # the nearest kept entry at or above ``old`` (-1: none)
        while old >= 0 and old not in new_index:
            old = recorder.entries[old]["parent"]
        return new_index.get(old, -1)

    where = {}
    for old in keep:
        e = recorder.entries[old]
        where.setdefault((e["module"], e["qualname"], e["args"]), new_index[old])
    calls: dict[int, set[int]] = {}
    for caller, *callee in recorder.edges:
        i, j = kept(caller), where.get(tuple(callee), -1)
        if i >= 0 and j >= 0 and i != j:
            calls.setdefault(i, set()).add(j)
    entries = []
    for old in keep:
        e = dict(recorder.entries[old], parent=kept(recorder.entries[old]["parent"]))
        entries.append(Entry(**e, calls=tuple(sorted(calls.get(new_index[old], ())))))
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


# -- scheduling ------------------------------------------------------------------------

def own_seconds(entries: list[Entry]) -> list[float]:
    """Each entry's own seconds: its compile time minus its callees'."""
    own = [e.seconds for e in entries]
    for e in entries:
        if e.parent >= 0:
            own[e.parent] -= e.seconds
    return own


def callees(entries: list[Entry]) -> list[set[int]]:
    """Every entry's callees: those it calls, and those its compilation compiled."""
    deps = [set(e.calls) for e in entries]
    for i, e in enumerate(entries):
        if e.parent >= 0:
            deps[e.parent].add(i)
    for i, d in enumerate(deps):
        d.discard(i)
    return deps


def ranks(entries: list[Entry]) -> list[float]:
    """Each entry's own seconds plus the longest chain of its callers' own seconds up to a
    kernel Python calls: how long the first run waits after this kernel starts compiling.
    Compiling the highest rank first shortens the run (list scheduling on the critical path)."""
    own = own_seconds(entries)
    callers: list[set[int]] = [set() for _ in entries]
    for i, d in enumerate(callees(entries)):
        for j in d:
            callers[j].add(i)
    rank: dict[int, float] = {}

    def visit(i: int, seen: frozenset) -> float:  # memoised; a recursive call (a cycle) counts once
        if i not in rank:
            rank[i] = own[i] + max((visit(c, seen | {i}) for c in callers[i] if c not in seen | {i}), default=0.0)
        return rank[i]

    return [visit(i, frozenset()) for i in range(len(entries))]


def simulate(entries: list[Entry], todo: list[int] | None = None, workers: int = 2,
             start_delay: float = 0.0) -> float:
    """The seconds ``workers`` processes take to compile ``todo`` (default: every entry)
    the way :func:`compile_shared` schedules them, from the recorded own seconds; every
    worker but the first starts ``start_delay`` seconds late."""
    todo = set(range(len(entries)) if todo is None else todo)
    own, rank, deps = own_seconds(entries), ranks(entries), callees(entries)
    free = [0.0] + [start_delay] * (workers - 1)  # when each worker is free next
    finish: dict[int, float] = {}
    left = set(todo)
    while left:
        w = min(range(workers), key=lambda k: free[k])
        ready = [i for i in left if all(d in finish and finish[d] <= free[w] for d in deps[i] & todo)]
        if not ready:
            later = [t for t in finish.values() if t > free[w]]
            if later:  # wait for the next kernel another worker finishes
                free[w] = min(later)
                continue
            ready = list(left)  # calls in a cycle (recursion): compile anyway
        i = max(ready, key=lambda k: rank[k])
        left.discard(i)
        free[w] += max(own[i], 0.0)
        finish[i] = free[w]
    return max(free)


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


def _compile_one(entry: Entry) -> bool:
    """Compile (or load) one entry into Numba's cache as its command would; False when it
    no longer resolves or compiles (a stale plan: the command compiles what it needs)."""
    from cardsim.simcore import dispatch

    try:
        kernel = _dispatcher(entry)
        if entry.parent >= 0:  # called by another kernel: compiled as that call would
            dispatch.compile_as_callee(kernel, entry.args)
        else:
            kernel.compile(entry.args)
            dispatch.ensure_python_wrapper(kernel, entry.args)
        return True
    except Exception:
        return False


def compile_entries(entries: list[Entry], indices: list[int]) -> int:
    """Compile the given entries (each with its callees) in this process, in order, into
    Numba's cache; returns how many compiled. Stale entries are skipped."""
    return sum(_compile_one(entries[i]) for i in indices)


def _is_cold(entries: list[Entry], i: int) -> bool:
    """Whether kernel ``i`` is not in Numba's cache for its recorded signature (reads the
    cache index only, loads nothing)."""
    from numba.core.registry import cpu_target

    try:
        cache = _dispatcher(entries[i])._cache
        return cache._index_key(entries[i].args, cpu_target.target_context.codegen()) \
            not in cache._cache_file._load_index()
    except Exception:  # not a cached kernel, or numba's cache internals changed: do nothing
        return False


def enabled() -> bool:
    return os.environ.get(ENV_SWITCH, "1") not in ("0", "off", "false", "no")


def _work(entries: list[Entry], todo: list[int], folder: Path, other_alive=lambda: False,
          deadline: float = float("inf"), stop_alone: bool = False, idle=None, progress=None) -> int:
    """Compile this process's share of ``todo``: repeatedly claim (a file in ``folder``) a
    kernel whose callees are all done, highest rank first, compile it, mark it done.
    ``other_alive()`` says whether the other worker still runs: once it has exited, its
    unfinished claims are not waited for. The helper (``stop_alone``) stops when nothing is
    left to claim or its command is gone; the command returns only when every kernel is
    done, and does ``idle()`` (if given) the first time it waits for the other worker.
    ``progress(done, total)`` (if given) hears of every kernel either worker finishes.
    Returns how many kernels this process compiled."""
    rank, deps = ranks(entries), callees(entries)
    todo_set = set(todo)
    deps = {i: deps[i] & todo_set for i in todo}
    done: set[int] = set()
    claimed: set[int] = set()
    mine = 0

    def wait() -> None:
        nonlocal idle
        if idle is not None:
            idle, todo_now = None, idle
            todo_now()
        else:
            time.sleep(0.01)

    while time.monotonic() < deadline:
        if not folder.is_dir():  # the command is done with every kernel and removed it
            break
        before = len(done)
        for i in todo_set - done:
            if (folder / f"done-{i}").exists():
                done.add(i)
        if progress is not None and len(done) != before:
            progress(len(done), len(todo_set))
        for i in todo_set - claimed:
            if (folder / f"claim-{i}").exists():
                claimed.add(i)
        free = sorted(todo_set - claimed, key=lambda k: -rank[k])
        alive = other_alive()
        if not free:
            if stop_alone or not alive or todo_set <= done:
                break
            wait()  # the other worker compiles the last kernels
            continue
        if stop_alone and not alive:
            break
        ready = [i for i in free if deps[i] <= done]
        if not ready:
            if alive and claimed - done:  # wait for a callee the other worker is compiling
                wait()
                continue
            # the other worker is gone, or the kernels left call each other (recursion):
            # compile them anyway, callees first as needed
            ready = free
        i = ready[0]
        try:
            os.close(os.open(folder / f"claim-{i}", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            continue
        except FileNotFoundError:  # the folder is gone: the command has every kernel
            break
        claimed.add(i)
        began = time.perf_counter()
        mine += _compile_one(entries[i])
        if _TRACE:
            with open(_TRACE, "a") as trace:
                trace.write(f"{os.getpid()} {began:.2f} {time.perf_counter():.2f} {entries[i].qualname}\n")
        (folder / f"done-{i}").touch()
        done.add(i)
        if progress is not None:
            progress(len(done), len(todo_set))
    return mine


def _budget(entries: list[Entry], todo: list[int]) -> float:
    """Seconds a worker may spend on ``todo``: twice the recorded time plus 30 s. Past it a
    command compiles the rest itself, so a hung helper cannot hang it."""
    own = own_seconds(entries)
    return 30 + 2 * sum(max(own[i], 0.0) for i in todo)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (the helper's view of the command)."""
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return os.getppid() == pid  # re-parented: the command is gone


def _all_done(folder: Path, todo: list[int]) -> bool:
    return all((folder / f"done-{i}").exists() for i in todo)


def cold_entries(entries: list[Entry]) -> list[int]:
    """The entries not in Numba's cache yet."""
    return [i for i in range(len(entries)) if _is_cold(entries, i)]


def compile_shared(key: str, entries: list[Entry], todo: list[int], helper: bool = True, idle=None,
                   progress=None) -> float:
    """Compile ``todo`` (entry indices of plan ``key``) into Numba's cache, sharing the work
    with a helper process when ``helper``; ``idle()``: work to do while waiting for the
    helper's last kernels; ``progress(done, total)``: told of each kernel finished (and
    ``(0, total)`` first). Returns the seconds spent."""
    start = time.perf_counter()
    if progress is not None:
        progress(0, len(todo))
    try:
        folder = Path(tempfile.mkdtemp(prefix="cardsim-compile-"))
    except OSError:  # no writable temporary folder: compile here alone, each kernel with its callees
        compile_entries(entries, [i for i in todo if entries[i].parent < 0])
        return time.perf_counter() - start
    proc = None
    try:
        if helper:
            env = dict(os.environ, **{ENV_SWITCH: "0"})
            proc = subprocess.Popen([sys.executable, "-m", "cardsim.simcore.compile_plan", "work", key, str(folder),
                                     ",".join(map(str, todo))], env=env, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        alive = (lambda: proc.poll() is None) if proc is not None else (lambda: False)
        deadline = time.monotonic() + _budget(entries, todo)
        # returns once every kernel is done: the helper then exits on its own, unwaited
        _work(entries, todo, folder, other_alive=alive, deadline=deadline, idle=idle, progress=progress)
    finally:
        if proc is not None and proc.poll() is None and not _all_done(folder, todo):
            proc.kill()  # past the deadline, or interrupted
            proc.wait()
        shutil.rmtree(folder, ignore_errors=True)
    return time.perf_counter() - start


def prepare(key: str, idle=None, progress=None) -> float:
    """Before a command's first kernel call: when plan ``key`` exists and its kernels are
    not cached, compile them in this process and a helper process at once (``idle()``: the
    command's own work to do while it waits for the helper; ``progress(done, total)``: told
    of each kernel compiled). Returns the seconds spent (0.0 when nothing was done)."""
    if not enabled():
        return 0.0
    entries = load(key)
    if not entries:
        return 0.0
    roots = [i for i, e in enumerate(entries) if e.parent < 0]
    # warm when every kernel called from Python is cached (compiling one compiles its
    # callees); one cached root is not enough: another command (deal before play) may
    # have compiled a root the two share, and the rest of this plan is still cold
    if not any(_is_cold(entries, i) for i in roots):
        return 0.0
    todo = cold_entries(entries)
    own = own_seconds(entries)
    if sum(own[i] for i in todo) < 2 * HELPER_START_S:  # not worth a second process
        return 0.0
    return compile_shared(key, entries, todo, idle=idle, progress=progress)


def compile_ahead(key: str, progress=None) -> tuple[bool, int]:
    """Compile every kernel of plan ``key`` into Numba's cache now, as its command's first
    run would (two processes at once unless switched off), so that the command's first
    run loads them instead. Returns ``(was_cold, kernels)``: whether anything needed
    compiling and how many kernels the plan names (0: no plan)."""
    entries = load(key)
    if not entries:
        return False, 0
    todo = cold_entries(entries)  # an earlier plan (another task of the game) may have compiled some
    if todo:
        compile_shared(key, entries, todo, helper=enabled() and len(todo) > 1, progress=progress)
    return bool(todo), len(entries)


def _path(entries: list[Entry], i: int) -> list[int]:
    """Entry ``i``'s ancestors from the root, for printing a plan as a tree."""
    path = [i]
    while entries[path[-1]].parent >= 0:
        path.append(entries[path[-1]].parent)
    return path[::-1]


def _main(argv: list[str]) -> None:
    if argv[:1] == ["work"]:  # the helper process of compile_shared
        key, folder, indices = argv[1], Path(argv[2]), argv[3]
        entries = load(key) or []
        todo = [int(i) for i in indices.split(",") if i]
        parent = os.getppid()
        _work(entries, todo, folder, other_alive=lambda: _alive(parent),
              deadline=time.monotonic() + _budget(entries, todo), stop_alone=True)
    elif argv[:1] == ["record"]:
        key = argv[1]
        entries = record(key, argv[2:])
        print(f"{key}: {len(entries)} kernels, {sum(e.seconds for e in entries if e.parent < 0):.1f} s in one "
              f"process; about {simulate(entries, start_delay=HELPER_START_S):.1f} s in two", file=sys.stderr)
    elif argv[:1] == ["show"]:
        entries = load(argv[1]) or []
        own, rank = own_seconds(entries), ranks(entries)
        depth = [0] * len(entries)
        for i, e in enumerate(entries):
            depth[i] = depth[e.parent] + 1 if e.parent >= 0 else 0
        print(f"{argv[1]}: {sum(e.seconds for e in entries if e.parent < 0):.1f} s recorded in one process; about "
              f"{simulate(entries, start_delay=HELPER_START_S):.1f} s in two (helper start-up included); the "
              f"longest chain of callers {max(rank, default=0):.1f} s")
        for i in sorted(range(len(entries)), key=lambda i: (_path(entries, i))):
            if entries[i].seconds >= 0.2:
                print(f"{'  ' * depth[i]}{entries[i].qualname}  incl {entries[i].seconds:.2f}  self {own[i]:.2f}"
                      f"  rank {rank[i]:.2f}")
    elif argv[:1] == ["record-all"]:
        # each command in a fresh process with an empty cache: python -m cardsim.simcore.compile_plan record-all [GAME...]
        for game in argv[1:] or games():
            for key, args in recorded_commands(game):
                with tempfile.TemporaryDirectory() as cache:
                    env = dict(os.environ, NUMBA_CACHE_DIR=cache, CARDSIM_CACHE_DIR=cache + "-exact", **{ENV_SWITCH: "0"})
                    subprocess.run([sys.executable, "-m", "cardsim.simcore.compile_plan", "record", key, *args],
                                   env=env, check=True, stdout=subprocess.DEVNULL)
    else:
        raise SystemExit("usage: python -m cardsim.simcore.compile_plan record KEY CARDSIM-ARGS... | record-all [GAME...] | show KEY | work KEY FOLDER I,J,...")


if __name__ == "__main__":
    _main(sys.argv[1:])
