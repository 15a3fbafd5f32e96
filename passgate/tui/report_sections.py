"""Rich tables for what sits beside the scores: execution, time, failure classes, cost, flaky
candidates, omissions (samples lines that became no candidate among them), boundary checks,
the what-if lab and the per-task list. Every figure says what it counts."""

from __future__ import annotations

from typing import Any, Mapping

from rich.console import Group
from rich.table import Table
from rich.text import Text

from passgate.core.words import CLASS_MEANING, class_words, plain

from .report_layout import ByWidth, bar, setting_words, table as _table

LIST_LIMIT = 20
CPU_GRAIN_S = 0.01      # the sandbox's CPU clock ticks in 10 ms: narrower bins only split one tick
HISTOGRAM_ROWS = 10


def _p(x: Any, digits: int = 3) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else ("es" if noun.endswith("s") else "s"))


def _pct(x: Any) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def execution(report: Mapping) -> Table:
    ex = report["execution"]
    cpu = ex["cpu_s"]
    table = _table("Execution", "item", "value", show_header=False)
    purposes = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in ex["attempts_by_purpose"].items())
    table.add_row("attempts", f"{ex['attempts']} ({purposes})")
    table.add_row("CPU s / attempt", f"median {_p(cpu['median'], 4)}, p95 {_p(cpu['p95'], 4)}, "
                                     f"max {_p(cpu['max'], 4)}")
    table.add_row("timeouts", f"{ex['timeouts']} ({_pct(ex['timeout_rate'])} of counted candidates)")
    table.add_row("evaluator errors", f"{_n(ex['infra_errors']['candidates'], 'candidate')}, "
                                      f"{_n(ex['infra_errors']['attempts'], 'attempt')} (not counted against the "
                                      "model)")
    return table


def histogram_rows(edges: list[float], counts: list[int], grain: float = CPU_GRAIN_S,
                   rows: int = HISTOGRAM_ROWS) -> list[tuple[float, float, int]]:
    """The report's bins merged so none but the last is narrower than the clock's grain, from the first bin
    with an attempt to the last, and at most `rows` of them (neighbours merged two by two)."""
    nonzero = [i for i, n in enumerate(counts) if n]
    if not nonzero:
        return []
    merged: list[list] = []
    for i in range(nonzero[0], nonzero[-1] + 1):
        if merged and merged[-1][1] - merged[-1][0] < grain:
            merged[-1][1], merged[-1][2] = edges[i + 1], merged[-1][2] + counts[i]
        else:
            merged.append([edges[i], edges[i + 1], counts[i]])
    while len(merged) > rows:
        merged = [[a[0], (b or a)[1], a[2] + (b[2] if b else 0)]
                  for a, b in zip(merged[::2], merged[1::2] + [None])]
    return [(lo, hi, n) for lo, hi, n in merged]


def histogram(report: Mapping) -> ByWidth:
    hist = report["execution"]["histogram"]
    rows = histogram_rows(hist["edges"], hist["counts"])
    top = max([n for _, _, n in rows] or [0]) or 1

    def build(width: int) -> Table:
        table = _table("CPU seconds per attempt", "bin (s)", "", "attempts", show_header=False)
        for lo, hi, count in rows:
            table.add_row(f"{lo:.3g}–{hi:.3g}", bar(count / top, width), str(count))
        return table
    return ByWidth(lambda: build(30), lambda: build(12))


def classes(report: Mapping) -> Table:
    table = _table("Failure classes (counted failures)", "category", "classes", "total")
    for cat, d in report["execution"]["failure_categories"].items():
        table.add_row(cat.replace("_", " "), ", ".join(f"{k} {v}" for k, v in d.items() if k != "total" and v),
                      str(d["total"]))
    return table


