"""Keys typed as soon as a wizard step appears go where they were typed: a step's Show is handled after
the step was drawn, so on a busy machine it can arrive after the tab that moved to the next field, or
after ctrl+n already went on to the next step. A late Show never takes the focus back."""

from __future__ import annotations

from textual.widgets import Input

from tests.tui.conftest import settle


async def test_a_late_show_leaves_the_field_the_keys_moved_to(fixed_app):
    async with fixed_app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        wizard = fixed_app.screen
        page = wizard.query_one("#tasks")
        assert fixed_app.focused is wizard.query_one("#run-name", Input)
        await pilot.press("tab", "tab", "tab")                    # run name → task set → dataset file → task ids
        await pilot.pause()
        assert fixed_app.focused is wizard.query_one("#task-ids", Input)
        page.on_show()                                            # the step's Show, handled only now
        await pilot.pause()
        assert fixed_app.focused is wizard.query_one("#task-ids", Input)


async def test_a_show_for_a_step_already_left_takes_nothing(fixed_app):
    async with fixed_app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        wizard = fixed_app.screen
        await pilot.press("ctrl+n")                               # candidates
        await settle(pilot)
        focused = fixed_app.focused
        assert focused is not None and wizard.query_one("#candidates") in focused.ancestors
        wizard.query_one("#tasks").on_show()                      # the first step's Show, late
        await pilot.pause()
        assert fixed_app.focused is focused


async def test_a_tab_right_after_ctrl_n_moves_from_the_steps_first_field(fixed_app):
    """ctrl+n and tab in one go, with no Show handled between them: the tab leaves the new step's first
    field for its second (it used to go from nothing to the step list)."""
    async with fixed_app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        wizard = fixed_app.screen
        wizard.action_next()                                      # to Candidates, as ctrl+n does ...
        assert wizard.step == "candidates" and fixed_app.focused is wizard.query_one("#source")
        await pilot.press("tab")                                  # ... and the tab typed with it
        await pilot.pause()
        assert fixed_app.focused is wizard.query_one("#model-name", Input)


def type_ahead(app, *keys: str) -> None:
    """Keys that arrive together (a busy machine reads them in one go): all queued before any is handled."""
    from textual import events
    for key in keys:
        char = {"tab": "\t", "ctrl+n": None}.get(key, key if len(key) == 1 else None)
        app.post_message(events.Key(key, char))


async def test_text_typed_ahead_after_tabs_goes_to_the_field_the_tabs_reached(fixed_app):
    async with fixed_app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        wizard = fixed_app.screen
        type_ahead(fixed_app, "tab", "tab", "tab", *"HumanEval/0-2")
        await settle(pilot)
        assert wizard.query_one("#task-ids", Input).value == "HumanEval/0-2"
        assert wizard.query_one("#run-name", Input).value == "console-run"


async def test_a_tab_typed_ahead_after_ctrl_n_moves_in_the_new_step(fixed_app):
    async with fixed_app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        wizard = fixed_app.screen
        type_ahead(fixed_app, "ctrl+n", "tab", *"gpt")           # candidates: source → model name
        await settle(pilot)
        assert wizard.step == "candidates"
        assert wizard.query_one("#model-name", Input).value == "gpt"
        assert wizard.query_one("#run-name", Input).value == "console-run"
