#!/usr/bin/env bash
# Run every ready experiment spec and print its comparison table (the README's answers).
# Usage: experiments/run_all.sh [--n N]   (extra options go to `cardsim experiment`)
set -euo pipefail
cd "$(dirname "$0")/.."
CARDSIM=${CARDSIM:-.venv/bin/cardsim}
mkdir -p runs/experiments
for spec in experiments/*.toml; do
  name=$(basename "$spec" .toml)
  echo "### $name"
  echo
  echo '```text'
  "$CARDSIM" experiment "$spec" --out "runs/experiments/$name" --overwrite --quiet "$@"
  echo '```'
  echo
done
