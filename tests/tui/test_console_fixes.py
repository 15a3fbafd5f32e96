"""Pilot tests for what got in the way when the three users walked their journeys (issue 14), on the
fixed record plus a run on another task set. Each drives the real app by keys and reads the screen.
"""

from __future__ import annotations

import json

import pytest
from textual.widgets import DataTable, Input, OptionList

from passgate.core.record.store import Store
from tests.core import report_kit as kit
from tests.tui.conftest import screen_text, settle, wait_for
from tests.tui.fixture_db import ALTERED, BASELINE, INTERRUPTED, RUN

SIZE = (120, 40)
SMALL = (80, 24)
OTHER = "r20261201-080000-mbppxx"       # a run on another task set: never a baseline of RUN


VIOLATION_TASK = "HumanEval/5"
EVIDENCE = {"protected": {"line": 3, "source": "assert candidate(2, 3) == [2, 3]", "returned": "[2]"}}


def add_failures(store: Store) -> None:
    """HumanEval/5 (in every run's tasks) candidates in RUN: #0 a sandbox violation, #1 a wrong answer whose evidence names line and value."""
    from tests.tui.fixture_db import DIGEST
    for run_id in (RUN, BASELINE, INTERRUPTED, ALTERED):        # the four stay on one task set
        store.save_tasks(run_id, [{"task_id": VIOLATION_TASK, "position": 8, "slice": "humaneval",
                                   "set_id": "humaneval", "prompt": "def strlen(s):\n", "entry_point": "strlen",
                                   "public_tests": "", "cpu_limit_s": 3.0,
                                   "protected_tests": "def check(candidate):\n    assert candidate(1) == [1]\n"
                                                      "    assert candidate(2, 3) == [2, 3]\n"}])
    cases = ((0, "sandbox_violation", "runtime_error: OSError; attempted: connect to 93.184.216.34:80",
              '["connect to 93.184.216.34:80 blocked"]', None),
             (1, "wrong_answer", "assertion failed at line 3: assert candidate(2, 3) == [2, 3]; the candidate "
                                 "returned [2]", "[]", EVIDENCE))
    for index, cls, detail, violations, evidence in cases:
        prog = f"def strlen(*args):\n    return [{index}]\n"
        store.append("candidates", [{"run_id": RUN, "task_id": VIOLATION_TASK, "candidate_index": index,
                                     "raw_text": prog, "processed_text": prog, "program": prog,
                                     "program_sha256": f"v{index}", "source": "import", "gen_status": "ok"}])
        store.append("executions", [{"run_id": RUN, "task_id": VIOLATION_TASK, "candidate_index": index,
                                     "attempt": 1, "purpose": "grade", "status": "ok", "public_status": "not_run",
                                     "protected_status": "failed", "failure_class": cls, "detail": detail,
                                     "violations_json": violations, "runtime": "runsc", "image_digest": DIGEST,
                                     "evidence_json": json.dumps(evidence) if evidence else None}])
        store.append("outcomes", [{"run_id": RUN, "task_id": VIOLATION_TASK, "candidate_index": index,
                                   "outcome": "failed", "failure_class": cls, "protected_passed": 0,
                                   "attempts": 1, "reason": ""}])


@pytest.fixture
def mixed_app(fixed_db):
    store = Store(fixed_db)
    kit.record(store, OTHER, [kit.TaskSpec("Mbpp/2", "mbpp"), kit.TaskSpec("Mbpp/3", "mbpp")],
               [kit.Cand("Mbpp/2", 0, "passed"), kit.Cand("Mbpp/3", 0, "passed")])
    add_failures(store)
    store.close()
    from passgate.tui.app import make_app
    return make_app(fixed_db, workdir=".", operator="rel-eng", poll_interval=3600)


def select_run(app, run_id: str) -> None:
    table = app.screen.query_one("#runs", DataTable)
    table.move_cursor(row=table.get_row_index(run_id))


