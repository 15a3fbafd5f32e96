"""Candidate inspector: what failed (infra vs model, by class and slice), then one candidate in full.

The right pane shows the candidate's program (syntax highlighted), the task's tests, the
captured output, its resource use and every attempt; `x` reruns it in the pinned sandbox
(`core.rerun.rerun_task`), which appends attempts and never changes the decided outcome.
"""

from __future__ import annotations

from rich.syntax import Syntax
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import DataTable, Footer, Header, Input, Select, Static, TabbedContent, TabPane

from .. import records
from .base import RecordScreen

MAX_ROWS = 2000                # beyond this the list asks for a filter (a run can hold 16,400 candidates)
SHOW_CHOICES = [("not passed", "failures"), ("model failures", "model"), ("infra / excluded", "infra"),
                ("every candidate", "all")]
INFRA = ("infra_error", "excluded")
# the failures list: (label, widest it gets); widths are set from the rows, so a list never shows
# columns cut to their headings while the table has yet to measure its cells
FAILURE_COLUMNS = (("task", 40), ("#", 6), ("slice", 32), ("outcome", 11), ("class", 24), ("tries", 5),
                   ("detail", 60))


def load_outcomes(store, run_id: str, show: str) -> list[dict]:
    return records.outcome_rows(store, run_id, include_passed=show == "all")


def rerun(store, run_id: str, task_id: str, candidate_index: int | None, operator: str) -> list[dict]:
    from passgate.core.run.rerun import rerun_task
    return rerun_task(store, run_id, task_id, candidate_index=candidate_index, operator=operator)


