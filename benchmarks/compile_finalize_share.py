"""How much of a command's first-run compile is LLVM finalisation (link, optimise, machine code).

    CARDSIM_LINK_BY_SYMBOL=0 python benchmarks/compile_finalize_share.py play loba --games 20 --quiet

Runs ``cardsim ARGS`` in this process with an empty Numba cache and one compile process,
timing every Numba library's ``finalize`` (callees' modules linked in, module passes,
machine code) in CPU seconds, with how much IR each library copied in from its callees.
With Numba's own linking (``CARDSIM_LINK_BY_SYMBOL=0``) the top kernels re-optimise the
whole game; with linking by symbol (the default) each kernel is finalised once.
"""
import os
import sys
import tempfile
import time

os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp()
os.environ["CARDSIM_PARALLEL_COMPILE"] = "0"

from numba.core import codegen  # noqa: E402

_finalize = codegen.CPUCodeLibrary.finalize
stats = []


def finalize(self):
    linked = set(self._linking_libraries)
    n_linked = sum(sum(1 for f in lib._get_module_for_linking().functions if not f.is_declaration)
                   for lib in linked)
    linked_ir = sum(len(str(lib._get_module_for_linking())) for lib in linked)
    t = time.process_time()
    _finalize(self)
    stats.append((time.process_time() - t, self.name, n_linked, linked_ir))


codegen.CPUCodeLibrary.finalize = finalize

from cardsim.cli.main import main  # noqa: E402

t0 = time.process_time()
try:
    main(sys.argv[1:])
except SystemExit:
    pass
total = time.process_time() - t0
print(f"CPU {total:.1f} s in all; library finalisation {sum(s[0] for s in stats):.1f} s in {len(stats)} libraries",
      file=sys.stderr)
for seconds, name, n_linked, linked_ir in sorted(stats, reverse=True)[:12]:
    print(f"{seconds:6.2f} s  {name[:40]:40s} functions copied in {n_linked:4d}, IR {linked_ir // 1000:6d} kB",
          file=sys.stderr)
