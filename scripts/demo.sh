#!/usr/bin/env bash
# The main job on embedded defaults: set up, then grade HumanEval's reference solutions in the
# gVisor sandbox, record them in ./passgate.db, and print the report and the gate verdict.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
run_id=$(.venv/bin/passgate run examples/humaneval-canonical.yaml)
.venv/bin/passgate report "$run_id"
.venv/bin/passgate gate "$run_id" || true
