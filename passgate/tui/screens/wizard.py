"""New run: task sets → candidates → one step per boundary → scoring → frozen manifest → launch.

Each step writes into a `WizardState`; Next validates the step (a relaxed boundary needs a
justification; the scoring step validates the whole manifest with the manifest loader). Review
freezes the manifest in a thread (dataset hashes, image digest) and shows its YAML and id.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from rich.console import Group
from rich.markup import escape
from rich.syntax import Syntax
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import (
    Button,
    ContentSwitcher,
    Footer,
    Header,
    Input,
    OptionList,
    RadioButton,
    RadioSet,
    Select,
    Static,
)
from textual.widgets.option_list import Option

from passgate.core.errors import PassgateError
from passgate.core.run.languages import languages_with_images

from ..wizard_freeze import Frozen, freeze_to_file, frozen_target, samples_note
from ..wizard_gate import better_than, boundary_lines, offered, policy_choices, prospect_renderable, prospects_for
from ..wizard_model import BOUNDARY_STEPS, TaskSetChoice, WizardState, settings_of
from .base import RecordScreen
from .wizard_pages import Page, boundary_page, candidates_page, review_page, scoring_page, tasks_page

STEPS: tuple[tuple[str, str], ...] = (   # short titles: the step list stays narrow at 80 columns
    ("tasks", "Task sets"), ("candidates", "Candidates"),
    *((f"b-{s.boundary}", f"▸ {s.step_title}") for s in BOUNDARY_STEPS),
    ("scoring", "Scoring"), ("review", "Review, launch"),
)
STEP_IDS = [s for s, _ in STEPS]


class WizardScreen(RecordScreen):
    """Build, freeze and launch a run manifest."""

    # no auto focus: each step gives the focus to its own first field as it is shown (_show_step), without
    # the scroll that Textual's auto focus schedules (it ran after the step had put its label in view)
    AUTO_FOCUS = ""
    # the step keys are handled as they arrive, before the keys typed after them reach a field: on a busy
    # machine ctrl+n and the tab and text after it queue up, and a binding found only when the key comes
    # back up from the focused field ran after that text had gone into the old step's field.
    # (ctrl+left and ctrl+right stay the fields' word moves first.)
    BINDINGS = [
        Binding("ctrl+n", "next", "Next", priority=True),
        Binding("ctrl+right", "next", "Next", show=False),
        Binding("ctrl+b", "previous", "Back a step", priority=True),
        Binding("ctrl+left", "previous", "Back a step", show=False),
        Binding("ctrl+l", "launch", "Launch", priority=True),
        Binding("p", "better_policy", "Better policy", show=False),
    ]

    def __init__(self, manifest_path: str | None = None):
        super().__init__()
        self.state = WizardState()
        self.opened = manifest_path
        self.step = "review" if manifest_path else "tasks"
        self.visited = {self.step} if manifest_path else {"tasks"}
        self.frozen: Frozen | None = None
        self.policy_override: str | None = None      # an opened manifest gated under another policy
        self.better: str | None = None               # an offered policy under which the run does better
        self.policy_note = ""
        self.implied_shown: dict[str, str] = {}     # boundary -> the implied setting last put on its page

    # ---- layout -----------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="wizard"):
            yield OptionList(*[Option(title, id=sid) for sid, title in STEPS], id="steps")
            with Vertical(id="wizard-main"):
                with ContentSwitcher(initial=self.step, id="pages"):
                    yield from tasks_page(self.state)
                    yield from candidates_page()
                    for step in BOUNDARY_STEPS:
                        yield from boundary_page(step)
                    yield from scoring_page(self.state)
                    yield from review_page()
                yield Static("", id="wizard-error", classes="form-error")
                with Horizontal(id="wizard-buttons"):
                    yield Button("Back", id="previous")
                    yield Button("Next", id="next", variant="primary")
                    yield Button("Launch", id="launch", variant="success", disabled=True)
        yield Footer()

    def on_mount(self) -> None:
        self.state.operator = self.app.operator
        self.load("languages", lambda _store: languages_with_images())
        self._show_step()
        if self.opened:
            self._freeze()

    # ---- navigation -------------------------------------------------------------------
    def action_back(self) -> None:
        """Escape leaves the wizard only after asking: what was entered is not saved anywhere."""
        from .dialogs import ConfirmScreen
        self.app.push_screen(ConfirmScreen(
            "Discard this new run?", "The steps you filled in are not saved (nothing is frozen until Review). "
            "Press y to discard them, escape to go on editing."),
            lambda yes: self.app.pop_screen() if yes and self.app.screen is self else None)

    def _show_step(self) -> None:
        self.set_focus(None)                # the page being hidden must not pass its focus on
        self.query_one("#pages", ContentSwitcher).current = self.step
        steps = self.query_one("#steps", OptionList)
        steps.highlighted = STEP_IDS.index(self.step)
        self.query_one("#next", Button).disabled = self.step == "review"
        self.query_one("#previous", Button).disabled = self.step == STEP_IDS[0] or bool(self.opened)
        self.query_one("#launch", Button).disabled = not (self.step == "review" and self.frozen)
        self.query_one("#wizard-error", Static).update("")
        self.sub_title = dict(STEPS)[self.step].replace("▸ ", "Boundary: ")
        if self.step.startswith("b-"):
            self._show_implied(self.step[2:])
        if self.step == "scoring":
            self._describe_policy(str(self.query_one("#policy", Select).value))
        if self.focused is None:
            # the step's first field has the keys now, not when its Show arrives: a tab typed right
            # after ctrl+n moves on from it (and not from the step list, the first thing on the screen)
            self.query_one(f"#{self.step}", Page).take_focus()

    def _show_implied(self, b: str) -> None:
        implied = self.state.implied(b)
        page = self.query_one(f"#b-{b}", Page)
        note = self.query_one(f"#implied-{b}", Static)
        if implied is None:                 # e.g. a product holdout set was added since
            page.focus_target = None
            note.update("")
            return
        if self.implied_shown.get(b) != implied:     # first showing, or the task sets changed what they imply
            self.query_one(f"#set-{b}-{implied}", RadioButton).value = True
        self.implied_shown[b] = implied
        # the setting is decided by the inputs: what is left to do is the justification. The page
        # focuses it whenever it is shown, so no later focus call can move the keys elsewhere.
        note.update(f"[yellow]Your task sets make this run {implied}[/yellow]: the gate reads it from the record "
                    "whatever is declared, so declare it and justify it (or go back and add a product holdout set).")
        page.focus_target = f"#just-{b}"
        page.take_focus()

    def action_next(self) -> None:
        if self.step == "review":
            return
        error = self._collect(self.step)
        if error:
            self.query_one("#wizard-error", Static).update(error)
            return
        self.step = STEP_IDS[STEP_IDS.index(self.step) + 1]
        self.visited.add(self.step)
        self._show_step()
        if self.step == "review":
            self._freeze()

    def action_previous(self) -> None:
        if self.step != STEP_IDS[0] and not self.opened:
            self.step = STEP_IDS[STEP_IDS.index(self.step) - 1]
            self.frozen = None
            self._show_step()

    @on(Button.Pressed, "#next")
    def _next_pressed(self) -> None:
        self.action_next()

    @on(Button.Pressed, "#previous")
    def _previous_pressed(self) -> None:
        self.action_previous()

    @on(OptionList.OptionSelected, "#steps")
    def _jump(self, event: OptionList.OptionSelected) -> None:
        if event.option.id in self.visited and event.option.id != "review" and not self.opened:
            self.step = event.option.id
            self.frozen = None
            self._show_step()

    # ---- reading the steps ------------------------------------------------------------
    def _value(self, selector: str) -> str:
        return self.query_one(selector, Input).value.strip()

    def _collect(self, step: str) -> str:
        """Copy a step's widgets into the state; returns an error sentence or ''."""
        s = self.state
        if step == "tasks":
            s.name = self._value("#run-name") or "console-run"
            s.sets[-1] = self._current_set()
            return ""
        if step == "candidates":
            pressed = self.query_one("#source", RadioSet).pressed_button
            s.source = pressed.id.removeprefix("src-") if pressed else "reference"
            s.model_name, s.import_path = self._value("#model-name"), self._value("#import-path")
            s.endpoint, s.gen_model = self._value("#endpoint"), self._value("#gen-model")
            s.n_per_task = int(self._value("#n-per-task") or 1)
            if s.source == "import" and not s.import_path:
                return "Give the samples file to import."
            if s.source == "import" and not Path(s.import_path).expanduser().is_file():
                return f"No file at {s.import_path}."
            if s.source == "generate" and not (s.endpoint and s.gen_model):
                return "Give the endpoint and the model to generate from."
            return ""
        if step.startswith("b-"):
            b = step[2:]
            pressed = self.query_one(f"#setting-{b}", RadioSet).pressed_button
            s.settings[b] = pressed.id.removeprefix(f"set-{b}-") if pressed else settings_of(b)[0]
            s.justifications[b] = self._value(f"#just-{b}")
            if s.missing_justification(b):
                return f"{b} is relaxed to {s.setting(b)}: write the justification a reviewer will read."
            return ""
        if step == "scoring":
            s.k, s.aggregation = self._value("#k"), self.query_one("#aggregation", Select).value
            s.policy = self.query_one("#policy", Select).value
            try:
                s.level, s.resamples = float(self._value("#level")), int(self._value("#resamples"))
                s.workers = int(self._value("#workers"))
                s.manifest()
            except ValueError as exc:
                return f"Not a number: {exc}"
            except PassgateError as exc:
                return exc.message
        return ""

    def _current_set(self) -> TaskSetChoice:
        language = self.query_one("#language", Select).value
        return TaskSetChoice(kind=self.query_one("#kind", Select).value, path=self._value("#set-path"),
                             task_ids=self._value("#task-ids"), slice=self._value("#slice"),
                             allowed_imports=self._value("#allowed-imports"),
                             language=language if isinstance(language, str) else "")

    @on(Select.Changed, "#policy")
    def _policy_changed(self, event: Select.Changed) -> None:
        self._describe_policy(str(event.value))

    def _describe_policy(self, name: str) -> None:
        """The policy's description, then what it would decide on the best record of this run."""
        choice = next((c for c in policy_choices() if c.name == name), None)
        self.policy_note = escape(choice.description) if choice else ""
        self.query_one("#policy-note", Static).update(self.policy_note)
        try:
            text = dataclasses.replace(self.state, policy=name).yaml_text()
        except (ValueError, PassgateError):
            return
        self.load("policy_prospect", prospects_for, text, None, self.state.operator, [name])

    def show_policy_prospect(self, prospects: list) -> None:
        if prospects:
            self.query_one("#policy-note", Static).update(
                Group(Text.from_markup(self.policy_note), prospect_renderable(prospects[:1], self.state.operator)))

    def failed_policy_prospect(self, error: Exception) -> bool:
        return True                 # the scoring step's own checks say what is wrong when Next is pressed

    def show_languages(self, languages: list[tuple[str, str]]) -> None:
        """The languages whose image is built (read in a worker: it asks the Docker engine)."""
        select = self.query_one("#language", Select)
        select.set_options([(f"{title} ({key})", key) for key, title in languages])
        if languages:
            select.prompt = "choose a language"

    def failed_languages(self, error: Exception) -> bool:
        self.query_one("#language", Select).prompt = "no Docker engine: no language offered"
        return True

    @on(Input.Changed, "#import-path")
    def _check_samples(self, event: Input.Changed) -> None:
        """Say at once whether the samples file is there, instead of failing at Review."""
        self.query_one("#import-check", Static).update(samples_note(event.value))

    @on(Button.Pressed, "#add-set")
    def _add_set(self) -> None:
        self.state.sets[-1] = self._current_set()
        self.state.sets.append(TaskSetChoice())
        for selector in ("#set-path", "#task-ids", "#slice", "#allowed-imports"):
            self.query_one(selector, Input).value = ""
        self.query_one("#sets-list", Static).update(
            "Task sets so far:\n" + "\n".join(f"  {c.kind} {c.task_ids or '(all)'} {c.slice}".rstrip()
                                              + f", imports {c.imports_words()}" for c in self.state.sets[:-1]))

    # ---- freeze and launch ------------------------------------------------------------
    def _freeze(self) -> None:
        self.frozen, self.better = None, None
        self.query_one("#review-summary", Static).update("Freezing the manifest: hashing inputs, pinning the image…")
        self.query_one("#review-yaml", Static).update("")
        if self.opened:
            source = Path(self.opened).expanduser().resolve()
            target = frozen_target(self.app.workdir, str(source))
            self.load("frozen", freeze_to_file, None, str(source), str(target), self.policy_override)
        else:
            target = self.app.workdir / "manifests" / f"{self.state.name}.yaml"
            self.load("frozen", freeze_to_file, self.state.yaml_text(), None, str(target))

    def show_frozen(self, frozen: Frozen) -> None:
        self.frozen = frozen
        self._summary(Text("Working out what the gate can decide on this run…"))
        self.notify(f"Frozen manifest written to {frozen.path}", title="frozen")
        self.query_one("#review-yaml", Static).update(Syntax(frozen.yaml_text, "yaml", line_numbers=False,
                                                             word_wrap=True))
        self._show_step()
        names = [c.name for c in offered(policy_choices())]
        self.load("prospects", prospects_for, frozen.yaml_text, frozen.path, self.state.operator, names)

    def _summary(self, *gate) -> None:
        frozen = self.frozen
        where = f"{escape(frozen.path)} (paths made absolute; {escape(self.opened)} is unchanged)" if self.opened \
            else escape(frozen.path)
        self.query_one("#review-summary", Static).update(Group(
            Text.from_markup(f"[b]Manifest id[/b] {frozen.manifest_id}, policy {frozen.policy}\n[b]Wrote[/b] the "
                             f"frozen manifest to {where}"),
            Text.from_markup("[b]Allowed imports[/b]\n" + ("\n".join(
                f"  {escape(name)}: {escape(words)}" for name, words in frozen.imports) or "  —")), *gate,
            Text("Press Launch (ctrl+l) to record and run it.")))

    def show_prospects(self, prospects: list) -> None:
        if self.frozen is None or not prospects:
            return
        own = prospects[0]
        better = better_than(own, prospects[1:])
        self.better = better.policy if better is not None else None
        self._summary(Text.from_markup(f"[b]Boundaries[/b] as the gate will see them under {own.policy}:"),
                      boundary_lines(own), prospect_renderable(prospects, self.state.operator))

    def failed_prospects(self, error: Exception) -> bool:
        text = error.message if isinstance(error, PassgateError) else f"{type(error).__name__}: {error}"
        self._summary(Text(f"What the gate will decide is not known: {text}", style="yellow"))
        return True

    def action_better_policy(self) -> None:
        """p at Review: freeze the run again under the offered policy it does better under."""
        if self.step != "review" or not self.better:
            return
        if self.opened:
            self.policy_override = self.better
        else:
            self.state.policy = self.better
            self.query_one("#policy", Select).value = self.better
        self.notify(f"Gating this run under {self.better}.", title="policy")
        self._freeze()

    def failed_frozen(self, error: Exception) -> bool:
        text = error.message if isinstance(error, PassgateError) else f"{type(error).__name__}: {error}"
        self.query_one("#review-summary", Static).update(f"[red]Cannot freeze:[/red] {escape(text)}")
        return True

    @on(Button.Pressed, "#launch")
    def action_launch(self) -> None:
        if self.frozen is None or self.step != "review":
            return
        launch = self.app.launch("start", self.frozen.path)
        if launch is not None:
            from .live import LiveRunScreen
            self.app.switch_screen(LiveRunScreen(launch=launch))
