"""Kernels compiled more than once in one process, and the argument types that differ.

    python benchmarks/compile_duplicates.py "play tienlen --games 50 --quiet" "replay tienlen --seed 1 --index 0"

Runs the given ``cardsim`` commands in-process, then lists every Numba dispatcher of
``cardsim`` with more than one compiled signature. A literal argument (``f(x, -1)``, or
``n = 0`` carried into a loop that passes ``n`` on) makes Numba compile the callee once
more for that value; a ``None``-versus-array pair is expected where a kernel leaves the
search out of runs without a search seat.
"""
from __future__ import annotations

import shlex
import sys


def main() -> None:
    from numba.core.registry import CPUDispatcher

    from cardsim.cli.main import main as cardsim

    for command in sys.argv[1:]:
        try:
            cardsim(shlex.split(command))
        except SystemExit:
            pass
    seen = set()
    for module_name, module in list(sys.modules.items()):
        if not module_name.startswith("cardsim"):
            continue
        for name, obj in vars(module).items():
            if isinstance(obj, CPUDispatcher) and id(obj) not in seen:
                seen.add(id(obj))
                if len(obj.signatures) > 1:
                    print(f"{len(obj.signatures)} signatures: {obj.py_func.__module__}.{name}", file=sys.stderr)
                    columns = list(zip(*obj.signatures))
                    for k, types in enumerate(columns):
                        if len({str(t) for t in types}) > 1:
                            print(f"    argument {k}: {' | '.join(str(t) for t in types)}", file=sys.stderr)


if __name__ == "__main__":
    main()