# ---- 1. the baseline picker ---------------------------------------------------------------------
async def test_the_baseline_picker_lists_only_runs_on_the_same_task_set(mixed_app):
    async with mixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        select_run(mixed_app, RUN)
        await pilot.press("v")
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        options = mixed_app.screen.query_one("#runs", OptionList)
        ids = [options.get_option_at_index(i).id for i in range(options.option_count)]
        assert OTHER not in ids and BASELINE in ids and INTERRUPTED in ids
        assert "1 other run is on another task set" in screen_text(mixed_app)


async def test_a_bad_baseline_is_dropped_once_and_the_screen_can_be_left(mixed_app):
    from passgate.tui.screens.verdict import VerdictScreen
    async with mixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await mixed_app.push_screen(VerdictScreen(RUN, baseline=OTHER))
        await settle(pilot, rounds=5)
        screen = mixed_app.screen
        assert isinstance(screen, VerdictScreen) and screen.baseline is None and screen.verdict is not None
        assert "baseline —" in screen_text(mixed_app)
        await pilot.press("escape")
        await settle(pilot)
        assert mixed_app.screen.__class__.__name__ == "RunsScreen"


async def test_a_chosen_baseline_can_be_cleared_from_the_picker(mixed_app):
    async with mixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        select_run(mixed_app, RUN)
        await pilot.press("v")
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        options = mixed_app.screen.query_one("#runs", OptionList)
        ids = [options.get_option_at_index(i).id for i in range(options.option_count)]
        options.highlighted = ids.index(BASELINE)
        await pilot.press("enter")
        await settle(pilot, rounds=5)
        assert f"baseline {BASELINE}" in screen_text(mixed_app)
        await pilot.press("a")
        await settle(pilot)
        mixed_app.screen.query_one("#runs", OptionList).highlighted = 0      # no baseline
        await pilot.press("enter")
        await settle(pilot, rounds=5)
        assert "baseline —" in screen_text(mixed_app)


# ---- 3. the failures screen ---------------------------------------------------------------------
def _number_of(app, name: str) -> str:
    """The key the class bar shows in front of a class."""
    bar = str(app.screen.query_one("#class-bar").render())
    before = bar.split(f" {name} ")[0]
    return before.split()[-1]


async def test_failures_open_focused_on_the_list_and_a_violation_is_three_keys_from_the_run(mixed_app):
    async with mixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        select_run(mixed_app, RUN)
        await pilot.press("i")                                           # key 1
        await settle(pilot)
        assert mixed_app.screen.focused is mixed_app.screen.query_one("#failures", DataTable)
        assert "sandbox_violation 1" in screen_text(mixed_app)            # full name, with its count
        await pilot.press(_number_of(mixed_app, "sandbox_violation"))    # key 2
        await settle(pilot)
        await pilot.press("o")                                           # key 3: the Output tab
        await settle(pilot)
        text = screen_text(mixed_app)
        assert f"{VIOLATION_TASK} #0" in text and "connect to 93.184.216.34:80 blocked" in text


async def test_the_detail_shows_the_failing_line_and_the_returned_value(mixed_app):
    async with mixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        select_run(mixed_app, RUN)
        await pilot.press("i")
        await settle(pilot)
        mixed_app.screen.query_one("#fsearch", Input).value = VIOLATION_TASK
        await settle(pilot)
        await pilot.press("down", "o")
        await settle(pilot)
        text = screen_text(mixed_app)
        assert "Failing line (protected tests): line 3: assert candidate(2," in text
        assert "Returned (protected tests): [2]" in text


async def test_the_attempts_tab_says_what_each_attempt_decided(mixed_app):
    async with mixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        select_run(mixed_app, RUN)
        await pilot.press("i")
        await settle(pilot)
        await pilot.press(_number_of(mixed_app, "sandbox_violation"), "a")
        await settle(pilot)
        attempts = mixed_app.screen.query_one("#attempts", DataTable)
        assert [str(c) for c in attempts.get_row_at(0)[2:4]] == ["failed", "sandbox_violation"]


