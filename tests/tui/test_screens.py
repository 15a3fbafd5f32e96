"""Each screen on the fixed record, driven by keys, asserting on what the screen shows.

Fast (no sandbox): the journeys against the real runner are in test_journeys.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Select

from tests.tui.conftest import keys, screen_text, settle, wait_for
from tests.tui.fixture_db import BASELINE, INTERRUPTED, MANIFEST_ID, RUN

REPO = Path(__file__).resolve().parents[2]

SIZE = (120, 40)


async def test_runs_list_shows_status_model_manifest_pass_at_1_and_verdict(fixed_app):
    async with fixed_app.run_test(size=(150, 40)) as pilot:       # every column: the manifest id is last
        await settle(pilot)
        text = screen_text(fixed_app)
        for run_id in (RUN, BASELINE, INTERRUPTED):
            assert run_id in text
        assert "interrupted" in text and "fixture-model" in text and MANIFEST_ID in text
        assert "0.625" in text and "0.875" in text          # pass@1 of the two completed runs
        assert "canary" in text or "blocked" in text or "release" in text


async def test_search_and_status_filter_narrow_the_runs_list(fixed_app):
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"ccccc")
        await pilot.pause()
        table = fixed_app.screen.query_one("#runs", DataTable)
        assert table.row_count == 1 and INTERRUPTED in screen_text(fixed_app)
        fixed_app.screen.query_one("#search", Input).value = ""
        fixed_app.screen.query_one("#status").value = "completed"
        await pilot.pause()
        assert table.row_count == 3 and "3 of 4 runs" in screen_text(fixed_app)


async def test_inspector_lists_failures_by_class_and_opens_a_candidate_with_every_attempt(fixed_app):
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down", "i")                    # the completed run
        classes = ("wrong_answer", "timeout", "runtime_error", "evaluator error", "excluded", "flaky")
        # the list fills in from a thread worker; on a busy machine that can take more than a few frames
        await wait_for(pilot, lambda: all(c in screen_text(fixed_app) for c in classes),
                       timeout=30, what=f"every class on the failures screen: {classes}")
        fixed_app.screen.query_one("#class-filter").value = "timeout"
        await settle(pilot)
        table = fixed_app.screen.query_one("#failures", DataTable)
        assert table.row_count == 1
        table.focus()
        await pilot.press("down", "up")
        await settle(pilot)
        text = screen_text(fixed_app)
        assert "HumanEval/3 #1" in text and "def below_zero" in text
        await pilot.press("tab")
        fixed_app.screen.query_one("#candidate-tabs").active = "tab-attempts"
        await pilot.pause()
        assert "grade" in screen_text(fixed_app)


async def test_infra_failures_are_listed_apart_from_model_failures(fixed_app):
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down", "i")
        await settle(pilot)
        fixed_app.screen.query_one("#show").value = "infra"
        await settle(pilot)
        rows = fixed_app.screen.query_one("#failures", DataTable)
        outcomes = {str(rows.get_row_at(i)[2]) for i in range(rows.row_count)}
        assert outcomes == {"evaluator error", "excluded"}       # infra_error, in words


async def test_verdict_screen_states_consequence_risk_evidence_and_reasons(fixed_app):
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down", "v")
        await settle(pilot)
        text = screen_text(fixed_app)
        assert "risk" in text and "evidence" in text and "Reasons" in text
        assert "Execution path" in text
        await pilot.press("a")                            # choose a baseline
        await settle(pilot)
        await pilot.press("down", "down", "enter")        # no baseline, then the two other runs; pick the baseline
        await settle(pilot)
        assert f"baseline {BASELINE}" in screen_text(fixed_app)
        body, seen = fixed_app.screen.query_one("#verdict-body"), []
        for _ in range(12):                                   # page down to the end, reading every screen
            seen.append(screen_text(fixed_app))
            body.scroll_page_down(animate=False)
            await pilot.pause()
        seen.append(screen_text(fixed_app))
        assert any(f"Alerts against baseline {BASELINE}" in text for text in seen)
        assert "latency p90 rise" in seen[-1]                 # the last alert is reached


async def test_boundary_review_shows_every_boundary_relaxations_and_preflight_evidence(fixed_app):
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down", "b")
        await settle(pilot)
        text = screen_text(fixed_app)
        for boundary in ("network", "mounts", "dependencies", "runtime", "protected_tests", "rerun_stability",
                         "holdout"):
            assert boundary in text
        assert "unsigned" in text and "signed" in text
        assert "network_none" in text and "only_loopback_interface" in text     # preflight and self-probe


async def test_the_operator_cannot_sign_off_their_own_relaxation(fixed_app):
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down", "b")
        await settle(pilot)
        table = fixed_app.screen.query_one("#boundary-table", DataTable)
        table.move_cursor(row=5)                          # rerun_stability: unsigned
        await pilot.press("s")
        await pilot.pause()
        screen = fixed_app.screen
        screen.query_one("#reviewer", Input).value = "rel-eng"      # the run's operator
        screen.query_one("#statement", Input).value = "looks fine to me"
        await pilot.click("#record")
        await settle(pilot)
        assert "operator" in screen_text(fixed_app)       # refused in the dialog, which keeps what was typed
        await pilot.press("escape")
        await settle(pilot)
        assert "unsigned" in screen_text(fixed_app)


async def test_wizard_refuses_a_relaxed_boundary_without_a_justification(fixed_app):
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await pilot.pause()
        wizard = fixed_app.screen
        for _ in range(5):                                # tasks, candidates, network, mounts, dependencies
            await pilot.press("ctrl+n")
        await pilot.pause()
        assert wizard.step == "b-runtime"
        wizard.query_one("#set-runtime-runc").value = True
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert wizard.step == "b-runtime"
        assert "write the justification" in screen_text(fixed_app)
        wizard.query_one("#just-runtime", Input).value = "kernel feature gVisor lacks"
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert wizard.step == "b-protected_tests"
        assert wizard.state.to_dict()["gate"]["relaxations"] == [
            {"boundary": "runtime", "setting": "runc", "justification": "kernel feature gVisor lacks"}]
        assert wizard.state.to_dict()["execution"]["runtime"] == "runc"


async def test_wizard_types_into_the_justification_when_the_task_sets_imply_a_relaxation(fixed_app):
    """Keystrokes on a step whose setting is implied go to its justification, on every visit: a focus
    that lands on the settings instead swallows what the operator types."""
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await keys(pilot, "n")
        wizard = fixed_app.screen
        await keys(pilot, "ctrl+n", times=8)              # tasks, candidates, six boundaries up to holdout
        assert wizard.step == "b-holdout"
        assert wizard.state.implied("holdout") == "public-only"
        await keys(pilot, *"demo")
        assert wizard.query_one("#just-holdout", Input).value == "demo"
        await keys(pilot, "ctrl+b", "ctrl+n")             # back a step and forward again
        assert wizard.step == "b-holdout"
        await keys(pilot, *" run")
        assert wizard.query_one("#just-holdout", Input).value == "demo run"
        await keys(pilot, "ctrl+n")                       # past the step (its setting is saved), then back
        assert wizard.step == "scoring"
        await keys(pilot, "ctrl+b")
        assert wizard.step == "b-holdout"
        await keys(pilot, *" only")
        assert wizard.query_one("#just-holdout", Input).value == "demo run only"
        assert wizard.query_one("#set-holdout-public-only").value


async def test_wizard_drops_the_implied_setting_when_a_product_holdout_set_replaces_the_benchmark(fixed_app):
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await keys(pilot, "n")
        wizard = fixed_app.screen
        await keys(pilot, "ctrl+n", times=8)
        assert wizard.step == "b-holdout" and "make this run public-only" in screen_text(fixed_app)
        await keys(pilot, "ctrl+b", times=8)              # back to the task sets
        assert wizard.step == "tasks"
        wizard.query_one("#kind", Select).value = "product"
        wizard.query_one("#set-path", Input).value = str(REPO / "examples" / "product-tasks.jsonl")
        wizard.query_one("#task-ids", Input).value = ""
        await keys(pilot, "ctrl+n", times=8)
        assert wizard.step == "b-holdout"
        assert wizard.state.implied("holdout") is None
        assert "make this run public-only" not in screen_text(fixed_app)
        assert fixed_app.focused is not wizard.query_one("#just-holdout", Input)


async def test_wizard_scoring_step_reports_the_manifest_loaders_error(fixed_app):
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("n")
        wizard = fixed_app.screen
        while wizard.step != "scoring":
            if wizard.step.startswith("b-") and wizard.state.implied(wizard.step[2:]):
                wizard.query_one(f"#just-{wizard.step[2:]}", Input).value = "public benchmark"
            await pilot.press("ctrl+n")
            await pilot.pause()
        wizard.query_one("#k", Input).value = "0"
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert wizard.step == "scoring"
        assert "k values must be positive integers" in screen_text(fixed_app)


async def test_live_screen_follows_a_run_through_the_record(fixed_app):
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("l")                            # the interrupted run is first
        await settle(pilot)
        text = screen_text(fixed_app)
        assert "humaneval" in text and "mbpp" in text and "9/16" in text
        assert "wrong_answer" in text and "Recent failures" in text
        assert "sandbox:" in text and "peak memory" in text


async def test_help_theme_and_command_palette(fixed_app):
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await pilot.pause()
        assert "headless equivalent" in screen_text(fixed_app)
        await pilot.press("escape")
        dark = fixed_app.theme
        await pilot.press("ctrl+t")
        assert fixed_app.theme != dark
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"new run")
        await pilot.pause(0.5)
        assert "New run" in screen_text(fixed_app)
        await pilot.press("enter")
        await pilot.pause()
        assert type(fixed_app.screen).__name__ == "WizardScreen"


@pytest.mark.parametrize("key, screen", [("enter", "ReportScreen"), ("c", "CompareScreen"), ("o", "PathScreen")])
async def test_runs_keys_open_their_screens(fixed_app, key, screen):
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(key)
        await settle(pilot)
        assert screen in {type(s).__name__ for s in fixed_app.screen_stack}
