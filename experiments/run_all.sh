#!/usr/bin/env bash
# Run the ready experiment specs and print their tables (the answers in docs/results.md).
# Usage: experiments/run_all.sh [PATTERN] [-- options for `cardsim experiment`]
#   PATTERN: a glob of spec names (default: every spec except the strength_* ones,
#   which run search players and take longer: experiments/run_all.sh 'strength_*').
set -euo pipefail
cd "$(dirname "$0")/.."
CARDSIM=${CARDSIM:-.venv/bin/cardsim}
PATTERN=${1:-}
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
mkdir -p runs/experiments
for spec in experiments/*.toml; do
  name=$(basename "$spec" .toml)
  if [ -z "$PATTERN" ]; then
    case "$name" in strength_*) continue ;; esac
  else
    # shellcheck disable=SC2254
    case "$name" in $PATTERN) ;; *) continue ;; esac
  fi
  echo "### $name"
  echo
  echo '```text'
  "$CARDSIM" experiment "$spec" --out "runs/experiments/$name" --overwrite --quiet "$@"
  echo '```'
  echo
done
