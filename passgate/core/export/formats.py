"""Report exports: JSON (the versioned schema), Markdown for a release ticket, JUnit XML for CI.

All read the dict from `core.score.report.build_report`; SVG plots are in `core/export/svg.py`.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any, Mapping

from .contract_md import contract_md
from .edits_md import edits_md
from .evidence_md import canaries_md, chained_md, integrity_md, security_md, tamper_md
from .markdown_table import table as _table

MARKDOWN_LIST_LIMIT = 50   # omitted candidates / flaky tasks listed inline; the JSON lists all


def to_json(report: Mapping) -> str:
    """The report as JSON; missing figures are null, never NaN."""
    return json.dumps(report, indent=2, allow_nan=False, default=str) + "\n"


# ---- markdown -------------------------------------------------------------------------------

def _p(x: Any, digits: int = 3) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def _ci(e: Mapping) -> str:
    if e.get("ci_low") is None:
        return _p(e.get("value"))
    return f"{_p(e.get('value'))} [{_p(e['ci_low'])}, {_p(e['ci_high'])}]"




def _spread(d: Mapping) -> str:
    if d.get("min") is None:
        return "—"
    return str(d["min"]) if d["min"] == d["max"] else f"{d['min']}–{d['max']} (median {d['median']:g})"


def to_markdown(report: Mapping) -> str:
    """A release-ticket summary: headline with interval and denominator, then every section."""
    run, scores = report["run"], report["scores"]
    head = scores["headline"]
    level = int(round(scores["interval"]["level"] * 100))
    den = head["denominator"]
    lines = [f"# passgate report: {run.get('name') or ''} `{run['run_id']}`", "",
             f"**pass@{head['k']} ({head['aggregation']}) = {_ci(head)}** ({level}% interval, SE {_p(head.get('se'), 4)}) "
             f"over {den['tasks']} tasks, {_spread(den['candidates_per_task'])} "
             f"{'candidate' if den['candidates_per_task'].get('max') == 1 else 'candidates'} per task, "
             f"k = {head['k']}; verifier: {scores['verifier']} tests.", ""]
    if run.get("error"):
        lines += [f"> **Run {run['status']}:** {run['error']}", ""]
    lines += ["## Configuration", ""] + _table(["item", "value"], _config_rows(report))
    lines += _scores_md(scores, level)
    lines += edits_md(report)
    lines += _public_md(report)
    lines += _execution_md(report)
    if report.get("repository"):
        from .repository_md import repository_md
        lines += repository_md(report["repository"])
    if report.get("generation"):
        from passgate.core.score.generation import generation_lines
        lines += ["## Generation", "", "```"] + generation_lines(report["generation"]) + ["```", ""]
    lines += _omissions_md(report)
    lines += security_md(report.get("security"))
    lines += contract_md(report.get("contract"))
    lines += canaries_md(report.get("canaries"))
    lines += tamper_md(report.get("tamper"))
    lines += integrity_md(report.get("integrity"))
    lines += chained_md(report.get("chained"))
    lines += _boundary_md(report)
    if report.get("whatif"):
        lines += _whatif_md(report["whatif"])
    return "\n".join(lines)


def _boundary_md(report: Mapping) -> list[str]:
    """The self-probe and preflight checks as recorded (the raw probe stays in the JSON export)."""
    lines = ["## Self-probe and preflight (as recorded before any candidate ran)", ""]
    for title, key in (("Self-probe inside the sandbox, run as a candidate", "probe"),
                       ("Container configuration", "preflight")):
        checks = (report.get(key) or {}).get("checks")
        if not checks:
            lines += [f"{title}: not recorded.", ""]
            continue
        failed = [c for c in checks if not c.get("ok")]
        lines += [f"{title}: {len(checks) - len(failed)}/{len(checks)} checks pass.", ""]
        lines += _table(["check", "boundary", "result", "saw"],
                        [[c.get("name"), c.get("boundary"), "pass" if c.get("ok") else "FAIL", c.get("saw")]
                         for c in checks])
    return lines


def _config_rows(report: Mapping) -> list[list[Any]]:
    run, cfg, scores = report["run"], report["config"], report["scores"]
    sets = ", ".join(f"{b['set_id']}@{b['revision']} sha256:{(b['sha256'] or '')[:12]} ({b['tasks']} tasks)"
                     for b in cfg["benchmarks"]) or "—"
    tp = cfg["timeout_policy"]
    lim = tp["task_cpu_limit_s"]
    spec = scores["interval"]
    return [
        ["model", cfg.get("model")],
        ["decoding", json.dumps(cfg.get("decoding"), sort_keys=True, default=str)],
        ["benchmarks", sets],
        ["test policy", f"headline = protected suite; {cfg['test_policy']['tasks_with_public_tests']} tasks with "
                        f"public tests, {cfg['test_policy']['tasks_without_public_tests']} without"],
        ["timeout policy", f"{json.dumps(tp.get('timeout'), default=str)}; per-task CPU limit "
                           f"{_p(lim['min'], 2)}–{_p(lim['max'], 2)} s on {lim['calibrated_tasks']} calibrated tasks"],
        ["sandbox", f"{cfg['sandbox'].get('runtime')} {cfg['sandbox'].get('image')} {cfg['sandbox'].get('image_digest')}"],
        ["allowed imports", "; ".join(f"{p['set']}: {p['allowed_imports']}" for p in cfg.get("import_policy") or [])
         or "—"],
        ["package policy", cfg["package_policy"]["rule"] + (
            f": {', '.join(cfg['package_policy']['packages'])}" if cfg["package_policy"]["packages"] else "")],
        ["k", ", ".join(str(k) for k in scores["k"])],
        ["aggregation / weights", f"{scores['aggregation']} / {json.dumps(scores['weights'])}"],
        ["interval", f"{spec['method']} ({spec['resampled']}; candidate level: {spec.get('candidate_level')}), "
                     f"{spec['resamples']} resamples, seed {spec['seed']}, level {spec['level']}"],
        ["run", f"{run['status']}, manifest {run.get('manifest_id')}, passgate {run.get('passgate_version')}"],
    ]


def _scores_md(scores: Mapping, level: int) -> list[str]:
    rows = [[r["k"], _ci(r["micro"]), _ci(r["macro"]), r["denominator"]["tasks"],
             _spread(r["denominator"]["candidates_per_task"]), r["denominator"]["not_estimable_tasks"]]
            for r in scores["pass_at_k"]]
    out = [f"## pass@k ({level}% intervals)", ""]
    out += _table(["k", "micro", "macro", "tasks", "candidates/task", "not estimable (n < k)"], rows)
    group_rows = [[g["kind"], g["name"], g.get("weight", ""), e["k"], _ci(e), e["denominator"]["tasks"],
                   e["denominator"]["not_estimable_tasks"]] for g in scores["groups"] for e in g["pass_at_k"]]
    out += ["### By slice, benchmark set and tag", ""]
    out += _table(["kind", "name", "weight", "k", "pass@k", "tasks", "not estimable"], group_rows)
    return out


def _public_md(report: Mapping) -> list[str]:
    pvp = report["public_vs_protected"]
    out = ["## Public vs protected tests", "",
           f"Over {pvp['tasks']} tasks with public tests ({pvp['tasks_without_public_tests']} tasks have none).", ""]
    out += _table(["k", "public", "protected", "gap (public − protected)"],
                  [[r["k"], _ci(r["public"]), _p(r["protected"]["value"]), _ci(r["gap"])] for r in pvp["pass_at_k"]])
    f, r = report["filtered_pass_at_1"], report["ranked_pass_at_1"]
    out += ["## Filtered and ranked pass@1", ""]
    rows = [["filtered pass@1", _ci(f), f["tasks"], f"no candidate passes public tests on "
             f"{f['no_public_pass_tasks']} tasks ({_p(f['no_public_pass_share'])})"]]
    if r["available"]:
        rows.append(["ranked pass@1 (top mean log-prob)", _ci(r), r["tasks"],
                     f"random choice (pass@1) {_p(r['random_pass_at_1'])}"])
    else:
        rows.append(["ranked pass@1", "—", 0, r["reason"]])
    return out + _table(["figure", "value", "tasks", "note"], rows)


def _execution_md(report: Mapping) -> list[str]:
    ex, cost, flaky = report["execution"], report["cost"], report["flaky"]
    cpu = ex["cpu_s"]
    out = ["## Execution and cost", ""]
    out += _table(["item", "value"], [
        ["attempts", f"{ex['attempts']} ({', '.join(f'{k} {v}' for k, v in ex['attempts_by_purpose'].items())})"],
        ["CPU s per attempt", f"median {_p(cpu['median'], 4)}, p95 {_p(cpu['p95'], 4)}, max {_p(cpu['max'], 4)}"],
        ["timeouts", f"{ex['timeouts']} (rate {_p(ex['timeout_rate'], 4)})"],
        ["infra errors", f"{ex['infra_errors']['candidates']} candidates, {ex['infra_errors']['attempts']} attempts"],
        ["flaky", f"{flaky['total']} candidates on {flaky['tasks_with_flaky']} tasks"],
        ["sandbox CPU-seconds (all attempts)", _p(cost["sandbox_cpu_s"], 1)],
        ["sandbox wall-seconds", _p(cost["sandbox_wall_s"], 1)],
        ["tokens", f"{cost['prompt_tokens']} prompt, {cost['completion_tokens']} completion"],
    ])
    cats = ex["failure_categories"]
    out += ["### Failure classes (counted failures)", ""]
    out += _table(["category", "classes", "total"],
                  [[cat, ", ".join(f"{k} {v}" for k, v in d.items() if k != "total"), d["total"]]
                   for cat, d in cats.items()])
    if flaky["tasks"]:
        out += ["### Flaky candidates per task", ""]
        out += _table(["task", "flaky", "counted"], [[t["task_id"], t["flaky"], t["counted"]]
                                                    for t in flaky["tasks"][:MARKDOWN_LIST_LIMIT]])
        if len(flaky["tasks"]) > MARKDOWN_LIST_LIMIT:
            out += [f"… and {len(flaky['tasks']) - MARKDOWN_LIST_LIMIT} more tasks (all listed in the JSON report).", ""]
    return out


def _omissions_md(report: Mapping) -> list[str]:
    om = report["omissions"]
    c = om["counts"]
    lines = om.get("not_imported") or []
    out = ["## Omissions", "",
           f"{c['excluded']} excluded, {c['infra_error']} evaluator errors (infra_error) and {c['pending']} pending "
           f"candidates are left out of pass@k; {c['tasks_without_counted_candidates']} tasks have no counted "
           f"candidate; {len(lines)} samples-file line{'' if len(lines) == 1 else 's'} became no candidate.", ""]
    if lines:
        out += _table(["samples line", "why it is not a candidate"],
                      [[f"{r.get('file', '')}:{r.get('line')}".lstrip(":"), r.get("reason", "")]
                       for r in lines[:MARKDOWN_LIST_LIMIT]])
        if len(lines) > MARKDOWN_LIST_LIMIT:
            out += [f"… and {len(lines) - MARKDOWN_LIST_LIMIT} more (all listed in the JSON report).", ""]
    for ne in om["not_estimable"]:
        if ne["tasks"]:
            out += [f"- pass@{ne['k']}: {ne['tasks']} tasks not estimable (n < k): "
                    + ", ".join(ne["task_ids"][:MARKDOWN_LIST_LIMIT])
                    + (" …" if ne["tasks"] > MARKDOWN_LIST_LIMIT else "")]
    if om["tasks"]:
        out += [""] + _table(["task", "reason"], [[t["task_id"], t["reason"]] for t in om["tasks"]])
    if om["candidates"]:
        shown = om["candidates"][:MARKDOWN_LIST_LIMIT]
        out += _table(["task", "candidate", "outcome", "reason"],
                      [[r["task_id"], r["candidate_index"], r["outcome"], r["reason"]] for r in shown])
        if len(om["candidates"]) > len(shown):
            out += [f"… and {len(om['candidates']) - len(shown)} more (all listed in the JSON report).", ""]
    return out + [""]


def _whatif_md(whatifs: list) -> list[str]:
    out = ["## What-if (re-scored from the record, nothing executed)", ""]
    rows = []
    for w in whatifs:
        for r in w["pass_at_k"]:
            rows.append([w["scenario"], f"pass@{r['k']} ({w['aggregation']})", _p(r["value"]), _p(r["baseline"]),
                         "—" if r["delta"] is None else f"{r['delta']:+.3f}",
                         f"{w['cost']['sandbox_cpu_s']:.1f} ({w['cost']['delta_cpu_s']:+.1f})",
                         w["timeouts"]["passes_turned_timeouts"], w.get("insecure_passes", "—")])
    return out + _table(["scenario", "figure", "value", "run", "change", "sandbox CPU-s (change)",
                         "passes → timeouts", "insecure passes dropped"], rows)


# ---- junit ----------------------------------------------------------------------------------

def to_junit(report: Mapping) -> str:
    """One testcase per task (classname = slice). A task fails when none of its counted candidates
    passed the protected tests, and is skipped when it has no counted candidate."""
    run = report["run"]
    root = ET.Element("testsuites", name=f"passgate {run['run_id']}")
    suites: dict[str, ET.Element] = {}
    totals = {"tests": 0, "failures": 0, "skipped": 0}
    omitted = {t["task_id"]: t["reason"] for t in report["omissions"]["tasks"]}
    for task in report["tasks"]:
        suite = suites.get(task["slice"])
        if suite is None:
            suite = suites[task["slice"]] = ET.SubElement(root, "testsuite", name=task["slice"])
            props = ET.SubElement(suite, "properties")
            for key, value in (("run_id", run["run_id"]), ("model", report["config"].get("model")),
                               ("rule", "fails when no counted candidate passes the protected tests")):
                ET.SubElement(props, "property", name=key, value=str(value))
        case = ET.SubElement(suite, "testcase", classname=f"passgate.{task['slice']}", name=task["task_id"],
                             time=f"{task['cpu_s']:.6f}")
        summary = (f"{task['c']}/{task['n']} counted candidates passed; pass@k "
                   + ", ".join(f"{k}={_p(v)}" for k, v in task["pass_at_k"].items())
                   + f"; flaky {task['flaky']}, timeouts {task['timeouts']}, excluded {task['excluded']}, "
                     f"infra_error {task['infra_error']}")
        if task["n"] == 0:
            ET.SubElement(case, "skipped", message=omitted.get(task["task_id"], "no counted candidate"))
            totals["skipped"] += 1
        elif task["c"] == 0:
            ET.SubElement(case, "failure", type="failed",
                          message=f"0/{task['n']} candidates passed the protected tests").text = summary
            totals["failures"] += 1
        ET.SubElement(case, "system-out").text = summary
        totals["tests"] += 1
    for suite in suites.values():
        cases = suite.findall("testcase")
        suite.set("tests", str(len(cases)))
        suite.set("failures", str(sum(1 for c in cases if c.find("failure") is not None)))
        suite.set("skipped", str(sum(1 for c in cases if c.find("skipped") is not None)))
        suite.set("errors", "0")
        suite.set("time", f"{sum(float(c.get('time')) for c in cases):.6f}")
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("errors", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
