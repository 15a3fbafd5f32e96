"""The wizard's allowed-imports field: what is typed reaches the manifest through its loader."""

from __future__ import annotations

import pytest

from passgate.core.errors import ConfigError
from passgate.tui.wizard_model import TaskSetChoice, WizardState


def test_an_empty_field_keeps_the_kinds_default_and_a_list_reaches_the_manifest():
    state = WizardState(sets=[TaskSetChoice(kind="humaneval"), TaskSetChoice(kind="product", path="p.jsonl")])
    assert [s.imports_words() for s in state.sets] == ["stdlib", "any"]
    assert "allowed_imports" not in state.yaml_text()
    state.sets[0].allowed_imports = "numpy, stdlib"
    assert state.sets[0].imports_words() == "stdlib, numpy"
    assert state.manifest().tasks.sets[0].imports == ("stdlib", "numpy")


def test_a_bad_value_is_refused_with_the_loaders_sentence():
    state = WizardState(sets=[TaskSetChoice(kind="humaneval", allowed_imports="any, numpy")])
    with pytest.raises(ConfigError, match="stands alone"):
        state.manifest()


@pytest.mark.docker
async def test_the_field_reaches_the_frozen_manifest_and_the_review(tmp_path):
    """Typed on the task-set step, read back at Review: `Frozen.imports` and the summary's Allowed imports."""
    from textual.widgets import Input

    from passgate.tui.app import make_app
    from tests.tui.conftest import screen_text, settle, wait_for
    app = make_app(tmp_path / "passgate.db", workdir=tmp_path, operator="rel-eng", poll_interval=0.3)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        wizard = app.screen
        wizard.query_one("#task-ids", Input).value = "HumanEval/0-1"
        wizard.query_one("#allowed-imports", Input).value = "numpy, stdlib"
        while wizard.step != "review":
            step = wizard.step
            await pilot.press("ctrl+n")
            await pilot.pause()
            if wizard.step == step and step.startswith("b-"):         # implied by the task sets: justify it
                wizard.query_one(f"#just-{step[2:]}", Input).value = "public benchmark regression check"
        await wait_for(pilot, lambda: wizard.frozen is not None, 60, "the manifest to freeze")
        assert wizard.frozen.imports == (("humaneval", "stdlib, numpy"),)
        assert "allowed_imports" in wizard.frozen.yaml_text
        await wait_for(pilot, lambda: "Allowed imports" in screen_text(app), 60, "the review summary")
        assert "humaneval: stdlib, numpy" in screen_text(app)
