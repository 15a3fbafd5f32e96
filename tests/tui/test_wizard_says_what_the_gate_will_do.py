"""The new-run wizard says before launch what the gate will decide (issue 24, item 3): a HumanEval-only
run under secure-default is blocked whatever it measures, public-benchmark is offered in its place,
policies the runner cannot honour are not offered, an opened manifest is frozen into the console's
working folder and never called "every boundary at its secure default" when the gate blocks it."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, OptionList, Select

from tests.tui.conftest import screen_text, settle, wait_for

REPO = Path(__file__).resolve().parents[2]
SMALL = (80, 24)


def flat(app) -> str:
    """The screen's words in one line: a sentence wrapped at the pane's edge reads whole."""
    return " ".join(screen_text(app).replace("▊", " ").replace("▎", " ").split())


async def to_step(app, pilot, step: str, task_ids: str = "") -> object:
    """Open the wizard and walk it to `step`, justifying the holdout the task sets imply."""
    await pilot.press("n")
    await settle(pilot)
    wizard = app.screen
    wizard.query_one("#task-ids", Input).value = task_ids
    while wizard.step != step:
        if wizard.step == "b-holdout":
            wizard.query_one("#just-holdout", Input).value = "HumanEval is public: a regression check"
        await pilot.press("ctrl+n")
        await pilot.pause()
    await settle(pilot)
    return wizard


async def test_the_first_step_shows_its_labels_and_the_step_list_one_line_a_step(fixed_app):
    async with fixed_app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        text = screen_text(fixed_app)
        assert "Run name" in text
        steps = fixed_app.screen.query_one("#steps", OptionList)
        assert steps.get_option("b-holdout").prompt == "▸ Holdout" and "cleanliness" not in text


async def test_the_policy_list_offers_only_what_the_runner_can_run_and_says_why(fixed_app):
    async with fixed_app.run_test(size=(120, 60)) as pilot:
        await settle(pilot)
        wizard = await to_step(fixed_app, pilot, "scoring")
        offered = [value for _, value in wizard.query_one("#policy", Select)._options if value]
        assert "product-egress-mirror" not in offered and {"secure-default", "public-benchmark"} <= set(offered)
        text = screen_text(fixed_app)
        assert "Not offered: product-egress-mirror (it relaxes network to egress-allowlist" in text
        assert "Pinned gVisor sandbox with no network" in text                 # secure-default's description


async def test_scoring_says_the_run_is_blocked_under_secure_default_whatever_it_measures(fixed_app):
    async with fixed_app.run_test(size=(120, 60)) as pilot:
        await settle(pilot)
        await to_step(fixed_app, pilot, "scoring")
        await wait_for(pilot, lambda: "whatever it measures" in screen_text(fixed_app), 30, "the gate's prospect")
        text = flat(fixed_app)
        assert "Under secure-default (this manifest's policy): BLOCKED whatever it measures" in text
        assert "Holdout: this run uses public-only, which policy secure-default does not allow" in text
        fixed_app.screen.query_one("#policy", Select).value = "public-benchmark"
        await wait_for(pilot, lambda: "CANARY at best" in screen_text(fixed_app), 30, "public-benchmark's prospect")
        assert "once a reviewer other than you (rel-eng) signs off holdout=public-only" in flat(fixed_app)


@pytest.mark.docker
async def test_review_offers_a_policy_the_run_can_pass_and_p_freezes_it_under_that_policy(fixed_app):
    async with fixed_app.run_test(size=(120, 60)) as pilot:
        await settle(pilot)
        wizard = await to_step(fixed_app, pilot, "review")
        await wait_for(pilot, lambda: wizard.better == "public-benchmark", 120, "the review's prospects")
        text = flat(fixed_app)
        assert "BLOCKED whatever it measures" in text and "p: gate this run under public-benchmark instead" in text
        assert "every boundary at its secure default" not in text
        await pilot.press("p")
        await wait_for(pilot, lambda: wizard.frozen is not None and wizard.frozen.policy == "public-benchmark",
                       120, "the manifest frozen under public-benchmark")
        assert "policy: public-benchmark" in Path(wizard.frozen.path).read_text()


@pytest.mark.docker
async def test_an_opened_manifest_is_frozen_in_the_working_folder_and_judged_honestly(fixed_app, tmp_path):
    opened = tmp_path / "elsewhere" / "gpt35.yaml"
    opened.parent.mkdir()
    text = (REPO / "examples" / "humaneval-gpt35.yaml").read_text()
    samples = (REPO / "examples" / "humaneval-gpt35.yaml").parent
    opened.write_text(text.replace("path: ../", f"path: {samples}/../"))
    async with fixed_app.run_test(size=(120, 60)) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        fixed_app.screen.query_one("#path", Input).value = str(opened)
        await pilot.press("enter")
        wizard = fixed_app.screen
        await wait_for(pilot, lambda: wizard.better is not None, 120, "the opened manifest's review")
        screen = flat(fixed_app)
        assert "every boundary at its secure default" not in screen
        assert "holdout public-only: the policy does not allow it" in screen
        assert sorted(p.name for p in opened.parent.iterdir()) == ["gpt35.yaml"]     # nothing written beside it
        assert Path(wizard.frozen.path).resolve() == (Path("manifests") / "gpt35.frozen.yaml").resolve()
        assert "manifests/gpt35.frozen.yaml" in screen and "unchanged)" in screen
