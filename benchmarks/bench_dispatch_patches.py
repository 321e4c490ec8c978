"""What two of ``simcore/dispatch.py``'s patches save, each against Numba's own behaviour
in the same run.

    python benchmarks/bench_dispatch_patches.py

1. Callee wrappers: CPU seconds to compile a caller and ten small callees that take a
   12-array state tuple (the rummy state's shape), with Numba's wrappers on every callee
   and without them (a fresh process each, no cache).
2. Flag comparisons: seconds for 132,000 ``Flags ==`` and 33,000 ``hash(Flags)`` (the
   counts in one ``play loba`` first-run compile), Numba's methods against the patched ones.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

CALLEES = textwrap.dedent('''
    import sys, time
    import numpy as np
    from numba import njit
    njit(lambda a: a[0] + 1)(np.zeros(3))  # numba's own first-compile cost, outside the timing
    flags = dict(no_cpython_wrapper=True, no_cfunc_wrapper=True) if sys.argv[1] == "without" else {}

    def make():
        @njit(**flags)
        def step(st, c):
            h1, h2, hj, seat, seen, mrow, mcards, mlen, mown, pile, deck, sv = st
            p = sv[0]
            h1[p] = h1[p] | np.uint64(c)
            pile[sv[2]] = c
            sv[2] += 1
            return sv[2]
        return step

    g0, g1, g2, g3, g4, g5, g6, g7, g8, g9 = [make() for _ in range(10)]

    @njit
    def caller(st, c):
        return (g0(st, c) + g1(st, c) + g2(st, c) + g3(st, c) + g4(st, c) + g5(st, c) + g6(st, c)
                + g7(st, c) + g8(st, c) + g9(st, c))

    st = (np.zeros(4, np.uint64), np.zeros(4, np.uint64), np.zeros(4, np.int64), np.zeros((3, 4), np.int64),
          np.zeros((4, 53), np.int64), np.zeros((16, 6), np.int64), np.zeros((16, 32), np.int64),
          np.zeros(16, np.int64), np.zeros(16, np.int64), np.zeros(109, np.int64), np.zeros(108, np.int64),
          np.zeros(18, np.int64))
    start = time.process_time()
    caller(st, 3)
    print(time.process_time() - start)
''')


def callee_wrappers() -> None:
    env = dict(os.environ, NUMBA_DISABLE_CACHE="1")
    seconds = {}
    for mode in ("with", "without"):
        out = subprocess.run([sys.executable, "-c", CALLEES, mode], env=env, capture_output=True, text=True,
                             check=True)
        seconds[mode] = float(out.stdout.strip().splitlines()[-1])
    print(f"caller + 10 state-tuple callees: {seconds['with']:.2f} s with callee wrappers, "
          f"{seconds['without']:.2f} s without (ratio {seconds['with'] / seconds['without']:.2f})")


def flag_comparisons() -> None:
    from numba.core.compiler import Flags
    from numba.core.targetconfig import TargetConfig

    numba_methods = (TargetConfig.values, TargetConfig.__hash__, TargetConfig.__eq__)
    from cardsim.simcore import dispatch  # noqa: F401  (installs the patched methods)

    patched = (TargetConfig.values, TargetConfig.__hash__, TargetConfig.__eq__)
    a, b = Flags(), Flags()
    a.nrt = b.nrt = True

    def run() -> float:
        start = time.perf_counter()
        for _ in range(132_000):
            a == b  # noqa: B015
        for _ in range(33_000):
            hash(a)
        return time.perf_counter() - start

    TargetConfig.values, TargetConfig.__hash__, TargetConfig.__eq__ = numba_methods
    slow = run()
    TargetConfig.values, TargetConfig.__hash__, TargetConfig.__eq__ = patched
    fast = run()
    print(f"132,000 flag comparisons + 33,000 hashes: numba {slow:.2f} s, patched {fast:.2f} s "
          f"(ratio {slow / fast:.0f})")


if __name__ == "__main__":
    callee_wrappers()
    flag_comparisons()
