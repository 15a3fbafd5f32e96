"""Each user's journey end to end: the console on a real SQLite file, runs graded by the real engine
(Docker + gVisor), asserting on what the screen shows.

* release engineer: wizard → freeze → launch → live progress → report → verdict → export
* security reviewer: boundary review → sign-off of a relaxation → verdict reflects it
* on-call: failures by class → one candidate (code, tests, output, attempts) → rerun it;
  cancel a run from the live screen and resume it
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input

from tests.tui import realrun
from tests.tui.conftest import screen_text, settle, wait_for

pytestmark = pytest.mark.docker
SIZE = (120, 40)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> tuple[Path, str]:
    """One real run (5 tasks x 2 candidates, 4 failing), recorded once for the module."""
    directory = tmp_path_factory.mktemp("recorded")
    manifest = realrun.frozen_manifest(directory)
    db = directory / "record.db"
    return db, realrun.record_run(db, manifest)


@pytest.fixture
def record_copy(recorded, tmp_path) -> tuple[Path, str]:
    """A private copy of the recorded run (a journey appends to it)."""
    db, run_id = recorded
    copy = tmp_path / "record.db"
    shutil.copy(db, copy)
    return copy, run_id


def console(db: Path, workdir: Path, operator: str):
    from passgate.tui.app import make_app
    return make_app(db, workdir=workdir, operator=operator, poll_interval=0.3)


def select_run(app, run_id: str) -> None:
    table = app.screen.query_one("#runs", DataTable)
    table.move_cursor(row=table.get_row_index(run_id))


async def test_release_engineer_builds_launches_watches_and_reads_the_verdict(tmp_path):
    samples = realrun.write_samples(tmp_path)
    app = console(tmp_path / "passgate.db", tmp_path, "rel-eng")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "No runs yet" in screen_text(app)
        await pilot.press("n")
        wizard = app.screen
        wizard.query_one("#run-name", Input).value = "rc-check"
        wizard.query_one("#task-ids", Input).value = "HumanEval/0-4"
        await pilot.press("ctrl+n")
        wizard.query_one("#src-import").value = True
        wizard.query_one("#import-path", Input).value = str(samples)
        wizard.query_one("#model-name", Input).value = "journey-model"
        while wizard.step != "scoring":
            await pilot.press("ctrl+n")
            await pilot.pause()
            if wizard.step == "b-holdout":
                assert "make this run public-only" in screen_text(app)
                await pilot.press("ctrl+n")                                  # no justification yet: refused
                await pilot.pause()
                assert wizard.step == "b-holdout"
                wizard.query_one("#just-holdout", Input).value = "HumanEval is public: regression check"
        wizard.query_one("#policy").value = "public-benchmark"
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: wizard.frozen is not None, 60, "the manifest to freeze")
        await wait_for(pilot, lambda: "holdout public-only" in screen_text(app), 60, "what the gate will decide")
        text = screen_text(app)
        assert f"Manifest id {wizard.frozen.manifest_id}" in text and "needs a sign-off by a second person" in text
        assert "sha256: " in text                                           # pins in the frozen YAML
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert type(app.screen).__name__ == "LiveRunScreen"
        await wait_for(pilot, lambda: "humaneval" in screen_text(app), 60, "the slice bar")
        await wait_for(pilot, lambda: "completed" in screen_text(app), 180, "the run to complete")
        await settle(pilot)
        live = screen_text(app)
        assert "10/10" in live and "✓ 6" in live and "✗ 4" in live
        for cls in ("wrong_answer", "runtime_error", "syntax_error"):
            assert cls in live
        assert "sandbox:" in live and "containers" in live
        run_id = app.screen.run_id

        await pilot.press("enter")                                            # report
        await settle(pilot)
        report = screen_text(app)
        assert "pass@1" in report and "humaneval" in report
        await pilot.press("e")                                                # export for the release ticket
        await settle(pilot)
        assert list((tmp_path / "exports").glob(f"{run_id}*"))

        await pilot.press("v")                                                # verdict
        await settle(pilot)
        verdict = screen_text(app)
        assert "BLOCKED" in verdict and "risk medium" in verdict
        assert "no sign-off from a reviewer" in verdict                       # every reason, as a sentence
        await pilot.press("e")
        assert (tmp_path / "exports" / f"{run_id}-verdict.txt").read_text().startswith(f"passgate gate {run_id}")


async def test_security_reviewer_signs_off_a_relaxation(record_copy, tmp_path):
    db, run_id = record_copy
    app = console(db, tmp_path, "sec-reviewer")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        select_run(app, run_id)
        await pilot.press("b")
        await settle(pilot)
        text = screen_text(app)
        assert "holdout" in text and "unsigned" in text and "network_none" in text
        table = app.screen.query_one("#boundary-table", DataTable)
        table.move_cursor(row=table.get_row_index("holdout"))
        await pilot.pause()
        assert "HumanEval is public: a regression check" in screen_text(app)   # the justification
        await pilot.press("s")
        await pilot.pause()
        assert "Your approval covers exactly: holdout=public-only" in screen_text(app)
        app.screen.query_one("#statement", Input).value = "public benchmark, no release claim; checked"
        await pilot.click("#record")
        await settle(pilot)
        await wait_for(pilot, lambda: "signed" in str(table.get_row("holdout")[1]), 30, "the sign-off")
        assert "sec-reviewer" in screen_text(app)
        await pilot.press("escape", "v")
        await settle(pilot)
        verdict = screen_text(app)
        assert "no sign-off from a reviewer" not in verdict
        app.screen.query_one("#verdict-body").scroll_end(animate=False)
        await pilot.pause()
        assert "signed" in screen_text(app)
    from passgate.core.record.store import Store
    rows = Store(db).rows("signoffs", run_id)
    assert [(r["boundary"], r["reviewer"], r["decision"]) for r in rows] == [
        ("holdout=public-only", "sec-reviewer", "approved")]


async def test_on_call_inspects_a_failed_candidate_and_reruns_it(record_copy, tmp_path):
    db, run_id = record_copy
    app = console(db, tmp_path, "on-call")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        select_run(app, run_id)
        await pilot.press("i")
        await settle(pilot)
        text = screen_text(app)
        for cls in ("wrong_answer", "runtime_error", "syntax_error"):
            assert cls in text
        app.screen.query_one("#class-filter").value = "runtime_error"
        await settle(pilot)
        text = screen_text(app)
        assert "HumanEval/2 #1" in text and "return number / 0" in text       # the program, highlighted
        tabs = app.screen.query_one("#candidate-tabs")
        tabs.active = "tab-tests"
        await pilot.pause()
        assert "def check(candidate)" in screen_text(app)                      # the protected suite
        tabs.active = "tab-output"
        await pilot.pause()
        assert "ZeroDivisionError" in screen_text(app)
        attempts = app.screen.query_one("#attempts", DataTable)
        before = attempts.row_count
        assert before == 2                                                     # grade + rerun policy
        await pilot.press("x")                                                # asks first
        await pilot.pause()
        await pilot.press("y")
        await wait_for(pilot, lambda: attempts.row_count == before + 1, 120, "the rerun attempt")
        await settle(pilot)
        text = screen_text(app)
        assert "rerun" in text and "runtime_error" in text
        assert "failed runtime_error" in text                                  # the decided outcome is unchanged
    from passgate.core.record.store import Store, verify_chain
    store = Store(db)
    assert verify_chain(store, run_id) == []
    assert store.count("outcomes", run_id) == 10


async def test_on_call_cancels_a_run_and_resumes_it(tmp_path):
    manifest = realrun.frozen_manifest(tmp_path, name="cancel-me", workers=1)
    app = console(tmp_path / "passgate.db", tmp_path, "on-call")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        launch = app.launch("start", str(manifest))
        from passgate.tui.screens.live import LiveRunScreen
        await app.push_screen(LiveRunScreen(launch=launch))
        await pilot.press("c", "y")                                           # cancel during preflight (asks first)
        await wait_for(pilot, lambda: launch.done, 120, "the cancelled run to stop")
        await settle(pilot)
        assert "cancelled" in screen_text(app)
        assert _running_containers(launch.run_id) == []                       # cleaned up
        await pilot.press("r")
        await wait_for(pilot, lambda: "completed" in screen_text(app), 180, "the resumed run to complete")
        await settle(pilot)
        assert "10/10" in screen_text(app)


def _running_containers(run_id: str) -> list:
    from passgate.core.sandbox.docker_runner import docker_client
    return [c.name for c in docker_client().containers.list(all=True, filters={"label": f"passgate.run={run_id}"})]


async def test_release_engineer_opens_a_written_manifest_and_reviews_it_frozen(tmp_path):
    written = tmp_path / "written.yaml"
    written.write_text(realrun.manifest_text(realrun.write_samples(tmp_path), name="written"))
    app = console(tmp_path / "passgate.db", tmp_path, "rel-eng")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("o")
        app.screen.query_one("#path", Input).value = str(written)
        await pilot.press("enter")
        wizard = app.screen
        await wait_for(pilot, lambda: getattr(wizard, "frozen", None) is not None, 60, "the manifest to freeze")
        text = screen_text(app)
        assert f"Manifest id {wizard.frozen.manifest_id}" in text and "written.frozen.yaml" in text
        # the frozen copy goes to the console's working folder (here the same as the file's), in manifests/
        assert (tmp_path / "manifests" / "written.frozen.yaml").read_text().startswith("# frozen by passgate")
        assert not (tmp_path / "written.frozen.yaml").exists()
        assert written.read_text() == realrun.manifest_text(tmp_path / "samples.jsonl", name="written")  # untouched
        assert not app.screen.query_one("#launch").disabled
