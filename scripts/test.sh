#!/usr/bin/env bash
# Set up (idempotent), then run the whole test suite against the real Docker + gVisor runner.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh || exit 1
# the layer contracts in pyproject.toml (import-linter): core never imports the UI, no cycles, ...
.venv/bin/lint-imports --no-cache >/tmp/passgate-lint-imports.txt 2>&1 || {
  cat /tmp/passgate-lint-imports.txt >&2
  echo "passgate tests: a layer contract is broken (lint-imports)" >&2
  exit 1
}
grep -E "^Contracts:" /tmp/passgate-lint-imports.txt
.venv/bin/pytest "$@"
rc=$?
if [ "$rc" = 5 ]; then
  echo "passgate tests: pytest collected no tests; that is a failure" >&2
  exit 1
fi
exit "$rc"
