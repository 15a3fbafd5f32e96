"""Plain-text rendering of a verdict for the terminal and CI logs (no rich: core stays UI-free).

Text is wrapped to the width the command line gives (80 when it gives none) between words only:
a name, a key or a number is never split across lines.
"""

from __future__ import annotations

import re
import textwrap

from .verdict import Verdict

_HEAD = {"release": "RELEASE", "canary": "CANARY ONLY", "blocked": "BLOCKED"}
WIDE = 100                        # from this width on, conditions sit in columns beside their sentences
_BREAKS = re.compile(r"(?<=[/,=:\]\[])")     # where a name longer than a line may fold


def wrap(text: str, indent: str = "", hang: str | None = None, width: int = 80) -> str:
    """`text` wrapped between words (spaces inside a line kept); a word longer than a line folds after
    / , = : [ or ]."""
    hang = " " * len(indent) if hang is None else hang
    room = max(20, width - max(len(indent), len(hang)))
    text = re.sub(r"\S{%d,}" % (room + 1), lambda m: " ".join(_fold(m.group(), room)), " ".join(text.splitlines()))
    if not text.strip():
        return indent.rstrip()
    return textwrap.fill(text, width=width, initial_indent=indent, subsequent_indent=hang,
                         break_on_hyphens=False, break_long_words=False)


def _fold(word: str, room: int) -> list[str]:
    if len(word) <= room:
        return [word]
    pieces, line = [], ""
    for part in _BREAKS.split(word):
        if line and len(line) + len(part) > room:
            pieces.append(line)
            line = ""
        line += part
    pieces.append(line)
    return [p[i:i + room] for p in pieces for i in range(0, len(p), room)]


def render(v: Verdict, width: int = 80) -> str:
    def w(text: str, indent: str = "", hang: str | None = None) -> str:
        return wrap(text, indent, hang, width)

    head = (f"passgate gate {v.run_id}   policy {v.policy['name']} (sha256 {v.policy['sha256'][:12]})"
            + (f"; the manifest names {v.manifest_policy}" if v.manifest_policy != v.policy["name"] else ""))
    lines = [w(head), "", w(f"{_HEAD[v.consequence]}   (exit {v.exit_code})   risk {v.risk}, evidence {v.evidence}")]
    lines += [w(r, "  - ", "    ") for r in v.reasons]
    if v.needs:
        lines += ["", "To release, you need:"]
        lines += [w(f"{n.what}{_command(v, n)}", f"  {i}. ") for i, n in enumerate(v.needs, start=1)]
    lines += ["", "Execution path (* = relaxed step)"]
    for s in v.path:
        tail = f"   [relaxed: {', '.join(s.relaxations)}]" if s.relaxations else ""
        lines.append(w(f"{'*' if s.relaxed else ' '} {s.step:<11}{s.used}{tail}", "", " " * 13))
    lines += ["", f"Risk: {v.risk}"] + [w(r, "  - ", "    ") for r in v.risk_reasons]
    lines += ["", f"Evidence: {v.evidence}"] + [_condition(c, width) for c in v.conditions]
    lines += ["", w("Boundaries (secure default -> policy; used by the run)")]
    for b in v.boundaries:
        lines.append(w(f"{b.boundary:<16}{b.secure} -> {b.policy}; used {b.used or '?'}   [{b.status}]", "  ",
                       " " * 18))
        if b.status != "secure":
            lines.append(w(b.sentence, "      "))
        if b.note:
            lines.append(w(f"note: {b.note}", "      "))
    lines += ["", _contamination(v, width)]
    if v.baseline:
        lines += ["", w(f"Alerts against baseline {v.baseline}")]
        for a in v.alerts:
            lines.append(_alert(a, width))
    return "\n".join(lines) + "\n"


def _condition(c, width: int) -> str:
    if width >= WIDE:
        return wrap(f"{c.level:<9}{c.name:<23}{c.sentence}", "  ", " " * 34, width)
    return wrap(f"{c.level:<9}{c.name}", "  ", " " * 11, width) + "\n" + wrap(c.sentence, " " * 11, width=width)


def _alert(a, width: int) -> str:
    mark = "RAISED" if a.raised else "ok"
    if width >= WIDE:
        return wrap(f"{mark:<7}{a.name:<23}{a.sentence}", "  ", " " * 32, width)
    return wrap(f"{mark:<7}{a.name}", "  ", " " * 9, width) + "\n" + wrap(a.sentence, " " * 9, width=width)


def _command(v: Verdict, need) -> str:
    if need.action == "signoff":
        return f" (`passgate signoff {v.run_id} --boundary {need.subject} --reviewer NAME --statement TEXT`)"
    return ""


def _contamination(v: Verdict, width: int) -> str:
    c = v.contamination
    head = (f"Contamination ({c.ngram}-grams): corpus {c.corpus if c.corpus_checked else 'not given'}; "
            f"reference reproduction {'checked' if c.references_checked else 'not checked'}; "
            f"{len(c.findings)} finding{'' if len(c.findings) == 1 else 's'}")
    rows = [wrap(head, width=width)] + [wrap(n, "  note: ", " " * 8, width) for n in c.notes]
    for f in c.findings[:20]:
        rows.append(wrap(f"{f.task_id} [{f.slice}, {f.exposure}] {f.kind}: {100 * f.fraction:.0f}% "
                         f"({f.matched}/{f.compared} n-grams) {f.detail}", "  ", "    ", width))
    if len(c.findings) > 20:
        rows.append(f"  ... {len(c.findings) - 20} more (see --json)")
    return "\n".join(rows)
