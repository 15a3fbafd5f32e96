"""Rich rendering of the report dict: the headline, the configuration and every score table.

`cli/commands/report.py` imports this lazily (core never imports rich); the console shows the
same renderables in a Textual `Static`. Tables keep every figure whole at any width: where a
table's words cannot fit whole, a narrower layout of the same figures takes its place
(`report_layout.ByWidth`). What sits beside the scores is drawn by `report_sections.py`.
"""

from __future__ import annotations

from typing import Any, Mapping

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from passgate.core.words import short_digest

from .report_edits import edits_parts

from .report_contract import contract_parts, import_policy_words
from .report_evidence import canary_parts, chained_parts, integrity_parts, language_parts, security_parts, tamper_parts
from .report_layout import ByWidth, bar, setting_words as _words, table as _table
from .report_sections import (
    LIST_LIMIT,
    classes,
    cost,
    execution,
    flaky,
    generation,
    histogram,
    histogram_rows,
    omissions,
    probes,
    task_rows,
    whatif,
)

__all__ = ["bar", "histogram_rows", "print_comparison", "print_report", "render_comparison", "render_report",
           "LIST_LIMIT"]


def _p(x: Any, digits: int = 3) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def _ci(e: Mapping) -> str:
    return "—" if e.get("ci_low") is None else f"[{_p(e['ci_low'])}, {_p(e['ci_high'])}]"


def _n(count: int, noun: str) -> str:
    """`1 task`, `2 tasks`: a count with its noun in the right number."""
    return f"{count} {noun}" + ("" if count == 1 else ("es" if noun.endswith("s") else "s"))


def _spread(d: Mapping) -> str:
    if d.get("min") is None:
        return "—"
    return str(d["min"]) if d["min"] == d["max"] else f"{d['min']}–{d['max']}"


def render_report(report: Mapping, *, tasks: bool = False) -> Group:
    """Every section of the report as rich renderables, headline first."""
    parts: list = [_header(report), *edits_parts(report), _config(report), _scores(report), _groups(report),
                   _public(report), _selection(report), execution(report), histogram(report), classes(report),
                   cost(report)]
    from .report_repository import repository_tables
    parts += repository_tables(report)
    if report.get("generation"):
        parts.append(generation(report))
    parts += flaky(report) + omissions(report)
    parts += language_parts(report)
    parts += integrity_parts(report)
    parts += security_parts(report) + canary_parts(report) + tamper_parts(report) + contract_parts(report)
    parts += chained_parts(report, bar)
    parts += probes(report)
    if report.get("whatif"):
        parts.append(whatif(report))
    if tasks:
        parts.append(task_rows(report))
    return Group(*parts)


def print_report(report: Mapping, console: Console | None = None, *, tasks: bool = False) -> None:
    (console or Console()).print(render_report(report, tasks=tasks))


def _header(report: Mapping) -> Panel:
    run, head, scores = report["run"], report["scores"]["headline"], report["scores"]
    spec = scores["interval"]
    den = head["denominator"]
    ks = ", ".join(str(k) for k in scores["k"])
    plural = "candidate" if den["candidates_per_task"].get("max") == 1 else "candidates"
    text = Text.assemble(
        (f"pass@{head['k']} ({head['aggregation']}) = {_p(head.get('value'))}  ", "bold"),
        f"{_ci(head)} at {int(spec['level'] * 100)}%, SE {_p(head.get('se'), 4)}\n",
        f"{_n(den['tasks'], 'task')} × {_spread(den['candidates_per_task'])} {plural}; k = {ks} "
        f"(headline pass@{head['k']}); verifier: {scores['verifier']} tests; "
        f"{_n(den['not_estimable_tasks'], 'task')} not estimable\n",
        (f"run {run['run_id']} ", "dim"), f"{run.get('name') or ''} · {run.get('model') or ''} · {run['status']}")
    if report["config"].get("import_policy"):
        text.append(f"\nallowed imports: {import_policy_words(report)}")
    if run.get("error"):
        from passgate.core.words import plain
        text.append(f"\nrun error: {plain(run['error'])}", style="red")
    return Panel(text, title="passgate report", title_align="left")


def _benchmark(b: Mapping) -> str:
    sha = (b.get("sha256") or "")[:12]
    pinned = "" if not sha or sha in str(b.get("revision") or "") else f" {sha}"
    return f"{b['set_id']}@{b['revision']}{pinned} ({b['tasks']} tasks)"


def _limits(limit: Mapping) -> str:
    low, high = limit.get("min"), limit.get("max")
    if low is None:
        return "—"
    if low == high:
        return f"{_p(low, 2)} s on every task"
    return f"{_p(low, 2)} to {_p(high, 2)} s, per task (calibrated)"


