"""Candidate inspector: what failed (infra vs model, by class and slice), then one candidate in full.

The right pane shows the candidate's program (syntax highlighted), the task's tests, the
captured output, its resource use and every attempt; `x` reruns it in the pinned sandbox
(`core.rerun.rerun_task`), which appends attempts and never changes the decided outcome.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import DataTable, Footer, Header, Input, Select, Static, TabbedContent, TabPane

from passgate.core.words import class_words

from .. import languages, records
from ..candidate_view import attempt_result, code_view, failing_line_numbers, head_text, output_text, tests_view
from ..integrity import decided_line
from .base import RecordScreen

MAX_ROWS = 2000                # beyond this the list asks for a filter (a run can hold 16,400 candidates)
SHOW_CHOICES = [("not passed", "failures"), ("model failures", "model"), ("infra / excluded", "infra"),
                ("every candidate", "all")]
INFRA = ("infra_error", "excluded")
# the failures list: (label, widest it gets); widths are set from the rows, so a list never shows
# columns cut to their headings while the table has yet to measure its cells. Class names are never
# cut: the widest (sandbox_violation) is 17.
FAILURE_COLUMNS = (("task", 24), ("#", 4), ("class", 17), ("tries", 5), ("detail", 70))
TABS = (("c", "tab-code", "Code"), ("s", "tab-tests", "Tests"), ("o", "tab-output", "Output"),
        ("a", "tab-attempts", "Attempts"))


def load_outcomes(store, run_id: str, show: str) -> list[dict]:
    return records.outcome_rows(store, run_id, include_passed=show == "all")


def rerun(store, run_id: str, task_id: str, candidate_index: int | None, operator: str) -> list[dict]:
    from passgate.core.run.rerun import rerun_task
    return rerun_task(store, run_id, task_id, candidate_index=candidate_index, operator=operator)


def class_bar(counts: dict[str, int], chosen: str, width: int) -> Text:
    """The classes with their counts, each behind its number key (0: every class), packed into lines
    of `width` so a class never breaks between its key and its name."""
    chips = [(str(i), f" {class_words(name)} {n}", name == chosen)
             for i, (name, n) in enumerate(list(counts.items())[:9], start=1)]
    chips.append(("0", " every class", not chosen))
    text, used = Text(), 0
    for key, label, picked in chips:
        size = len(key) + len(label) + 2
        if used and used + size > width:
            text.append("\n")
            used = 0
        text.append(key, style="bold cyan")
        text.append(label, style="reverse bold" if picked else "")
        text.append("  ")
        used += size
    return text


class InspectorScreen(RecordScreen):
    """Failures of one run, and one candidate with every attempt."""

    AUTO_FOCUS = "#failures"
    BINDINGS = [
        Binding("x", "rerun_candidate", "Rerun"),
        Binding("t", "rerun_task", "Rerun task"),
        Binding("slash", "search", "Search"),
        *(Binding(key, f"tab('{tab}')", f"{title} tab", show=False) for key, tab, title in TABS),
        *(Binding(str(i), f"pick_class({i})", f"class {i}", show=False) for i in range(10)),
        Binding("f5", "refresh", "Refresh", show=False),
        Binding("enter", "whole", "Whole candidate", show=False),
    ]

    def __init__(self, run_id: str, *, select: tuple[str, int] | None = None, failure_class: str = ""):
        super().__init__()
        self.run_id = run_id
        self.rows: list[dict] = []
        self.counts: dict[str, int] = {}
        self.current: tuple[str, int] | None = select
        self.wanted_class = failure_class
        self.rerunning = False
        self.listed = 0

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="inspector-filters"):
            yield Select(SHOW_CHOICES, value="failures", allow_blank=False, id="show")
            yield Select([("every class", "")], value="", allow_blank=False, id="class-filter")
            yield Select([("every slice", "")], value="", allow_blank=False, id="slice-filter")
            yield Input(placeholder="search…", id="fsearch")
        yield Static("", id="class-bar")
        with Horizontal(id="inspector"):
            with Vertical(id="failures-pane"):
                yield DataTable(id="failures", cursor_type="row", zebra_stripes=True)
                yield Static("", id="failures-count")
            with Vertical(id="candidate-pane"):
                yield Static("Select a candidate.", id="candidate-head")
                with TabbedContent(id="candidate-tabs"):
                    with TabPane("Code c", id="tab-code"):
                        yield VerticalScroll(Static("", id="code"))
                    with TabPane("Tests s", id="tab-tests"):
                        yield VerticalScroll(Static("", id="tests"))
                    with TabPane("Output o", id="tab-output"):
                        yield VerticalScroll(Static("", id="output"))
                    with TabPane("Attempts a", id="tab-attempts"):
                        yield DataTable(id="attempts", cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"failures · {self.run_id}"
        self.check_record()
        self.query_one("#failures", DataTable).add_columns(*(label for label, _ in FAILURE_COLUMNS))
        self.query_one("#attempts", DataTable).add_columns(
            "try", "purpose", "result", "class", "public", "protected", "cpu s", "wall s", "RSS MiB", "out B",
            "container")
        self.action_refresh()

    def action_refresh(self) -> None:
        self.load("outcomes", load_outcomes, self.run_id, self.query_one("#show", Select).value)

    def show_outcomes(self, rows: list[dict]) -> None:
        self.rows = rows
        self.counts = records.class_counts(rows)
        slices = sorted({r["slice"] for r in rows})
        self._set_options("#class-filter", "every class", list(self.counts), self.wanted_class)
        self.wanted_class = ""
        self._set_options("#slice-filter", "every slice", slices)
        self._fill()

    def _set_options(self, selector: str, blank: str, values: list[str], want: str = "") -> None:
        select = self.query_one(selector, Select)
        keep = want or select.value
        labels = [(class_words(v), v) for v in values]        # the class bar beside it has the counts
        with self.prevent(Select.Changed):
            select.set_options([(blank, "")] + labels)
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
            if cls and records.class_of(r) != cls or sl and r["slice"] != sl:
                continue
            if text and text not in r["task_id"].lower() and text not in (r["detail"] or r["reason"] or "").lower():
                continue
            out.append(r)
        return out

    def _fill(self) -> None:
        table = self.query_one("#failures", DataTable)
        visible = self._visible()
        rows = [((r["task_id"], r["candidate_index"], class_words(records.class_of(r)), r["tries"], _last_line(r)),
                 f"{r['task_id']}|{r['candidate_index']}") for r in visible[:MAX_ROWS]]
        table.clear(columns=True)
        widths = [min(max([len(label)] + [len(str(cells[i])) for cells, _ in rows]), widest)
                  for i, (label, widest) in enumerate(FAILURE_COLUMNS)]
        room = table.scrollable_content_region.width - sum(w + 2 for w in widths[:-1]) - 4
        widths[-1] = max(widths[-1], min(room, max([len(cells[-1]) for cells, _ in rows] or [0]))) if room > 0 \
            else widths[-1]        # the detail takes the room the list has (more when the pane is maximised)
        for (label, _), width in zip(FAILURE_COLUMNS, widths):
            table.add_column(label, width=width)
        for cells, key in rows:
            table.add_row(*cells, key=key)
        self.listed = len(visible)
        bar = self.query_one("#class-bar", Static)
        bar.update(class_bar(self.counts, self.query_one("#class-filter", Select).value,
                             (bar.content_region.width or self.app.size.width - 2)))
        self._follow(rows)
        self._count_line()

    def _count_line(self) -> None:
        """How many are listed, and the highlighted one's whole last detail line (the column may cut it)."""
        more = f" (showing {MAX_ROWS}; filter to narrow)" if self.listed > MAX_ROWS else ""
        noun = "candidate" if self.listed == 1 else "candidates"
        row = next((r for r in self.rows if self.current and (r["task_id"], r["candidate_index"]) == self.current),
                   None)
        about = f" · {row['task_id']} #{row['candidate_index']}: {_last_line(row)}" if row and _last_line(row) else ""
        self.query_one("#failures-count", Static).update(Text(f"{self.listed} {noun}{more}{about}"))

    def on_resize(self) -> None:
        if self.rows:
            self.call_after_refresh(self._fill)

    def action_zoom(self) -> None:
        super().action_zoom()
        if self.rows:
            self.call_after_refresh(self._fill)        # the detail column takes the maximised width

    def _follow(self, rows: list) -> None:
        """Keep the cursor on the open candidate when it is listed, else open the first one listed."""
        table = self.query_one("#failures", DataTable)
        keys = [key for _, key in rows]
        current = f"{self.current[0]}|{self.current[1]}" if self.current else None
        if current in keys:
            table.move_cursor(row=keys.index(current))
            self._open(*self.current)
        elif keys:
            task_id, index = keys[0].rsplit("|", 1)
            self._open(task_id, int(index))
        if self.focused is None or not isinstance(self.focused, (Input, Select)):
            table.focus()

    @on(Select.Changed, "#show")
    def _show_changed(self) -> None:
        self.action_refresh()

    @on(Select.Changed, "#class-filter")
    @on(Select.Changed, "#slice-filter")
    @on(Input.Changed, "#fsearch")
    def _filter(self) -> None:
        self._fill()

    @on(Input.Submitted, "#fsearch")
    def _search_done(self) -> None:
        self.query_one("#failures", DataTable).focus()

    @on(DataTable.RowHighlighted, "#failures")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        task_id, index = event.row_key.value.rsplit("|", 1)
        if (task_id, int(index)) != self.current:
            self._open(task_id, int(index))

    def _open(self, task_id: str, index: int) -> None:
        self.current = (task_id, index)
        self.load("candidate", records.candidate_detail, self.run_id, task_id, index)
        self._count_line()

    @on(DataTable.RowSelected, "#failures")
    def action_whole(self) -> None:
        """enter: the candidate takes the whole screen, at its output (every line of the detail); enter or
        escape gives the list back."""
        if self.has_class("-whole"):
            self.remove_class("-whole")
            self.query_one("#failures", DataTable).focus()
            return
        self.add_class("-whole")
        self.query_one("#candidate-tabs", TabbedContent).active = "tab-output"
        self.query_one("#tab-output VerticalScroll").focus()

    def action_back(self) -> None:
        if self.has_class("-whole"):
            self.action_whole()
        else:
            super().action_back()

    def action_search(self) -> None:
        self.query_one("#fsearch", Input).focus()

    def action_pick_class(self, number: int) -> None:
        """1-9: list only the n-th class of the bar; 0: every class."""
        names = list(self.counts)[:9]
        if number and number > len(names):
            return
        self.query_one("#class-filter", Select).value = names[number - 1] if number else ""
        self.query_one("#failures", DataTable).focus()

    def action_tab(self, tab: str) -> None:
        self.query_one("#candidate-tabs", TabbedContent).active = tab

    # ---- one candidate ----------------------------------------------------------------
    def show_candidate(self, d: dict) -> None:
        cand, task, outcome, attempts = d["candidate"], d["task"], d["outcome"] or {}, d["attempts"]
        if cand is None or task is None:
            return
        last = next((a for a in reversed(attempts) if a["purpose"] != "rerun"), attempts[-1] if attempts else {})
        repo = bool(task.get("repo_json"))            # a repository task: its patch and its suites
        # a task in another language says where its verdict was decided in its head (tui/languages.py); its
        # attempts carry no per-assertion record
        decided = "" if languages.language_of(task) else decided_line(attempts, d.get("grading_protocol"))
        self.query_one("#candidate-head", Static).update(head_text(cand, task, outcome, attempts, last, decided))
        self.query_one("#code", Static).update(code_view(cand, repo, task))
        self.query_one("#tests", Static).update(tests_view(task, failing_line_numbers(last, task)))
        self.query_one("#output", Static).update(output_text(outcome, last, repo, task))
        table = self.query_one("#attempts", DataTable)
        table.clear()
        for a in attempts:
            table.add_row(a["attempt"], (a["purpose"] or "").replace("_", " "), attempt_result(a),
                          class_words(a["failure_class"]), a["public_status"] or "", a["protected_status"] or "",
                          f"{a['cpu_s'] or 0:.3f}", f"{a['wall_s'] or 0:.3f}",
                          f"{(a['peak_rss_kb'] or 0) / 1024:.1f}", a["out_bytes"] or 0, a["container_id"] or "")

    # ---- rerun ------------------------------------------------------------------------
    def action_rerun_candidate(self) -> None:
        if self.current:
            self._confirm_rerun(self.current[0], self.current[1])

    def action_rerun_task(self) -> None:
        if self.current:
            self._confirm_rerun(self.current[0], None)

    def _confirm_rerun(self, task_id: str, index: int | None) -> None:
        if self.rerunning:
            self.notify("A rerun is already running.", severity="warning")
            return
        from .dialogs import ConfirmScreen
        row = next((r for r in self.rows if (r["task_id"], r["candidate_index"]) == (task_id, index)), None)
        what = f"{task_id} #{index}" if index is not None else f"every candidate of {task_id}"
        why = f" ({records.class_of(row)})" if row else ""
        self.app.push_screen(ConfirmScreen(
            f"Rerun {what}?",
            f"The program{why} runs again in the pinned sandbox, with the run's limits; each run adds an "
            "attempt to the record and the decided outcome never changes. Press y to rerun, escape to keep it."),
            lambda yes: self._rerun(task_id, index) if yes else None)

    def _rerun(self, task_id: str, index: int | None) -> None:
        self.rerunning = True
        what = f"{task_id} #{index}" if index is not None else f"every candidate of {task_id}"
        self.notify(f"Rerunning {what} in the pinned sandbox…", title="rerun")
        self.load("rerun", rerun, self.run_id, task_id, index, self.app.operator)

    def show_rerun(self, rows: list[dict]) -> None:
        self.rerunning = False
        summary = ", ".join(f"#{r['candidate_index']} {r['protected_status']}"
                            + (f" ({r['failure_class']})" if r["failure_class"] else "") for r in rows)
        self.notify(f"Rerun recorded: {summary}. The decided outcome is unchanged.", title="rerun done")
        self.action_refresh()               # the list's tries count the new attempts
        self.query_one("#candidate-tabs", TabbedContent).active = "tab-attempts"

    def failed_rerun(self, error: Exception) -> bool:
        self.rerunning = False
        return False


def _last_line(r: dict) -> str:
    detail = (r["detail"] or r["reason"] or "").strip().splitlines()
    return detail[-1] if detail else ""