def cost(report: Mapping) -> Group:
    c = report["cost"]
    table = _table("Evaluator cost", "slice", "sandbox CPU-s", "attempts")
    for name, d in c["by_slice"].items():
        table.add_row(name, f"{d['sandbox_cpu_s']:.1f}", str(d["attempts"]))
    table.add_row(Text("all", style="bold"), f"{c['sandbox_cpu_s']:.1f}", str(c["attempts"]))
    lines = [f"Sandbox wall time: {c['sandbox_wall_s']:.1f} s, summed over every attempt (attempts run in "
             "parallel, so the run took less)."]
    if c["prompt_tokens"] or c["completion_tokens"]:
        lines.append(f"Tokens: {c['prompt_tokens']} prompt, {c['completion_tokens']} completion.")
    return Group(table, *(Text(line) for line in lines))


def generation(report: Mapping) -> Group:
    from passgate.core.score.generation import generation_lines
    lines = generation_lines(report["generation"])
    return Group(Text("Generation", style="bold"), *(Text(line) for line in lines))


def flaky(report: Mapping) -> list:
    fl = report["flaky"]
    if not fl["tasks"]:
        return [Text("Flaky candidates: none", style="bold")]
    table = _table(f"Flaky candidates: {fl['total']} on {_n(fl['tasks_with_flaky'], 'task')}", "task", "flaky",
                   "counted")
    for t in fl["tasks"][:LIST_LIMIT]:
        table.add_row(t["task_id"], str(t["flaky"]), str(t["counted"]))
    more = len(fl["tasks"]) - LIST_LIMIT
    return [table] + ([Text(f"… {more} more tasks in --json")] if more > 0 else [])


def omissions(report: Mapping) -> list:
    om = report["omissions"]
    c = om["counts"]
    lines = om.get("not_imported") or []
    out: list = [Text(f"Left out of pass@k: {c['excluded']} excluded, {_n(c['infra_error'], 'evaluator error')}, "
                      f"{c['pending']} pending candidates; {_n(c['tasks_without_counted_candidates'], 'task')} without "
                      f"a counted candidate; {_n(len(lines), 'samples line')} that became no candidate",
                      style="bold")]
    for ne in om["not_estimable"]:
        if ne["tasks"]:
            out.append(Text(f"pass@{ne['k']} not estimable on {_n(ne['tasks'], 'task')} (fewer than {ne['k']} "
                            "counted candidates): " + ", ".join(ne["task_ids"][:LIST_LIMIT])
                            + (" …" if ne["tasks"] > LIST_LIMIT else "")))
    out += _not_imported(lines) + _left_out(om)
    return out


def _not_imported(lines: list[dict]) -> list:
    if not lines:
        return []
    table = _table(f"Samples lines that became no candidate ({len(lines)})", "line", "reason")
    for r in lines[:LIST_LIMIT]:
        table.add_row(f"{r.get('file', '')}:{r.get('line')}".lstrip(":"), str(r.get("reason", "")))
    more = len(lines) - LIST_LIMIT
    return [table] + ([Text(f"… {more} more in --json")] if more > 0 else [])


def _left_out(om: Mapping) -> list:
    if not (om["tasks"] or om["candidates"]):
        return []
    table = _table("", "task", "cand", "outcome", "reason")
    for t in om["tasks"][:LIST_LIMIT]:
        table.add_row(t["task_id"], "all", "—", t["reason"])
    for r in om["candidates"][:LIST_LIMIT]:
        reason = r["reason"] or CLASS_MEANING.get(r["outcome"], "")
        table.add_row(r["task_id"], str(r["candidate_index"]), class_words(r["outcome"]), reason)
    more = len(om["candidates"]) + len(om["tasks"]) - table.row_count
    return [table] + ([Text(f"… {more} more in --json")] if more > 0 else [])


def probes(report: Mapping) -> list:
    """The self-probe and preflight checks as tables, and the self-check in a line."""
    out: list = []
    for name, title in (("probe", "Self-probe (inside the sandbox, as recorded)"),
                        ("preflight", "Preflight (container configuration, as recorded)")):
        value = report.get(name)
        checks = value.get("checks") if isinstance(value, Mapping) else None
        if not checks:
            out.append(Text(f"{title}: not recorded", style="yellow"))
            continue
        out.append(_checks(title, checks))
        out += _readings(name, {k: v for k, v in value.items() if k != "checks"}, setting_words)
    return out + _selfcheck(report.get("selfcheck"))


