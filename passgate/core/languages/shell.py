"""Bash (MultiPL-E's `sh`), Debian's bash in the minimal base.

MultiPL-E's tests are `[[ $(candidate args) = "expected" ]]` lines under `set -e` in a
`run_test` function: each becomes `__pg_report k "$(candidate args)"`, the quoted text after `=`
the expected string (a `[[ = ]]` with a quoted right side compares text exactly).
"""

from __future__ import annotations

import re

from .compare import Compare
from .toolchain import Toolchain
from .spec import REPORT_FD, Integrity, LanguageSpec, Program, Site, SourceFile, SplitTest, TestInput
from .splitting import in_process

BASH = Toolchain("bash", ())
_ASSERT = re.compile(r'^(?P<indent>[ \t]*)\[\[ \$\((?P<call>candidate(?:[^()"]|"(?:[^"\\]|\\.)*")*)\) = '
                     r'(?P<expected>"(?:[^"\\$`]|\\.)*"|[A-Za-z0-9_.+-]*) \]\][ \t]*$', re.M)

RUNTIME = r"""
__pg_json() {
    local s=$1
    s=${s//\\/\\\\}; s=${s//\"/\\\"}; s=${s//$'\n'/\\n}; s=${s//$'\t'/\\t}; s=${s//$'\r'/\\r}
    builtin printf '"%s"' "$s"
}
__pg_report() { builtin printf '{"s":%s,"v":%s}\n' "$1" "$(__pg_json "$2")" >&FD; }
__pg_end() { builtin printf '{"end":%s}\n' "$1" >&FD; }
""".replace("FD", str(REPORT_FD))


def bash_word(text: str) -> str:
    """A double-quoted or bare bash word's value (no expansions: those are refused by the pattern)."""
    if not text.startswith('"'):
        return text
    return re.sub(r'\\([\\"$`\n])', lambda m: "" if m.group(1) == "\n" else m.group(1), text[1:-1])


def split(test: TestInput) -> SplitTest:
    src = test.test
    matches = list(_ASSERT.finditer(src))
    lines_with_brackets = len(re.findall(r"^\s*\[\[", src, re.M))
    if not matches or len(matches) != lines_with_brackets:
        return in_process(src, "a test line that is not `[[ $(candidate ...) = \"...\" ]]`")
    sites, pieces, pos = [], [], 0
    for index, m in enumerate(matches):
        pieces.append(src[pos:m.start()])
        pieces.append(f'{m.group("indent")}__pg_report {index} "$({m.group("call")})"')
        pos = m.end()
        line = src.count("\n", 0, m.start()) + 1
        sites.append(Site(index, line, m.group(0).strip(), bash_word(m.group("expected")), Compare("eq")))
    pieces.append(src[pos:])
    text = "".join(pieces)
    # the tests open by closing the candidate's function: the runtime goes after that brace, at top level
    close = re.match(r"\s*\}[ \t]*\n", text)
    at = close.end() if close else 0
    harness = text[:at] + RUNTIME + text[at:] + f"\n__pg_end {len(sites)}\n"
    return SplitTest(Integrity.OUTSIDE, harness, tuple(sites))


def runtime() -> str:
    return RUNTIME


def program(test: TestInput, completion: str, split_test: SplitTest) -> Program:
    text = test.prompt + completion + "\n" + split_test.harness
    return Program((SourceFile("main.sh", text),), None, ("bash", "main.sh"))


def original(test: TestInput, completion: str) -> Program:
    """MultiPL-E's construction: prompt + completion + tests, `bash`, exit status."""
    return Program((SourceFile("main.sh", test.prompt + completion + "\n" + test.test),), None, ("bash", "main.sh"))


SHELL = LanguageSpec(
    name="sh", title="Bash", toolchain=BASH, fence_tags=("bash", "sh", "shell"), split=split, program=program,
    original=original, runtime=runtime, version_argv=("bash", "--version"), default_stop_tokens=("\n}",))