async def test_tries_in_the_list_and_attempts_in_the_header_count_the_same_attempts(mixed_app, fixed_db):
    store = Store(fixed_db)                          # a rerun recorded since: a fourth attempt of a flaky one
    store.append("executions", [{"run_id": RUN, "task_id": "13", "candidate_index": 0, "attempt": 3,
                                 "purpose": "rerun", "status": "ok", "protected_status": "failed",
                                 "failure_class": "wrong_answer", "detail": "rerun"}])
    store.close()
    async with mixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        select_run(mixed_app, RUN)
        await pilot.press("i")
        await settle(pilot)
        await pilot.press(_number_of(mixed_app, "flaky"))
        await settle(pilot)
        table = mixed_app.screen.query_one("#failures", DataTable)
        assert str(table.get_row_at(0)[3]) == "3" and "attempts 3" in screen_text(mixed_app)


async def test_the_live_screens_class_table_opens_the_list_of_a_class(fixed_app):
    from passgate.tui.screens.inspector import InspectorScreen
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        select_run(fixed_app, INTERRUPTED)
        await pilot.press("l")
        await settle(pilot)
        first = next(iter(fixed_app.screen.snapshot.classes))
        await pilot.press("1")
        await settle(pilot)
        assert isinstance(fixed_app.screen, InspectorScreen)
        assert fixed_app.screen.query_one("#class-filter").value == first


# ---- 4. the verdict says what a release needs ---------------------------------------------------
async def test_the_verdict_lists_what_a_release_needs_with_keys_not_commands(fixed_app):
    async with fixed_app.run_test(size=(120, 200)) as pilot:
        await settle(pilot)
        select_run(fixed_app, RUN)
        await pilot.press("v")
        await settle(pilot)
        text = screen_text(fixed_app)
        assert "To release, you need:" in text and "b, then s on rerun_stability" in text
        assert "passgate signoff" not in text
        # why the boundary counts as relaxed, not only that it does
        assert "rerun_stability is not-required: execution.reruns: none (needs failures or all, at least 2 attempts)" in text


def test_contamination_findings_are_listed_not_only_counted(fixed_db):
    import dataclasses
    import io

    from rich.console import Console

    from passgate.core.gate import evaluate
    from passgate.core.gate.facts import Finding
    from passgate.tui.screens.verdict import verdict_renderable
    v = evaluate(Store(fixed_db), RUN)
    found = tuple(Finding(f"HumanEval/{i}", "humaneval", "exposed", "candidate_reproduces_reference", 0.9, 9, 10,
                          "2 of 2 distinct programs reproduce the reference") for i in range(3))
    v = dataclasses.replace(v, contamination=dataclasses.replace(v.contamination, findings=found))
    console = Console(width=120, file=io.StringIO(), record=True)
    console.print(verdict_renderable(v))
    text = console.export_text()
    assert "3 findings" in text
    assert all(f"HumanEval/{i}" in text for i in range(3)) and "candidate_reproduces_reference" in text


# ---- 5. sign-off ---------------------------------------------------------------------------------
async def _open_signoff(app, pilot):
    select_run(app, RUN)
    await pilot.press("b")
    await settle(pilot)
    table = app.screen.query_one("#boundary-table", DataTable)
    table.move_cursor(row=table.get_row_index("rerun_stability"))          # unsigned
    await pilot.press("s")
    await settle(pilot)


async def test_the_signoff_dialog_does_not_offer_the_operator_as_reviewer(fixed_app):
    async with fixed_app.run_test(size=SIZE) as pilot:          # the console's user is the run's operator
        await settle(pilot)
        await _open_signoff(fixed_app, pilot)
        assert fixed_app.screen.query_one("#reviewer", Input).value == ""
        assert "not the run's operator, rel-eng" in screen_text(fixed_app)


