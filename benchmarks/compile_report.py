"""Where a command's first-run compile time goes: every kernel Numba compiles, with its
argument types and seconds, and the kernels compiled for more than one signature.

    NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/compile_report.py play loba --games 2 --policy 0=search:4

Runs the ``cardsim`` command in this process on an empty cache (give ``NUMBA_CACHE_DIR``
a new folder) and listens to Numba's public ``numba:compile`` event. Seconds are
inclusive (a kernel's time includes the callees it compiles); ``self`` subtracts them.
Rummy first runs compile part of the tree in a helper process
(:mod:`cardsim.simcore.primitives.compile_parts`) that this report does not see: add
``CARDSIM_COMPILE_PROCESSES=1`` to list the whole tree in this process.
"""
from __future__ import annotations

import sys
import time
from collections import defaultdict

from numba.core import event


class Recorder(event.Listener):
    def __init__(self) -> None:
        self.stack: list[list] = []
        self.done: list[tuple[str, str, float, float]] = []

    def on_start(self, ev) -> None:
        self.stack.append([ev.data["dispatcher"], ev.data["args"], time.perf_counter(), 0.0])

    def on_end(self, ev) -> None:
        disp, args, start, child = self.stack.pop()
        took = time.perf_counter() - start
        if self.stack:
            self.stack[-1][3] += took
        func = disp.py_func
        self.done.append((f"{func.__module__.replace('cardsim.simcore.', '')}.{func.__qualname__}",
                          ", ".join(str(a) for a in args), took, took - child))


def main() -> None:
    from cardsim.cli.main import main as cardsim

    recorder = Recorder()
    start = time.perf_counter()
    with event.install_listener("numba:compile", recorder):
        code = cardsim(sys.argv[1:] + (["--quiet"] if sys.argv[1] in ("deal", "play") else []))
    total = time.perf_counter() - start
    rows = sorted(recorder.done, key=lambda r: -r[3])
    print(f"{len(rows)} compiles, {total:.1f} s wall (exit {code}); self seconds, most first:")
    for name, args, inclusive, own in rows[:40]:
        print(f"{own:7.2f} {inclusive:7.2f}  {name}({args[:90]})")
    by_kernel = defaultdict(list)
    for name, args, inclusive, own in rows:
        by_kernel[name].append((args, own))
    twice = {k: v for k, v in by_kernel.items() if len(v) > 1}
    print(f"\n{len(twice)} kernels compiled for more than one signature:")
    for name, sigs in sorted(twice.items(), key=lambda kv: -sum(s for _, s in kv[1])):
        print(f"  {name}: {len(sigs)} signatures, {sum(s for _, s in sigs):.2f} s self")
        for args, own in sigs:
            print(f"      {own:6.2f}  ({args[:150]})")


if __name__ == "__main__":
    main()
