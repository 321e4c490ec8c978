"""Where a command's first-run compile time goes: every Numba compilation as a tree,
with inclusive and self CPU seconds per function (Numba's compile events).

    NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/compile_tree.py play tienlen --games 200 --seed 1 --quiet --threads 1

Run it with an empty cache (as above), or nothing compiles. ``--threads 1`` keeps the
compilation in the main thread. Lines under 0.25 s are left out.
"""
from __future__ import annotations

import sys
import time

from numba.core import event


class _Tree(event.Listener):
    """Records (depth, function, inclusive, self) of every compilation."""

    def __init__(self) -> None:
        self.stack: list[list] = []
        self.rows: list[tuple[int, str, float, float]] = []

    def on_start(self, ev) -> None:
        fn = ev.data["dispatcher"].py_func
        name = fn.__module__.replace("cardsim.simcore.", "") + "." + fn.__qualname__
        self.stack.append([name, time.process_time(), 0.0, len(self.stack)])

    def on_end(self, ev) -> None:
        name, start, children, depth = self.stack.pop()
        spent = time.process_time() - start
        self.rows.append((depth, name, spent, spent - children))
        if self.stack:
            self.stack[-1][2] += spent


def main() -> None:
    tree = _Tree()
    event.register("numba:compile", tree)
    start = time.process_time()
    from cardsim.cli.main import main as cardsim

    try:
        cardsim(sys.argv[1:])
    except SystemExit:
        pass
    total = time.process_time() - start
    compiled = sum(r[2] for r in tree.rows if r[0] == 0)
    print(f"CPU seconds: {total:.1f} in all, {compiled:.1f} compiling", file=sys.stderr)
    for depth, name, spent, own in reversed(tree.rows):
        if spent > 0.25:
            print(f"{'  ' * depth}{name}  incl {spent:.2f}  self {own:.2f}", file=sys.stderr)


if __name__ == "__main__":
    main()