async def test_a_refused_signoff_keeps_its_statement(fixed_app):
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _open_signoff(fixed_app, pilot)
        dialog = fixed_app.screen
        dialog.query_one("#reviewer", Input).value = "rel-eng"
        dialog.query_one("#statement", Input).value = "reruns are off for speed; flaky rate checked by hand"
        await pilot.click("#record")
        await settle(pilot)
        assert fixed_app.screen is dialog and "needs a second person" in screen_text(fixed_app)
        assert dialog.query_one("#statement", Input).value == "reruns are off for speed; flaky rate checked by hand"
        dialog.query_one("#reviewer", Input).value = "sec-2"
        await pilot.pause(0.5)          # a button ignores clicks while it shows the last press
        await pilot.click("#record")
        await wait_for(pilot, lambda: fixed_app.screen is not dialog and "signed" in str(
            fixed_app.screen.query_one("#boundary-table", DataTable).get_row("rerun_stability")[1]), 60, "the sign-off")


async def test_a_signoff_the_record_refuses_comes_back_with_what_was_typed(fixed_app, monkeypatch):
    from passgate.core.errors import PassgateError
    from passgate.tui.screens import boundaries

    def refuse(*_args):
        raise PassgateError("the record refused it", title="sign-off refused")
    monkeypatch.setattr(boundaries, "record_signoff", refuse)
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _open_signoff(fixed_app, pilot)
        fixed_app.screen.query_one("#reviewer", Input).value = "sec-2"
        fixed_app.screen.query_one("#statement", Input).value = "checked the flaky list"
        await pilot.click("#record")
        await settle(pilot)
        assert fixed_app.screen.query_one("#statement", Input).value == "checked the flaky list"
        assert "the record refused it" in screen_text(fixed_app)


# ---- 8. confirmations -------------------------------------------------------------------------------
async def test_rerun_asks_first_and_escape_keeps_the_record(fixed_app, fixed_db):
    from passgate.tui.screens.dialogs import ConfirmScreen
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        select_run(fixed_app, RUN)
        await pilot.press("i")
        await settle(pilot)
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(fixed_app.screen, ConfirmScreen) and "Rerun" in screen_text(fixed_app)
        await pilot.press("escape")
        await settle(pilot)
        assert not fixed_app.screen.rerunning
    rows = Store(fixed_db).query("SELECT COUNT(*) AS n FROM executions WHERE purpose = 'rerun' AND run_id = ?", [RUN])
    assert next(iter(rows))["n"] == 1                                   # only the fixture's own re-check


async def test_escape_in_the_wizard_asks_before_discarding(fixed_app):
    from passgate.tui.screens.dialogs import ConfirmScreen
    from passgate.tui.screens.wizard import WizardScreen
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await pilot.pause()
        fixed_app.screen.query_one("#run-name", Input).value = "half-typed"
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(fixed_app.screen, ConfirmScreen)
        await pilot.press("escape")                                     # no: back to the wizard, as it was
        await pilot.pause()
        assert isinstance(fixed_app.screen, WizardScreen)
        assert fixed_app.screen.query_one("#run-name", Input).value == "half-typed"
        await pilot.press("escape", "y")
        await pilot.pause()
        assert fixed_app.screen.__class__.__name__ == "RunsScreen"


async def test_cancelling_a_run_asks_first(fixed_app):
    import threading

    from passgate.tui.app import Launch
    from passgate.tui.screens.dialogs import ConfirmScreen
    from passgate.tui.screens.live import LiveRunScreen
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        launch = Launch(99, "resume", INTERRUPTED, threading.Event(), run_id=INTERRUPTED)
        fixed_app.launches[99] = launch                                  # a run this console is running
        await fixed_app.push_screen(LiveRunScreen(run_id=INTERRUPTED, launch=launch))
        await settle(pilot)
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(fixed_app.screen, ConfirmScreen) and not launch.cancel.is_set()
        await pilot.press("y")
        await pilot.pause()
        assert launch.cancel.is_set()
        launch.done = True


