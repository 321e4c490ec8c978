"""Games per second on one core with kernels linked by symbol vs Numba's own linking.

    .venv/bin/python benchmarks/ab_linking.py [--rounds 3] [--scale 1.0]

:mod:`cardsim.simcore.linking` keeps the turn-sized kernels out of their callers' machine
code, which costs the optimiser the chance to inline them. This measures what that costs at
run time: each (game, policy) is timed in a fresh process per linking mode
(``CARDSIM_LINK_BY_SYMBOL=1`` / ``0``, each case and mode with its own ``NUMBA_CACHE_DIR``
under ``benchmarks/.ab_linking_cache``), the two modes interleaved ``--rounds`` times; the best
rate of each is printed with the ratio, and the results are checked identical. The first
round also reports each mode's cold compile (CPU seconds of one process, empty cache).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

CASES = [  # (label, game, policy, games)
    ("tienlen heuristic", "tienlen", "heuristic", 20000),
    ("tusac heuristic", "tusac", "heuristic", 20000),
    ("loba heuristic", "loba", "heuristic", 3000),
    ("continental heuristic", "continental", "heuristic", 1500),
    ("tienlen search:16", "tienlen", "0=search:16", 400),
    ("tusac search:16", "tusac", "0=search:16", 400),
    ("loba search:16", "loba", "0=search:16", 60),
]

CHILD = r"""
import json, resource, sys, time
import numba
numba.set_num_threads(1)
game, policy, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
import importlib
from cardsim.simcore import registry
from cardsim.simcore.tasks import parse_policy_text
rules = registry.rules_class(game)()
task = registry.get_task(game, "play")
policies = parse_policy_text(policy, rules.players, task.policy_names, task.default_policy)
package = {"loba": "rummy", "continental": "rummy"}.get(game, game)
play_chunk = importlib.import_module(f"cardsim.simcore.{package}.play").play_chunk
t0 = resource.getrusage(resource.RUSAGE_SELF).ru_utime
play_chunk(7, 0, 8, rules, policies)
compile_s = resource.getrusage(resource.RUSAGE_SELF).ru_utime - t0
t = time.perf_counter()
cols = play_chunk(7, 0, n, rules, policies)
rate = n / (time.perf_counter() - t)
def digest_of(cols):
    out = {}
    for k, v in sorted(cols.items()):
        if isinstance(v, dict):
            out.update({f"{k}.{c}": x for c, x in digest_of(v).items()})
        elif getattr(v, "dtype", None) is not None and v.dtype.kind in "biuf":
            out[k] = float(v.astype("float64").sum())
    return out
digest = digest_of(cols)
print(json.dumps({"rate": rate, "compile_s": compile_s, "digest": digest}))
"""


def run(mode: str, game: str, policy: str, n: int, cache: Path) -> dict:
    env = dict(os.environ, CARDSIM_LINK_BY_SYMBOL=mode, NUMBA_CACHE_DIR=str(cache),
               CARDSIM_PARALLEL_COMPILE="0")
    out = subprocess.run([sys.executable, "-c", CHILD, game, policy, str(n)], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every case's games")
    parser.add_argument("--only", default="", help="run only the cases whose label contains this text")
    args = parser.parse_args()
    root = Path(__file__).parent / ".ab_linking_cache"
    shutil.rmtree(root, ignore_errors=True)
    print(f"{'case':24s} {'cold s (sym/numba)':>19s} {'games/s by symbol':>18s} {'numba linking':>14s} {'ratio':>6s}")
    for label, game, policy, n in CASES:
        if args.only not in label:
            continue
        n = max(8, int(n * args.scale))
        best = {"1": 0.0, "0": 0.0}
        cold = {}
        digests = {}
        for r in range(args.rounds):
            for mode in ("1", "0"):
                res = run(mode, game, policy, n, root / label.replace(" ", "_").replace(":", "") / mode)
                if r == 0:
                    cold[mode] = res["compile_s"]
                best[mode] = max(best[mode], res["rate"])
                digests.setdefault(mode, res["digest"])
        same = "" if digests["1"] == digests["0"] else "  RESULTS DIFFER"
        print(f"{label:24s} {cold['1']:8.1f} / {cold['0']:8.1f} {best['1']:18,.0f} {best['0']:14,.0f} "
              f"{best['1'] / best['0']:6.2f}{same}", flush=True)


if __name__ == "__main__":
    main()