def _checks(title: str, checks: list) -> ByWidth:
    def build(with_boundary: bool) -> Table:
        table = _table(title, "check", "ok", *(("boundary",) if with_boundary else ()), "saw")
        for c in checks:
            ok = Text("ok" if c.get("ok") else "FAIL", style="green" if c.get("ok") else "bold red")
            cells = [str(c.get("name", "?")), ok] + ([str(c.get("boundary", ""))] if with_boundary else [])
            table.add_row(*cells, plain(c.get("saw")))
        return table
    return ByWidth(lambda: build(True), lambda: build(False))


def _readings(section: str, extra: Mapping, words) -> list:
    """What a check recorded beside its verdicts: single values as a table; nested readings (the
    probe's raw answers, already summarised in the 'saw' column) are named, and left to --json."""
    flat = {k: v for k, v in extra.items() if not isinstance(v, (Mapping, list, tuple))}
    nested = sorted(k for k in extra if k not in flat)
    out: list = []
    if flat:
        table = _table("", "recorded", "value")
        for k, v in flat.items():
            table.add_row(str(k).replace("_", " "), plain(words(v)))
        out.append(table)
    if nested:
        out.append(Text(f"The {section}'s raw readings ({', '.join(nested)}) are in the JSON report.", style="dim"))
    return out


def _selfcheck(sc: Any) -> list:
    if not isinstance(sc, Mapping):
        return [Text("Self-check: not recorded", style="yellow")]
    if not sc.get("ran"):
        return [Text(f"Self-check: not run ({sc.get('reason', 'no reason recorded')})")]
    failed = ", ".join(str(f.get("task_id", f)) if isinstance(f, Mapping) else str(f) for f in sc.get("failed") or [])
    return [Text(f"Self-check: {sc.get('passed')} of {sc.get('references')} reference solutions pass their own "
                 f"protected tests" + (f"; failed: {failed}" if failed else ""))]


def whatif(report: Mapping) -> Table:
    secure = any("insecure_passes" in w for w in report["whatif"])      # the column only when asked for
    table = _table("What-if (from the record, nothing executed)", "scenario", "k", "value", "run", "change",
                   "CPU-s", "CPU change", "passes → timeouts", *(("insecure passes dropped",) if secure else ()))
    for w in report["whatif"]:
        for r in w["pass_at_k"]:
            delta = r["delta"]
            style = "" if not delta else ("green" if delta > 0 else "red")
            table.add_row(w["scenario"], str(r["k"]), _p(r["value"]), _p(r["baseline"]),
                          Text("—" if delta is None else f"{delta:+.3f}", style=style),
                          f"{w['cost']['sandbox_cpu_s']:.1f}", f"{w['cost']['delta_cpu_s']:+.1f}",
                          str(w["timeouts"]["passes_turned_timeouts"]),
                          *((str(w.get("insecure_passes", "—")),) if secure else ()))
    return table


def task_rows(report: Mapping) -> ByWidth:
    ks = report["scores"]["k"]

    def build(full: bool) -> Table:
        extra = ("flaky", "timeouts", "CPU s") if full else ()
        table = _table("Tasks", "task", *(("slice",) if full else ()), "n", "c", *[f"pass@{k}" for k in ks], *extra)
        for t in report["tasks"]:
            cells = [t["task_id"]] + ([t["slice"]] if full else []) + [str(t["n"]), str(t["c"])]
            cells += [_p(t["pass_at_k"][str(k)]) for k in ks]
            cells += [str(t["flaky"]), str(t["timeouts"]), f"{t['cpu_s']:.3f}"] if full else []
            table.add_row(*cells)
        return table
    return ByWidth(lambda: build(True), lambda: build(False))
