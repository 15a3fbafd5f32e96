#!/usr/bin/env bash
# Set up (idempotent), then run the whole test suite against the real Docker + gVisor runner.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh || exit 1
.venv/bin/pytest "$@"
rc=$?
if [ "$rc" = 5 ]; then
  echo "passgate tests: pytest collected no tests; that is a failure" >&2
  exit 1
fi
exit "$rc"
