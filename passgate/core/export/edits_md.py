"""Markdown for the report's local-edit sections: text match beside pass@1, latency percentiles
with intervals, acceptance from a suggestion log. Empty for runs without them."""

from __future__ import annotations

import json
from typing import Any, Mapping

from .markdown_table import table as _table

MEASURES = {"first_token_ms": "time to first token (ms)", "total_ms": "total (ms)", "tokens_per_s": "tokens/s"}


def _p(x: Any, digits: int = 3) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def _q(q: Mapping) -> str:
    if q.get("value") is None:
        return "—"
    low = "open" if q.get("ci_low") is None else f"{q['ci_low']:.1f}"
    high = "open" if q.get("ci_high") is None else f"{q['ci_high']:.1f}"
    return f"{q['value']:.1f} [{low}, {high}]"


def _pass(p1: Mapping | None) -> str:
    if not p1 or p1.get("value") is None:
        return "—"
    return _p(p1["value"]) + (f" [{_p(p1['ci_low'])}, {_p(p1['ci_high'])}]" if p1.get("ci_low") is not None else "")


def edits_md(report: Mapping) -> list[str]:
    out: list[str] = []
    ed = report.get("edits")
    if ed:
        groups = ed["slices"] + ([ed["overall"]] if len(ed["slices"]) > 1 else [])
        out += ["## Local edits: pass@1 beside text match", "", ed["rule"] + ".", ""]
        out += _table(["slice", "tasks", "candidates", "pass@1", "exact match", "edit similarity",
                       "exact & passed", "inexact & passed", "exact & failed", "inexact & failed",
                       "similarity passed / failed"],
                      [[g["slice"], g["tasks"], g["candidates"], _pass(g["pass_at_1"]), _p(g["exact_match"]),
                        _p(g["edit_similarity"]), g["agreement"]["exact_passed"], g["agreement"]["inexact_passed"],
                        g["agreement"]["exact_failed"], g["agreement"]["inexact_failed"],
                        f"{_p(g['similarity_of_passed'])} / {_p(g['similarity_of_failed'])}"] for g in groups])
        dis = ed["disagreements"]
        rows = [[kind.replace("_", " "), f"{d['task_id']}#{d['candidate_index']}", d["outcome"], _p(d["similarity"]),
                 f"`{json.dumps(d['middle'])}`", f"`{json.dumps(d['canonical'])}`"]
                for kind in ("inexact_passed", "most_similar_failed", "exact_failed") for d in dis[kind][:5]]
        if rows:
            out += ["### Where text match and execution disagree", ""]
            out += _table(["kind", "candidate", "outcome", "similarity", "middle", "canonical middle"], rows)
        acc = ed.get("acceptance")
        if acc:
            out += ["## Acceptance (suggestion log)", "", acc["rule"] + ".", ""]
            out += _table(["slice", "logged", "shown", "accepted", "acceptance", "edited after", "pass rate accepted",
                           "pass rate rejected", "accepted but failed"],
                          [[g["slice"], g["logged"], g["shown"], g["accepted"], _p(g["acceptance"]),
                            f"{g['edited_after']} ({_p(g['edited_after_rate'])})", _p(g["pass_rate_accepted"]),
                            _p(g["pass_rate_rejected"]), g["accepted_but_failed"]]
                           for g in acc["slices"] + ([acc["overall"]] if len(acc["slices"]) > 1 else [])])
    lat = report.get("latency")
    if lat:
        level = int(round(lat["level"] * 100))
        out += ["## Latency per completion", "", f"{lat['method']}, {level}% intervals ('open': too few completions "
                f"for that bound); {lat['rule']}.", ""]
        rows = []
        for g in lat["slices"] + ([lat["overall"]] if len(lat["slices"]) > 1 else []):
            for m, words in MEASURES.items():
                s = g[m]
                if s["n"]:
                    rows.append([g["slice"], words, s["n"], _q(s["p50"]), _q(s["p90"]), _q(s["p99"]),
                                 _p(s["mean"], 1), _pass(g["pass_at_1"])])
        out += _table(["slice", "measure", "n", "p50", "p90", "p99", "mean", "pass@1"], rows)
        sources = lat["overall"]["sources"]
        out += ["Latency recorded for " + ", ".join(f"{n} ({k})" for k, n in sources.items())
                + f" of {lat['overall']['candidates']} answered candidates.", ""]
    return out
