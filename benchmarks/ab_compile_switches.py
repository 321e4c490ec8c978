"""Compiler switches against a first run's compile CPU: one recorded compile plan compiled
cold in one process with each switch, alternating with the unchanged code.

    python benchmarks/ab_compile_switches.py [--plan loba-play-search] [--rounds 2] [--only opt]

Every compile gets an empty ``NUMBA_CACHE_DIR``. A switch is an environment variable or
a ``sitecustomize`` (on ``PYTHONPATH``, imported before cardsim) that patches Numba. Prints
each switch's CPU seconds per round and the ratio of its median to the unchanged code's.
This machine's speed drifts by tens of percent over hours, so only rows of one run compare.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

#: A sitecustomize that rewrites the options of every ``@njit(...)`` kernel: ``{body}`` edits
#: ``options`` (a copy of the decorator's keywords) and may read ``func``.
PATCH_NJIT = """import numba, numba.core.decorators as _d
_njit = _d.njit
def njit(*args, **kws):
    if args:  # a bare @njit or a signature: as it is
        return _njit(*args, **kws)
    def decorate(func):
        options = dict(kws)
{body}
        return _njit(**options)(func)
    return decorate
numba.njit = _d.njit = njit
"""

#: Numba's inlining of an ``inline="always"`` helper at each call site replaced by one
#: compiled helper that LLVM inlines (``forceinline``), for the helpers ``{only}`` selects.
_BY_LLVM = ('        if options.get("inline") == "always" and {only}:\n'
            '            del options["inline"]\n'
            '            options["forceinline"] = True')

SWITCHES = {
    "unchanged": ({}, ""),
    "NUMBA_OPT=0": ({"NUMBA_OPT": "0"}, ""),
    "NUMBA_OPT=1": ({"NUMBA_OPT": "1"}, ""),
    "NUMBA_OPT=2": ({"NUMBA_OPT": "2"}, ""),
    "error_model=numpy": ({}, PATCH_NJIT.format(body='        options.setdefault("error_model", "numpy")')),
    "LLVM codegen level 0": ({}, (
        "from numba.core import codegen as _c\n"
        "_orig = _c.JITCPUCodegen._customize_tm_options\n"
        "def _options(self, options):\n"
        "    _orig(self, options)\n"
        "    options['opt'] = 0\n"
        "_c.JITCPUCodegen._customize_tm_options = _options\n")),
    "no forceinline": ({}, PATCH_NJIT.format(body='        if options.get("forceinline"):\n'
                                                   '            options["forceinline"] = False')),
    # kernels only other kernels call need no CPython entry point (the plans' roots keep theirs)
    "no CPython wrapper below roots": ({}, PATCH_NJIT.format(
        body='        if func.__name__ not in ("_play_block", "shuffle_plan", "play_block", "_play_block_unlogged"):\n'
             '            options["no_cpython_wrapper"] = True')),
    # LLVM's loop and SLP vectorizers off (Numba's own switches)
    "no vectorize": ({"NUMBA_LOOP_VECTORIZE": "0", "NUMBA_SLP_VECTORIZE": "0"}, ""),
    # a re-entrant acquire of Numba's compiler lock fires no timing events (the outermost does)
    "quiet nested lock events": ({}, (
        "import threading\n"
        "from numba.core import compiler_lock as _cl, event as _ev\n"
        "_depth = threading.local()\n"
        "def acquire(self):\n"
        "    d = getattr(_depth, 'n', 0)\n"
        "    if d == 0:\n"
        "        _ev.start_event('numba:compiler_lock')\n"
        "    self._lock.acquire()\n"
        "    _depth.n = d + 1\n"
        "def release(self):\n"
        "    _depth.n -= 1\n"
        "    self._lock.release()\n"
        "    if _depth.n == 0:\n"
        "        _ev.end_event('numba:compiler_lock')\n"
        "_cl._CompilerLock.acquire = acquire\n"
        "_cl._CompilerLock.release = release\n")),
    # every cardsim kernel LLVM is not asked to inline is linked to its callers by symbol
    "plain kernels by symbol": ({}, PATCH_NJIT.format(
        body='        if func.__module__.startswith("cardsim.") and not options.get("forceinline") \\\n'
             '                and options.get("inline", "never") == "never":\n'
             '            from cardsim.simcore import linking\n'
             '            linking.BY_SYMBOL.add((func.__module__, func.__qualname__))')),
    "inline=always by LLVM": ({}, PATCH_NJIT.format(body=_BY_LLVM.format(only="True"))),
    "inline=always by LLVM, rummy only": ({}, PATCH_NJIT.format(
        body=_BY_LLVM.format(only="func.__module__.startswith('cardsim.simcore.rummy')"))),
}

#: ``PYTHONPATH=DIR`` with one of the patches above as ``DIR/sitecustomize.py`` gives the
#: switch to any cardsim command too (warm speed: run it twice on one ``NUMBA_CACHE_DIR``).

COMPILE = ("import sys\n"
           "from cardsim.simcore import compile_plan as cp\n"
           "entries = cp.load(sys.argv[1])\n"
           "print(cp.compile_entries(entries, list(range(len(entries)))), len(entries))\n")


def cpu_seconds(plan: str, env_extra: dict[str, str], patch: str, work: Path) -> tuple[float, str]:
    """Child CPU seconds (user + system) of compiling ``plan`` cold with one switch, and
    ``"compiled/planned"`` kernels (a switch that breaks a kernel compiles fewer)."""
    cache = tempfile.mkdtemp(dir=work)
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, **env_extra)
    if patch:
        site = Path(tempfile.mkdtemp(dir=work))
        (site / "sitecustomize.py").write_text(patch)
        env["PYTHONPATH"] = str(site)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sys.executable, "-c", COMPILE, plan], env=env, check=True, capture_output=True,
                          text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    compiled, planned = proc.stdout.split()[-2:]
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), f"{compiled}/{planned}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plan", default="loba-play-search", help="a compile plan key (simcore/compile_plans)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--only", default="", help="only switches whose name contains this text, or one of these comma-separated texts (and the unchanged code)")
    args = parser.parse_args()
    wanted = [w.strip().lower() for w in args.only.split(",")]
    names = [n for n in SWITCHES if n == "unchanged" or any(w in n.lower() for w in wanted)]
    times: dict[str, list[float]] = {n: [] for n in names}
    kernels: dict[str, set[str]] = {n: set() for n in names}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            # every round runs each switch once, the order reversed every other round (a run
            # right after another can be faster or slower on this machine)
            for name in (names if r % 2 == 0 else names[::-1]):
                extra, patch = SWITCHES[name]
                seconds, counted = cpu_seconds(args.plan, extra, patch, Path(tmp))
                times[name].append(seconds)
                kernels[name].add(counted)
    base = statistics.median(times["unchanged"])
    print(f"{args.plan}: compile CPU seconds in one process, {args.rounds} round(s); kernels compiled/planned;"
          " median / unchanged")
    for name in names:
        runs = " ".join(f"{t:6.1f}" for t in times[name])
        print(f"{name:34s} {runs}  {','.join(sorted(kernels[name])):>7s}  {statistics.median(times[name]) / base:5.2f}")


if __name__ == "__main__":
    main()
