"""The console in a real terminal: scripts/console-demo.sh drives `passgate` in tmux at 80x24 by
keystrokes, through the release engineer's, the security reviewer's and the on-call's journeys."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.docker
REPO = Path(__file__).resolve().parents[2]


def test_the_three_journeys_by_keystrokes_in_tmux_at_80x24(tmp_path):
    if shutil.which("tmux") is None:
        pytest.fail("tmux is not installed: scripts/setup.sh installs it")
    done = subprocess.run([str(REPO / "scripts" / "console-demo.sh"), str(tmp_path)], capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr

    def screen(name: str) -> str:
        text = (tmp_path / f"{name}.txt").read_text()
        assert all(len(line) <= 80 for line in text.splitlines()), name
        return text
    assert "Manifest id m-" in screen("review") and "holdout public-only" in screen("review")
    assert "completed" in screen("live") and "3/3" in screen("live")
    assert "pass@1" in screen("report")
    assert "CANARY" in screen("verdict") or "BLOCKED" in screen("verdict")
    assert "signed" in screen("signoff") and "verdict ·" in screen("verdict-signed")
    assert "wrong_answer" in screen("failures") and "Decision" in screen("failure-output")
    assert "Rerun" in screen("rerun-confirm") and "Rerun recorded" in screen("rerun-done")