# ---- 6. 80x24 ------------------------------------------------------------------------------------
async def test_the_runs_list_at_80_columns_keeps_pass_at_1_verdict_operator_and_decided(fixed_app):
    async with fixed_app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        text = screen_text(fixed_app)
        for heading in ("pass@1", "verdict", "operator"):
            assert heading in text
        assert "0.625" in text and "9/16 decided" in text       # the highlighted run's line under the list
        select_run(fixed_app, RUN)
        await pilot.pause()
        assert "16/16 decided" in screen_text(fixed_app)


async def test_the_failures_screen_at_80_columns_gives_the_candidate_the_width(fixed_app):
    async with fixed_app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        select_run(fixed_app, RUN)
        await pilot.press("i")
        await settle(pilot)
        assert fixed_app.screen.query_one("#candidate-pane").size.width >= 70
        assert "Attempts a" in screen_text(fixed_app)
        await pilot.press("a")
        await settle(pilot)
        assert "result" in screen_text(fixed_app)


async def test_the_wizard_at_80_columns_keeps_its_step_list_narrow_and_its_buttons_whole(fixed_app):
    async with fixed_app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        assert fixed_app.screen.query_one("#steps").size.width <= 22
        text = screen_text(fixed_app)
        assert "Next" in text and "Back" in text and "Launch" in text


# ---- 9. the wizard ---------------------------------------------------------------------------------
async def test_the_wizard_offers_only_settings_the_runner_can_run(fixed_app):
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await pilot.pause()
        wizard = fixed_app.screen
        assert not wizard.query("#set-network-open") and not wizard.query("#set-network-egress-allowlist")
        while wizard.step != "b-network":
            await pilot.press("ctrl+n")
            await pilot.pause()
        assert "Not offered: egress-allowlist, open" in screen_text(fixed_app)


async def test_the_task_ids_field_starts_empty_and_says_empty_means_every_task(fixed_app):
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await pilot.pause()
        field = fixed_app.screen.query_one("#task-ids", Input)
        assert field.value == "" and "every task" in field.placeholder and "HumanEval/" not in field.placeholder


async def test_the_samples_path_is_checked_as_it_is_typed(fixed_app, tmp_path):
    samples = tmp_path / "s.jsonl"
    samples.write_text('{"task_id": "HumanEval/0", "completion": "    return 1\\n"}\n')
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("n", "ctrl+n")
        await pilot.pause()
        wizard = fixed_app.screen
        wizard.query_one("#import-path", Input).value = str(tmp_path / "missing.jsonl")
        await pilot.pause()
        assert "No file at" in screen_text(fixed_app)
        wizard.query_one("#import-path", Input).value = str(samples)
        await pilot.pause()
        assert "1 sample line" in screen_text(fixed_app)


# ---- help, palette, zoom ---------------------------------------------------------------------------
async def test_help_lists_the_keys_of_the_screen_it_was_opened_on(fixed_app):
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        select_run(fixed_app, RUN)
        await pilot.press("i")
        await settle(pilot)
        await pilot.press("f1")
        await pilot.pause()
        text = screen_text(fixed_app)
        assert "Keys of this screen" in text and "Rerun task" in text and "list one class" in text


async def test_z_maximises_the_focused_pane_and_puts_it_back(fixed_app):
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        select_run(fixed_app, RUN)
        await pilot.press("i")
        await settle(pilot)
        await pilot.press("z")
        await pilot.pause()
        assert fixed_app.screen.maximized is fixed_app.screen.query_one("#failures")
        await pilot.press("z")
        await pilot.pause()
        assert fixed_app.screen.maximized is None


async def test_the_palette_offers_every_run(fixed_app):
    from passgate.tui.commands import console_commands
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        titles = [c.title for c in console_commands(fixed_app, fixed_app.screen)]
        for run_id in (RUN, BASELINE, INTERRUPTED):
            assert any(run_id in t for t in titles)
        command = next(c for c in console_commands(fixed_app, fixed_app.screen) if BASELINE in c.title)
        command.callback()
        await settle(pilot)
        assert fixed_app.screen.__class__.__name__ == "ReportScreen" and fixed_app.screen.run_id == BASELINE
