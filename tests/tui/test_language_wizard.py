"""The new-run wizard offers the languages whose image is built, and a HumanEval-X set takes one."""

from __future__ import annotations

from textual.widgets import Input, Select

from tests.tui.conftest import settle


async def test_the_wizard_offers_built_languages_and_a_humaneval_x_set_carries_its_language(fixed_app, monkeypatch):
    import passgate.tui.screens.wizard as wizard_module
    monkeypatch.setattr(wizard_module, "languages_with_images", lambda: [("cpp", "C++"), ("js", "JavaScript")])
    async with fixed_app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        wizard = pilot.app.screen
        language = wizard.query_one("#language", Select)
        assert [value for _label, value in language._options if isinstance(value, str)] == ["cpp", "js"]
        wizard.query_one("#kind", Select).value = "humaneval-x"
        language.value = "js"
        wizard.query_one("#set-path", Input).value = "/data/humaneval_js.jsonl.gz"
        await pilot.pause()
        assert wizard._collect("tasks") == ""
        (task_set,) = wizard.state.to_dict()["tasks"]["sets"]
        assert task_set == {"kind": "humaneval-x", "path": "/data/humaneval_js.jsonl.gz", "language": "js"}
