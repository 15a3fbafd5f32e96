#!/usr/bin/env bash
# Run every example manifest into one record (var/example-runs.db) and write their reports to
# docs/examples/. Long: the CodeT file alone is 16,400 candidates.
set -euo pipefail
cd "$(dirname "$0")/.."
db=${PASSGATE_DB:-var/example-runs.db}
mkdir -p "$(dirname "$db")" docs/examples
for m in "$@"; do
  name=$(basename "$m" .yaml)
  echo "== $name"
  run_id=$(.venv/bin/passgate --db "$db" run --quiet "$m") || { echo "run failed: $m"; continue; }
  .venv/bin/passgate --db "$db" report "$run_id" --markdown > "docs/examples/$name.md" || true
  .venv/bin/passgate --db "$db" report "$run_id" --json > "docs/examples/$name.json" || true
  echo "$name $run_id" >> var/example-runs.txt
done
