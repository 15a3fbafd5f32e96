"""Plain-text rendering of a verdict for the terminal and CI logs (no rich: core stays UI-free)."""

from __future__ import annotations

import textwrap

from .verdict import Verdict

_HEAD = {"release": "RELEASE", "canary": "CANARY ONLY", "blocked": "BLOCKED"}


def _wrap(text: str, indent: str, width: int = 100) -> str:
    return textwrap.fill(text, width=width, initial_indent=indent, break_on_hyphens=False, break_long_words=False,
                         subsequent_indent=" " * len(indent) + ("  " if not indent.strip() else ""))


def render(v: Verdict) -> str:
    lines = [f"passgate gate {v.run_id}   policy {v.policy['name']} (sha256 {v.policy['sha256'][:12]})"
             + (f"; the manifest names {v.manifest_policy}" if v.manifest_policy != v.policy["name"] else ""),
             "", f"{_HEAD[v.consequence]}   (exit {v.exit_code})   risk {v.risk}, evidence {v.evidence}"]
    lines += [_wrap(r, "  - ") for r in v.reasons]
    if v.needs:
        lines += ["", "To release, you need:"]
        lines += [_wrap(f"{n.what}{_command(v, n)}", f"  {i}. ") for i, n in enumerate(v.needs, start=1)]
    lines += ["", "Execution path (* = relaxed step)"]
    for s in v.path:
        mark = "*" if s.relaxed else " "
        tail = f"   [relaxed: {', '.join(s.relaxations)}]" if s.relaxations else ""
        lines.append(textwrap.fill(f"{mark} {s.step:<11}{s.used}{tail}", width=110, subsequent_indent=" " * 13,
                                   break_on_hyphens=False, break_long_words=False))
    lines += ["", f"Risk: {v.risk}"] + [_wrap(r, "  - ") for r in v.risk_reasons]
    lines += ["", f"Evidence: {v.evidence}"]
    for c in v.conditions:
        lines.append(textwrap.fill(f"  {c.level:<9}{c.name:<23}{c.sentence}", width=110, subsequent_indent=" " * 34,
                                   break_on_hyphens=False, break_long_words=False))
    lines += ["", "Boundaries (secure default -> policy; used by the run)"]
    for b in v.boundaries:
        lines.append(f"  {b.boundary:<16}{b.secure} -> {b.policy}; used {b.used or '?'}   [{b.status}]")
        if b.status != "secure":
            lines.append(_wrap(b.sentence, "      "))
        if b.note:
            lines.append(_wrap(f"note: {b.note}", "      "))
    lines += ["", _contamination(v)]
    if v.baseline:
        lines += ["", f"Alerts against baseline {v.baseline}"]
        for a in v.alerts:
            lines.append(_wrap(f"{'RAISED' if a.raised else 'ok':<7}{a.name:<23}{a.sentence}", "  ", 110))
    return "\n".join(lines) + "\n"


def _command(v: Verdict, need) -> str:
    if need.action == "signoff":
        return f" (`passgate signoff {v.run_id} --boundary {need.subject} --reviewer NAME --statement TEXT`)"
    return ""


def _contamination(v: Verdict) -> str:
    c = v.contamination
    head = (f"Contamination ({c.ngram}-grams): corpus {c.corpus if c.corpus_checked else 'not given'}; "
            f"reference reproduction {'checked' if c.references_checked else 'not checked'}; "
            f"{len(c.findings)} findings")
    rows = [head] + [_wrap(n, "  note: ") for n in c.notes]
    for f in c.findings[:20]:
        rows.append(_wrap(f"{f.task_id} [{f.slice}, {f.exposure}] {f.kind}: {100 * f.fraction:.0f}% "
                          f"({f.matched}/{f.compared} n-grams) {f.detail}", "  "))
    if len(c.findings) > 20:
        rows.append(f"  ... {len(c.findings) - 20} more (see --json)")
    return "\n".join(rows)
