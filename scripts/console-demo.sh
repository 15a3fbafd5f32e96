#!/usr/bin/env bash
# The console in a real terminal at 80x24, as its three users walk it, by keystrokes in tmux:
#
#   release engineer: build a three-task manifest in the wizard, launch it, watch it finish in the
#                     gVisor sandbox, read the report and what the verdict says a release needs;
#   security reviewer: a second console as another person: the boundaries, the holdout relaxation
#                     signed off, the verdict after it;
#   on-call:          a run with failing candidates (recorded headless, as CI records it): failures
#                     by class, one candidate's output and attempts, a rerun confirmed and recorded.
#
# Each final screen is saved as text.
#
#   scripts/console-demo.sh [OUTPUT_DIR]      (default: a new temporary directory)
#   PASSGATE_DEMO_SIZE=120x40 scripts/console-demo.sh    (another terminal size; default 80x24)
#
# Needs tmux, the Docker engine with runsc and the sandbox image (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
out=${1:-$(mktemp -d)}
size=${PASSGATE_DEMO_SIZE:-80x24}
mkdir -p "$out"
work=$(mktemp -d)
session="passgate-demo-$$"
tmux() { command tmux -L "$session" -f /dev/null "$@"; }   # a private tmux server: nobody else's sizes or keys
trap 'tmux kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
# a session that lives as long as the script: the server never exits between two consoles (a console
# quit with ctrl+q was its last session, and the next one could reach the server as it shut down)
tmux new-session -d -s hold "sleep 86400"

screen() { tmux capture-pane -p -t "$session"; }
wait_for() {  # wait_for TEXT [SECONDS]
  local i
  for ((i = 0; i < ${2:-60} * 4; i++)); do
    screen | grep -qF -- "$1" && return 0
    sleep 0.25
  done
  echo "console-demo: timed out waiting for '$1'; the screen was:" >&2
  screen >&2
  exit 1
}
keys() { tmux send-keys -t "$session" "$@"; sleep 0.3; }
console() {  # console OPERATOR: the console as that person, on the demo's record, at $size
  tmux kill-session -t "$session" 2>/dev/null || true
  tmux new-session -d -s "$session" -x "${size%x*}" -y "${size#*x}" \
    "cd '$work' && env -u COLUMNS -u LINES PASSGATE_DB='$work/passgate.db' PASSGATE_OPERATOR=$1 '$repo/.venv/bin/passgate'"
}

# ---- release engineer -------------------------------------------------------------------------
console release-engineer
wait_for "No runs yet" 60
tmux display -p -t "$session" 'console-demo: terminal #{window_width}x#{window_height}' >&2
keys n
wait_for "passgate — Task sets"
sleep 1
keys Tab Tab Tab                       # run name → task set → dataset file → task ids
keys -l "HumanEval/0-2"
wait_for "HumanEval/0-2"
for _ in 1 2 3 4 5 6 7 8; do keys C-n; done   # candidates (reference), then each boundary up to holdout
wait_for "make this run"
sleep 1                                # the setting is implied: the justification field has the focus
keys -l "HumanEval is public: console demo, not release evidence"
wait_for "console demo, not"
keys C-n                               # scoring
sleep 1
keys Tab Tab Tab Tab Tab               # k → aggregation → level → resamples → workers → policy
keys Enter                             # open the policy list
wait_for "Dismiss menu" 30             # the list is open (its footer key closes it)
keys Up                                # public-benchmark: a public holdout may be signed off
keys Enter
wait_for "Regression tracking on public benchmarks" 30   # the chosen policy's description
screen > "$out/scoring.txt"
keys C-n                               # review: freezes the manifest
wait_for "Manifest id" 120
wait_for "The gate on the best record" 120   # what the gate will decide, under each offered policy
screen > "$out/review.txt"
keys C-l                               # launch
wait_for "press enter for the report" 300   # the record says completed
wait_for "3/3" 30
screen > "$out/live.txt"
keys Enter                             # report
wait_for "report ·" 60
sleep 2
screen > "$out/report.txt"
keys v                                 # verdict
wait_for "evidence" 120
sleep 1
screen > "$out/verdict.txt"
keys PageDown                          # what a release needs
sleep 0.5
screen > "$out/verdict-needs.txt"
keys C-q

# ---- security reviewer ------------------------------------------------------------------------
console sec-reviewer
wait_for "1 run in" 60
keys b                                 # boundaries of the (only) run
wait_for "holdout" 60
sleep 1
wait_for "Justification" 60            # it opens on the relaxation waiting for a sign-off: holdout
keys s                                 # sign off: the reviewer is this console's user
wait_for "covers exactly: holdout=public-only" 60   # the dialog (its title may scroll off at 80x24)
keys Tab Tab                           # reviewer → decision → statement
keys -l "public benchmark, no release claim; checked the justification"
keys Enter
wait_for "sign-off recorded" 120
sleep 1
screen > "$out/signoff.txt"
keys Escape                            # back to the runs, and only then v (ESC v read together is alt+v)
wait_for "1 run in" 30
keys v                                 # the verdict after the sign-off
wait_for "evidence" 120
sleep 1
screen > "$out/verdict-signed.txt"
keys C-q

# ---- on-call ------------------------------------------------------------------------------------
run_id=$(cd "$repo" && PASSGATE_DB="$work/passgate.db" .venv/bin/python - "$work" <<'PY'
import sys
from pathlib import Path
from tests.tui import realrun
work = Path(sys.argv[1])
print(realrun.record_run(work / "passgate.db", realrun.frozen_manifest(work, name="ci-nightly")))
PY
)
console on-call
wait_for "2 runs in" 60
keys i                                 # failures of the newest run (the CI run)
wait_for "wrong_answer" 60
sleep 1
screen > "$out/failures.txt"
keys 1                                 # the largest class
sleep 1
keys o                                 # its output: the failing line and the returned value
wait_for "Decision" 60
screen > "$out/failure-output.txt"
keys a                                 # every attempt, with what each decided
sleep 1
keys x                                 # rerun: asks first
wait_for "Rerun HumanEval/" 30         # the question's title (the footer says "Rerun" all along)
screen > "$out/rerun-confirm.txt"
keys y
wait_for "Rerun recorded" 180
sleep 1
screen > "$out/rerun-done.txt"
keys C-q
echo "console-demo: run $run_id; screens saved in $out"
ls "$out"
