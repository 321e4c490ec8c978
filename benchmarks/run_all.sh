#!/usr/bin/env bash
# Every figure of the performance table (docs/performance.md), in one run (about 15 minutes on 2 cores).
# Usage: benchmarks/run_all.sh > runs/benchmarks.txt
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
run() { echo "\$ $*"; "$@"; echo; }
run $PY benchmarks/bench_deal_tienlen.py
run $PY benchmarks/bench_deal_tusac.py
run $PY benchmarks/bench_play_tienlen.py --games 200000 --ref-games 40
run $PY benchmarks/bench_play_tusac.py --games 50000 --ref-games 40
run $PY benchmarks/bench_rummy.py
run $PY benchmarks/bench_play_rummy.py --games 1000 --ref-hands 3
run $PY benchmarks/bench_search_tienlen.py
run $PY benchmarks/bench_search_tusac.py --decisions 200 --games 300 --strength-games 0
run $PY benchmarks/bench_search_rummy.py --games 12 --skip-strength
run $PY benchmarks/bench_custom_event.py