class InspectorScreen(RecordScreen):
    """Failures of one run, and one candidate with every attempt."""

    BINDINGS = [
        Binding("x", "rerun_candidate", "Rerun candidate"),
        Binding("t", "rerun_task", "Rerun task"),
        Binding("slash", "search", "Search"),
        Binding("f5", "refresh", "Refresh"),
    ]

    def __init__(self, run_id: str, *, select: tuple[str, int] | None = None):
        super().__init__()
        self.run_id = run_id
        self.rows: list[dict] = []
        self.current: tuple[str, int] | None = select
        self.rerunning = False

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="inspector-filters"):
            yield Select(SHOW_CHOICES, value="failures", allow_blank=False, id="show")
            yield Select([("every class", "")], value="", allow_blank=False, id="class-filter")
            yield Select([("every slice", "")], value="", allow_blank=False, id="slice-filter")
            yield Input(placeholder="task id or detail…", id="fsearch")
        with Horizontal(id="inspector"):
            with Vertical(id="failures-pane"):
                yield DataTable(id="failures", cursor_type="row", zebra_stripes=True)
                yield Static("", id="failures-count")
            with Vertical(id="candidate-pane"):
                yield Static("Select a candidate.", id="candidate-head")
                with TabbedContent(id="candidate-tabs"):
                    with TabPane("Code", id="tab-code"):
                        yield VerticalScroll(Static("", id="code"))
                    with TabPane("Tests", id="tab-tests"):
                        yield VerticalScroll(Static("", id="tests"))
                    with TabPane("Output", id="tab-output"):
                        yield VerticalScroll(Static("", id="output"))
                    with TabPane("Attempts", id="tab-attempts"):
                        yield DataTable(id="attempts", cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"run {self.run_id}"
        self.query_one("#failures", DataTable).add_columns(*(label for label, _ in FAILURE_COLUMNS))
        self.query_one("#attempts", DataTable).add_columns(
            "try", "purpose", "status", "public", "protected", "class", "cpu s", "wall s", "RSS MiB", "out B",
            "container")
        self.action_refresh()

    def action_refresh(self) -> None:
        self.load("outcomes", load_outcomes, self.run_id, self.query_one("#show", Select).value)

    def show_outcomes(self, rows: list[dict]) -> None:
        self.rows = rows
        classes = sorted({r["failure_class"] or r["outcome"] for r in rows if r["outcome"] != "passed"})
        slices = sorted({r["slice"] for r in rows})
        self._set_options("#class-filter", "every class", classes)
        self._set_options("#slice-filter", "every slice", slices)
        self._fill()
        if self.current:
            self._open(*self.current)
        elif rows:
            self._open(rows[0]["task_id"], rows[0]["candidate_index"])

    def _set_options(self, selector: str, blank: str, values: list[str]) -> None:
        select = self.query_one(selector, Select)
        keep = select.value
        with self.prevent(Select.Changed):
            select.set_options([(blank, "")] + [(v, v) for v in values])
            select.value = keep if keep in values else ""

    def _visible(self) -> list[dict]:
        show = self.query_one("#show", Select).value
        cls = self.query_one("#class-filter", Select).value
        sl = self.query_one("#slice-filter", Select).value
        text = self.query_one("#fsearch", Input).value.strip().lower()
        out = []
        for r in self.rows:
            infra = r["outcome"] in INFRA
            if (show == "model" and infra) or (show == "infra" and not infra):
                continue
            if cls and (r["failure_class"] or r["outcome"]) != cls or sl and r["slice"] != sl:
                continue
            if text and text not in r["task_id"].lower() and text not in (r["detail"] or r["reason"] or "").lower():
                continue
            out.append(r)
        return out

    def _fill(self) -> None:
        table = self.query_one("#failures", DataTable)
        visible = self._visible()
        rows = []
        for r in visible[:MAX_ROWS]:
            detail = (r["detail"] or r["reason"] or "").strip().splitlines()
            rows.append(((r["task_id"], r["candidate_index"], r["slice"], r["outcome"], r["failure_class"] or "",
                          r["attempts"], detail[-1][:60] if detail else ""), f"{r['task_id']}|{r['candidate_index']}"))
        table.clear(columns=True)
        for i, (label, widest) in enumerate(FAILURE_COLUMNS):
            width = max([len(label)] + [len(str(cells[i])) for cells, _ in rows])
            table.add_column(label, width=min(width, widest))
        for cells, key in rows:
            table.add_row(*cells, key=key)
        more = f" (showing {MAX_ROWS}; filter to narrow)" if len(visible) > MAX_ROWS else ""
        self.query_one("#failures-count", Static).update(f"{len(visible)} candidates{more}")

    @on(Select.Changed, "#show")
    def _show_changed(self) -> None:
        self.action_refresh()

    @on(Select.Changed, "#class-filter")
    @on(Select.Changed, "#slice-filter")
    @on(Input.Changed, "#fsearch")
    def _filter(self) -> None:
        self._fill()

    @on(DataTable.RowHighlighted, "#failures")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        task_id, index = event.row_key.value.rsplit("|", 1)
        if (task_id, int(index)) != self.current:
            self._open(task_id, int(index))

    def _open(self, task_id: str, index: int) -> None:
        self.current = (task_id, index)
        self.load("candidate", records.candidate_detail, self.run_id, task_id, index)

    def action_search(self) -> None:
        self.query_one("#fsearch", Input).focus()

    # ---- one candidate ----------------------------------------------------------------
    def show_candidate(self, d: dict) -> None:
        cand, task, outcome, attempts = d["candidate"], d["task"], d["outcome"] or {}, d["attempts"]
        if cand is None or task is None:
            return
        last = next((a for a in reversed(attempts) if a["purpose"] != "rerun"), attempts[-1] if attempts else {})
        verdict = outcome.get("outcome", "undecided")
        colour = {"passed": "green", "failed": "red", "flaky": "yellow"}.get(verdict, "magenta")
        self.query_one("#candidate-head", Static).update(Text.from_markup(
            f"[b]{task['task_id']}[/b] #{cand['candidate_index']}  slice {task['slice']}  "
            f"[{colour}]{verdict}[/{colour}] {outcome.get('failure_class') or ''}  attempts {len(attempts)}\n"
            f"CPU {last.get('cpu_s') or 0:.3f}s of {task['cpu_limit_s'] or 0:.1f}s limit · wall {last.get('wall_s') or 0:.3f}s"
            f" · peak RSS {(last.get('peak_rss_kb') or 0) / 1024:.1f} MiB · output {last.get('out_bytes') or 0} B"
            f" · source {cand['source']} {cand['source_ref'] or ''}"))
        program = cand["program"] or cand["processed_text"] or cand["raw_text"] or ""
        self.query_one("#code", Static).update(Syntax(program, "python", line_numbers=True, word_wrap=True)
                                               if program else Text(f"not run: {cand['excluded_reason'] or ''}"))
        tests = (f"# protected suite (the verdict)\n{task['protected_tests']}\n\n"
                 f"# public suite (what the model saw)\n{task['public_tests'] or '# none'}\n")
        if task["test_setup"]:
            tests = f"# test setup\n{task['test_setup']}\n\n" + tests
        self.query_one("#tests", Static).update(Syntax(tests, "python", line_numbers=False, word_wrap=True))
        self.query_one("#output", Static).update(_output_text(outcome, last))
        table = self.query_one("#attempts", DataTable)
        table.clear()
        for a in attempts:
            table.add_row(a["attempt"], a["purpose"], a["status"], a["public_status"] or "", a["protected_status"] or "",
                          a["failure_class"] or "", f"{a['cpu_s'] or 0:.3f}", f"{a['wall_s'] or 0:.3f}",
                          f"{(a['peak_rss_kb'] or 0) / 1024:.1f}", a["out_bytes"] or 0, a["container_id"] or "")

    # ---- rerun ------------------------------------------------------------------------
    def action_rerun_candidate(self) -> None:
        if self.current:
            self._rerun(self.current[0], self.current[1])

    def action_rerun_task(self) -> None:
        if self.current:
            self._rerun(self.current[0], None)

    def _rerun(self, task_id: str, index: int | None) -> None:
        if self.rerunning:
            self.notify("A rerun is already running.", severity="warning")
            return
        self.rerunning = True
        what = f"{task_id} #{index}" if index is not None else f"every candidate of {task_id}"
        self.notify(f"Rerunning {what} in the pinned sandbox…", title="rerun")
        self.load("rerun", rerun, self.run_id, task_id, index, self.app.operator)

    def show_rerun(self, rows: list[dict]) -> None:
        self.rerunning = False
        summary = ", ".join(f"#{r['candidate_index']} {r['protected_status']}"
                            + (f" ({r['failure_class']})" if r["failure_class"] else "") for r in rows)
        self.notify(f"Rerun recorded: {summary}. The decided outcome is unchanged.", title="rerun done")
        if self.current:
            self._open(*self.current)
        self.query_one("#candidate-tabs", TabbedContent).active = "tab-attempts"

    def failed_rerun(self, error: Exception) -> bool:
        self.rerunning = False
        return False


def _output_text(outcome: dict, last: dict) -> Text:
    text = Text()
    text.append("Decision: ", style="bold")
    text.append(f"{outcome.get('reason') or outcome.get('outcome') or 'undecided'}\n")
    text.append("Detail: ", style="bold")
    text.append(f"{last.get('detail') or '—'}\n")
    text.append("Exit: ", style="bold")
    text.append(f"{last.get('exit_reason') or '—'}   exception: {last.get('exc_type') or '—'}\n")
    violations = last.get("violations_json") or "[]"
    if violations != "[]":
        text.append("Sandbox violations: ", style="bold red")
        text.append(f"{violations}\n")
    text.append("Captured output (stdout + stderr, as stored):\n", style="bold")
    text.append((last.get("stdout") or "") + (last.get("stderr") or "") or "(none)")
    return text
