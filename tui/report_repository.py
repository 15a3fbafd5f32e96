"""The report's repository section as rich tables (terminal report and console)."""

from __future__ import annotations

from typing import Mapping

from rich import box
from rich.table import Table

LIMIT = 40


def _table(title: str, *columns: str) -> Table:
    table = Table(title=title, title_justify="left", title_style="bold", box=box.SIMPLE_HEAD)
    for col in columns:
        # figures stay whole; only the free text of the last column folds
        table.add_column(col, overflow="fold", no_wrap=col not in ("value", "flags", "findings"))
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
                     "rollback", "flags")
    for e in repo["candidates"][:LIMIT]:
        flags = [f"tests: {', '.join(e['test_files_touched'])}" + (" (refused)" if e["refused"] else "")] \
            if e["test_files_touched"] else []
        flags += [f"deps: {', '.join(e['dependency_files'])}"] if e["dependency_files"] else []
        flags += [f"{len(e['secrets'])} secret(s)"] if e["secrets"] else []
        flags += [] if e["applies"] else ["does not apply"]
        patches.add_row(e["task_id"], str(e["candidate_index"]), e["failure_class"] or "passed",
                        f"+{e['lines_added']}/-{e['lines_removed']}", e["build"],
                        f"{e['public']['passed']}/{e['public']['total']}",
                        f"{e['protected']['passed']}/{e['protected']['total']}", _yes(e["rollback"]["restores"]),
                        "; ".join(flags))
    parts = [totals, tasks, patches]
    if repo["tampering"]:
        tamper = _table("Repository: tampering", "task", "#", "candidate", "verdict", "findings")
        for e in repo["tampering"]:
            tamper.add_row(e["task_id"], str(e["candidate_index"]), e["label"], e["failure_class"] or "passed",
                           "; ".join(e["findings"]) or e["failure_class"])
        parts.append(tamper)
    return parts