def _config(report: Mapping) -> Table:
    cfg, scores = report["config"], report["scores"]
    spec, tp = scores["interval"], cfg["timeout_policy"]
    table = _table("Configuration", "item", "value", show_header=False)
    rows = [
        ("model", cfg.get("model")),
        ("decoding", _words(cfg.get("decoding"))),
        ("benchmarks", "; ".join(_benchmark(b) for b in cfg["benchmarks"])),
        ("test policy", f"protected suite decides; public tests on {cfg['test_policy']['tasks_with_public_tests']} "
                        f"tasks, none on {cfg['test_policy']['tasks_without_public_tests']}"),
        ("timeout policy", _words(tp.get("timeout"))),
        ("task CPU limit", _limits(tp["task_cpu_limit_s"])),
        ("sandbox", short_digest(f"{cfg['sandbox'].get('runtime')} · {cfg['sandbox'].get('image_digest')}")),
        ("packages", cfg["package_policy"]["rule"]),
        ("allowed imports", "; ".join(f"{p['set']}: {p['allowed_imports']}" for p in cfg.get("import_policy") or [])
         or "—"),
        ("interval", f"{spec['method']}, {spec['resamples']} resamples, seed {spec['seed']}, "
                     f"candidate level {spec.get('candidate_level')}"),
        ("aggregation", f"{scores['aggregation']}; slice weights {_words(scores['weights'])}"),
    ]
    for name, value in rows:
        table.add_row(name, str(value))
    return table


def _scores(report: Mapping) -> ByWidth:
    """Every chosen k with both aggregations; narrower, the headline's aggregation with its interval."""
    scores = report["scores"]
    rule = scores["aggregation"]
    other = "macro" if rule == "micro" else "micro"

    def wide() -> Table:
        table = _table(f"pass@k (headline: {rule})", "k", "micro", "CI", "macro", "CI", "tasks", "n/task", "n < k")
        for r in scores["pass_at_k"]:
            d = r["denominator"]
            table.add_row(str(r["k"]), _p(r["micro"]["value"]), _ci(r["micro"]), _p(r["macro"]["value"]),
                          _ci(r["macro"]), str(d["tasks"]), _spread(d["candidates_per_task"]),
                          str(d["not_estimable_tasks"]))
        return table

    def narrow() -> Table:
        table = _table(f"pass@k ({rule}, the headline; {other} beside it)", "k", rule, "CI", other, "tasks",
                       "n < k")
        for r in scores["pass_at_k"]:
            d = r["denominator"]
            table.add_row(str(r["k"]), _p(r[rule]["value"]), _ci(r[rule]), _p(r[other]["value"]), str(d["tasks"]),
                          str(d["not_estimable_tasks"]))
        return table
    return ByWidth(wide, narrow)


def _group_name(g: Mapping, weighted: bool) -> str:
    return f"{g['kind']}: {g['name']}" + (f" (weight {g['weight']:g})" if weighted and "weight" in g else "")


def _groups(report: Mapping) -> ByWidth:
    groups = report["scores"]["groups"]
    weighted = len({g.get("weight", 1.0) for g in groups if "weight" in g}) > 1

    def build(with_bar: bool) -> Table:
        cols = ("group", "k", "pass@k", "CI") + (("",) if with_bar else ()) + ("tasks", "n < k")
        table = _table("By slice, set and tag", *cols)
        for g in groups:
            for e in g["pass_at_k"]:
                cells = [_group_name(g, weighted), str(e["k"]), _p(e["value"]), _ci(e)]
                cells += [bar(e["value"], 12)] if with_bar else []
                table.add_row(*cells, str(e["denominator"]["tasks"]), str(e["denominator"]["not_estimable_tasks"]))
        return table
    return ByWidth(lambda: build(True), lambda: build(False))


def _public(report: Mapping) -> ByWidth:
    pvp = report["public_vs_protected"]
    title = f"Public vs protected tests ({pvp['tasks']} tasks with public tests)"

    def build(with_ci: bool) -> Table:
        cols = ("k", "public") + (("CI",) if with_ci else ()) + ("protected", "gap", "gap CI")
        table = _table(title, *cols)
        for r in pvp["pass_at_k"]:
            cells = [str(r["k"]), _p(r["public"]["value"])] + ([_ci(r["public"])] if with_ci else [])
            table.add_row(*cells, _p(r["protected"]["value"]), _p(r["gap"]["value"]), _ci(r["gap"]))
        return table
    return ByWidth(lambda: build(True), lambda: build(False))


def _selection(report: Mapping) -> Table:
    f, r = report["filtered_pass_at_1"], report["ranked_pass_at_1"]
    table = _table("Selecting one candidate", "figure", "value", "CI", "tasks", "note")
    share = "—" if f["no_public_pass_share"] is None else f"{100 * f['no_public_pass_share']:.1f}% of tasks"
    table.add_row("filtered pass@1", _p(f["value"]), _ci(f), str(f["tasks"]),
                  f"no public pass on {_n(f['no_public_pass_tasks'], 'task')} ({share})")
    if r["available"]:
        table.add_row("ranked pass@1", _p(r["value"]), _ci(r), str(r["tasks"]),
                      f"a random choice would score {_p(r['random_pass_at_1'])}")
    else:
        table.add_row("ranked pass@1", "—", "", "0", r["reason"])
    return table


def print_comparison(comp: Mapping, console: Console | None = None) -> None:
    from .report_compare import render_comparison as _render
    (console or Console()).print(_render(comp))


def render_comparison(comp: Mapping) -> Group:
    from .report_compare import render_comparison as _render
    return _render(comp)
