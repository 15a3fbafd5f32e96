"""The console in a real terminal: scripts/console-demo.sh drives `passgate` in tmux by keystrokes."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.docker
REPO = Path(__file__).resolve().parents[2]


def test_a_run_launched_by_keystrokes_in_tmux_reaches_its_verdict(tmp_path):
    if shutil.which("tmux") is None:
        pytest.fail("tmux is not installed: scripts/setup.sh installs it")
    done = subprocess.run([str(REPO / "scripts" / "console-demo.sh"), str(tmp_path)], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    review = (tmp_path / "review.txt").read_text()
    assert "Manifest id m-" in review and "holdout → public-only" in review
    live = (tmp_path / "live.txt").read_text()
    assert "completed" in live and "3/3" in live and "humaneval" in live
    assert "pass@1" in (tmp_path / "report.txt").read_text()
    verdict = (tmp_path / "verdict.txt").read_text()
    assert "BLOCKED" in verdict and "Holdout: the run used public-only" in verdict
