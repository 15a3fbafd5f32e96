#!/usr/bin/env bash
# The console in a real terminal: start `passgate` (no arguments) in tmux at 120x40, build a
# three-task manifest in the wizard and launch it by keystrokes, watch it finish in the gVisor
# sandbox, open the report and the verdict, and save each final screen as text.
#
#   scripts/console-demo.sh [OUTPUT_DIR]      (default: a new temporary directory)
#
# Needs tmux, the Docker engine with runsc and the sandbox image (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
out=${1:-$(mktemp -d)}
mkdir -p "$out"
work=$(mktemp -d)
session="passgate-demo-$$"
tmux() { command tmux -L "$session" -f /dev/null "$@"; }   # a private tmux server: nobody else's sizes or keys
trap 'tmux kill-server 2>/dev/null || true; rm -rf "$work"' EXIT

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

tmux new-session -d -s "$session" -x 120 -y 40 \
  "cd '$work' && env -u COLUMNS -u LINES PASSGATE_DB='$work/passgate.db' PASSGATE_OPERATOR=release-engineer '$repo/.venv/bin/passgate'"
wait_for "No runs yet" 60
tmux display -p -t "$session" 'console-demo: terminal #{window_width}x#{window_height}' >&2
keys n
wait_for "passgate — Task sets and slices"
sleep 1
keys Tab Tab Tab                       # run name → task set → dataset file → task ids
keys -l "HumanEval/0-2"
wait_for "HumanEval/0-2"
for _ in 1 2 3 4 5 6 7 8; do keys C-n; done   # candidates (reference), then each boundary up to holdout
wait_for "make this run public-only"
sleep 1                                # the setting is implied: the justification field has the focus
keys -l "HumanEval is public: console demo, not release evidence"
wait_for "console demo, not release"
keys C-n                               # scoring
keys C-n                               # review: freezes the manifest
wait_for "Manifest id" 120
screen > "$out/review.txt"
keys C-l                               # launch
wait_for "press enter for the report" 300   # the record says completed
screen > "$out/live.txt"
keys Enter                             # report
wait_for "report ·" 60
sleep 2
screen > "$out/report.txt"
keys v                                 # verdict
wait_for "evidence" 120
screen > "$out/verdict.txt"
keys C-q
echo "console-demo: screens saved in $out (review.txt, live.txt, report.txt, verdict.txt)"
cat "$out/verdict.txt"
