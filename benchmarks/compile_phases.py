"""Where a first run's compile CPU goes, by compiler phase: Numba's passes (bytecode,
typing, rewrites, inlining), its lowering to LLVM IR (Python), and LLVM's optimisation
and machine-code generation. Compiles one recorded compile plan in this process, serially.

    NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/compile_phases.py loba-play-search

Run it with an empty cache (as above), or everything loads instead of compiling. The plan
keys are those of ``python -m cardsim.simcore.compile_plan show KEY`` (files in
``simcore/compile_plans/``). CPU seconds are exclusive: a phase's time excludes the nested
phases it calls (a callee compiled during a caller's typing counts as that callee's);
"Numba pass native_lowering" is what that pass spends outside the lowering and LLVM
phases listed on their own.
"""
from __future__ import annotations

import sys
import time
from collections import defaultdict

_SPENT: dict[str, float] = defaultdict(float)
_CALLS: dict[str, int] = defaultdict(int)
_STACK: list[float] = []


def _timed(owner, name: str, label) -> None:
    """Time ``owner.name`` under ``label`` (a string, or a function of the call's arguments)."""
    original = getattr(owner, name)

    def wrapper(*args, **kwargs):
        key = label(*args) if callable(label) else label
        start = time.process_time()
        _STACK.append(0.0)
        try:
            return original(*args, **kwargs)
        finally:
            spent = time.process_time() - start
            nested = _STACK.pop()
            _SPENT[key] += spent - nested
            _CALLS[key] += 1
            if _STACK:
                _STACK[-1] += spent

    setattr(owner, name, wrapper)


def main() -> None:
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    from numba.core import caching, codegen, compiler_machinery, lowering

    # PassManager._runPass(self, index, pass, state): one label per Numba pass
    _timed(compiler_machinery.PassManager, "_runPass", lambda manager, index, pss, state: f"Numba pass {pss.name()}")
    _timed(lowering.Lower, "lower", "Numba lowering to LLVM IR (Python)")
    _timed(codegen.CPUCodeLibrary, "add_ir_module", "LLVM IR text and parsing")
    _timed(codegen.CPUCodeLibrary, "_optimize_functions", "LLVM per-function optimisation")
    _timed(codegen.CPUCodeLibrary, "_optimize_final_module", "LLVM module optimisation (O3)")
    _timed(codegen.JITCodeLibrary, "_finalize_specific", "LLVM machine code")
    _timed(codegen.CPUCodeLibrary, "finalize", "LLVM linking and checks")
    _timed(caching.Cache, "save_overload", "Numba cache writes")

    from cardsim.simcore import compile_plan

    entries = compile_plan.load(sys.argv[1])
    if entries is None:
        raise SystemExit(f"no compile plan {sys.argv[1]!r}")
    start = time.process_time()
    compiled = compile_plan.compile_entries(entries, list(range(len(entries))))
    total = time.process_time() - start
    print(f"{sys.argv[1]}: {compiled} kernels, {total:.1f} CPU s")
    passes = sum(spent for label, spent in _SPENT.items() if label.startswith("Numba pass "))
    print(f"{passes:7.1f} s {100 * passes / total:5.1f} %  Numba passes, all (below: the largest)")
    for label, spent in sorted(_SPENT.items(), key=lambda item: -item[1]):
        if spent >= 0.1:
            print(f"{spent:7.1f} s {100 * spent / total:5.1f} %  {label} ({_CALLS[label]} calls)")


if __name__ == "__main__":
    main()
