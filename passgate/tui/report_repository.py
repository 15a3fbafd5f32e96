"""The report's repository section as rich tables (terminal report and console)."""

from __future__ import annotations

from typing import Mapping

from rich import box
from rich.table import Table

LIMIT = 40


WORDS = {"task", "item", "value", "verdict", "candidate", "flags", "findings"}


def _table(title: str, *columns: str) -> Table:
    """Figures stay whole (a cut `455/4` would read as another number); words fold and take the squeeze."""
    table = Table(title=title, title_justify="left", title_style="bold", box=box.SIMPLE_HEAD, pad_edge=False)
    for col in columns:
        if col in WORDS:
            table.add_column(col, overflow="fold", ratio=1, min_width=10)
        else:
            table.add_column(col, no_wrap=True)
    return table


def _yes(value) -> str:
    return "—" if value is None else "yes" if value else "no"


def repository_tables(report: Mapping) -> list:
    repo = report.get("repository")
    if not repo:
        return []
    t = repo["totals"]
    totals = _table("Repository tasks", "item", "value")
    for item, value in (("patches graded", t["candidates"]), ("passed", t["passed"]), ("apply cleanly", t["applies"]),
                        ("build passed", t["build_passed"]), ("rollback restores the snapshot", t["rollback_restores"]),
                        ("touch tests / test config", f"{t['test_edits']} ({t['refused']} refused)"),
                        ("change dependency files", t["dependency_changes"]), ("add a secret", t["secrets"]),
                        ("tampering findings", t["tampering"]),
                        ("failure classes", ", ".join(f"{k} {v}" for k, v in t["failure_classes"].items()) or "none")):
        totals.add_row(item, str(value))
    tasks = _table("Repository: per task (medians)", "task", "n", "pass", "apply", "files", "+", "-",
                   "burden", "rollback")
    for e in repo["tasks"]:
        tasks.add_row(e["task_id"], *(str(e[k]) for k in ("candidates", "passed", "applies", "median_files_changed",
                                                        "median_lines_added", "median_lines_removed",
                                                        "median_reviewer_burden", "rollback_restores")))
    patches = _table("Repository: per patch", "task", "#", "verdict", "+/-", "build", "public", "protected",
                     "rollback")
    flagged = _table("Repository: what the patches touched", "task", "#", "flags")
    for e in repo["candidates"][:LIMIT]:
        patches.add_row(e["task_id"], str(e["candidate_index"]), e["failure_class"] or "passed",
                        f"+{e['lines_added']}/-{e['lines_removed']}", e["build"],
                        f"{e['public']['passed']}/{e['public']['total']}",
                        f"{e['protected']['passed']}/{e['protected']['total']}", _yes(e["rollback"]["restores"]))
        flags = _flags(e)
        if flags:
            flagged.add_row(e["task_id"], str(e["candidate_index"]), "; ".join(flags))
    parts = [totals, tasks, patches] + ([flagged] if flagged.row_count else [])
    if repo["tampering"]:
        tamper = _table("Repository: tampering", "task", "#", "candidate", "verdict", "findings")
        for e in repo["tampering"]:
            tamper.add_row(e["task_id"], str(e["candidate_index"]), e["label"], e["failure_class"] or "passed",
                           "; ".join(e["findings"]) or e["failure_class"])
        parts.append(tamper)
    return parts


def _flags(e: Mapping) -> list[str]:
    """Test, dependency and secret findings of one patch, and whether it applied."""
    flags = [f"tests: {', '.join(e['test_files_touched'])}" + (" (refused)" if e["refused"] else "")] \
        if e["test_files_touched"] else []
    flags += [f"deps: {', '.join(e['dependency_files'])}"] if e["dependency_files"] else []
    flags += [f"{len(e['secrets'])} secret(s)"] if e["secrets"] else []
    return flags + ([] if e["applies"] else ["does not apply"])
