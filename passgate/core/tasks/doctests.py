"""Public suites from a docstring's examples: `>>>` doctests, plus `call => value` lines.

The suite runs in the trusted grader, where `candidate` and the entry point name call the candidate
process and return genuine builtin values. `>>>` examples are compared like doctest does (the repr
of the value, plus anything the example prints, against the expected text); informal examples such
as `digitSum("abAB") => 131` are compared by value.
"""

from __future__ import annotations

import ast
import doctest
import re
from dataclasses import dataclass

_PARSER = doctest.DocTestParser()

# `name(args) <arrow> value`, optionally led by "*" or "for", as HumanEval writes its prose examples.
_ARROWS = r"==>|=>|->|➞|==|=|\breturns\b|\bshould return\b|#\s*returns|#\s*=>"
_INFORMAL = re.compile(r"^\s*(?:\*\s*|for\s+)?(?P<call>[A-Za-z_]\w*\(.*\))\s*(?P<arrow>" + _ARROWS + r")\s*(?P<value>.+?)\s*$")


@dataclass(frozen=True)
class Example:
    """One docstring example: `kind` is "doctest" (compare text) or "value" (compare values)."""

    kind: str
    source: str
    want: str


def docstring_of(prompt: str, entry_point: str) -> str:
    """The entry point's docstring in a prompt ("" when the prompt does not parse or has none)."""
    try:
        tree = ast.parse(prompt)
    except SyntaxError:
        return ""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == entry_point:
            return ast.get_docstring(node, clean=True) or ""
    return ""


def extract_examples(docstring: str, entry_point: str) -> tuple[list[Example], list[str]]:
    """Examples in docstring order, and a sentence for each example that could not be parsed."""
    examples, problems = _doctest_examples(docstring)
    if not examples:
        examples = _informal_examples(docstring, entry_point)
    return examples, problems


def _doctest_examples(docstring: str) -> tuple[list[Example], list[str]]:
    """`>>>` examples via the doctest parser; a block the parser rejects is skipped and reported."""
    try:
        parsed = _PARSER.get_examples(docstring)
    except ValueError:
        parsed = None
    if parsed is not None:
        return [_example(e) for e in parsed if not e.exc_msg], []
    # Parse block by block so one malformed example (e.g. a literal newline inside a string) costs only itself.
    examples, problems = [], []
    for block in _blocks(docstring):
        try:
            found = _PARSER.get_examples(block)
        except ValueError as error:
            problems.append(f"unparseable docstring example skipped: {block.splitlines()[0].strip()!r} ({error})")
            continue
        examples.extend(_example(e) for e in found if not e.exc_msg)
    return examples, problems


def _example(parsed: doctest.Example) -> Example:
    """A doctest example; `>>> f(x) == y` with no expected line asserts the comparison is true."""
    if not parsed.want.strip() and _is_comparison(parsed.source):
        return Example("value", parsed.source.strip(), "True")
    return Example("doctest", parsed.source, parsed.want)


def _is_comparison(source: str) -> bool:
    try:
        return isinstance(ast.parse(source, mode="eval").body, ast.Compare)
    except SyntaxError:
        return False


def _blocks(docstring: str) -> list[str]:
    blocks: list[list[str]] = []
    for line in docstring.splitlines():
        if line.lstrip().startswith(">>>"):
            blocks.append([line])
        elif blocks:
            blocks[-1].append(line)
    return ["\n".join(b) + "\n" for b in blocks]


def _informal_examples(docstring: str, entry_point: str) -> list[Example]:
    examples = []
    for line in docstring.splitlines():
        match = _INFORMAL.match(line)
        if not match or not match.group("call").startswith(entry_point + "("):
            continue
        call, value = match.group("call"), _literal_text(match.group("value"))
        if value is None or not _is_call_of(call, entry_point):
            continue
        examples.append(Example("value", call, value))
    return examples


def _literal_text(text: str) -> str | None:
    """The expected value as Python literal source, or None when it is prose, not a value."""
    text = text.split(" #")[0].strip().rstrip(".").strip()
    text = {"true": "True", "false": "False"}.get(text, text)
    try:
        ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return text


def _is_call_of(source: str, entry_point: str) -> bool:
    try:
        node = ast.parse(source, mode="eval").body
    except SyntaxError:
        return False
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == entry_point):
        return False
    try:
        for arg in node.args:
            ast.literal_eval(arg)
    except ValueError:
        return False  # e.g. `is_happy(a)`: a bare name, not the string the prose meant
    return not node.keywords


# Runs in the grader. Kept free of imports beyond `re` so it adds nothing to the grader's start-up.
_RUNNER = r'''
def _pg_doctest_match(want, got):
    # doctest.OutputChecker with default flags: exact text, True/False for 1/0, <BLANKLINE>.
    if got == want:
        return True
    if (got, want) in (("True\n", "1\n"), ("False\n", "0\n")):
        return True
    import re as _re
    want = _re.sub(r"(?m)^<BLANKLINE>\s*?$", "", want)
    got = _re.sub(r"(?m)^[^\S\n]+$", "", got)
    return got == want


def _pg_run_examples(examples, namespace):
    shown = []

    def _print(*args, sep=" ", end="\n", file=None, flush=False):
        shown.append((" " if sep is None else sep).join(map(str, args)) + ("\n" if end is None else end))

    scope = dict(namespace)
    scope["print"] = _print
    for number, (kind, source, want) in enumerate(examples, 1):
        del shown[:]
        try:
            code = compile(source, "<docstring example %d>" % number, "eval")
        except SyntaxError:
            code = None
        if kind == "value":
            got = eval(code, scope)
            expected = eval(want, {})
            if not (got == expected):
                raise AssertionError("docstring example %d: %s: expected %r, got %r" % (number, source.strip(), expected, got))
            continue
        if code is None:
            exec(compile(source, "<docstring example %d>" % number, "exec"), scope)
        else:
            value = eval(code, scope)
            if value is not None:
                shown.append(repr(value) + "\n")
        got = "".join(shown)
        if not _pg_doctest_match(want, got):
            raise AssertionError("docstring example %d: %s: expected %r, got %r" % (number, source.strip(), want, got))
'''


def public_suite_code(task_id: str, examples: list[Example]) -> str:
    """Grader code that runs `examples` against the candidate ("" when there are none)."""
    if not examples:
        return ""
    rows = ",\n".join(f"    ({e.kind!r}, {e.source!r}, {e.want!r})" for e in examples)
    return (
        f"# passgate public suite: the docstring examples of {task_id}\n"
        + _RUNNER
        + f"\n_pg_run_examples([\n{rows},\n], globals())\n"
    )


# The public examples as code run after the program (grading protocol 3): a value example is an
# assert the grader splits like any other; a printed-output example compares what the example
# shows (its printed text and its value's repr, as doctest does) with the docstring's text, by
# doctest's own rules, in the grader (`__pg_doctest__`), so the expected text never enters the process.
_SHOWN = r'''
def __pg_shown__(source):
    import io, sys
    shown, saved = io.StringIO(), sys.stdout
    sys.stdout = shown
    try:
        try:
            code = compile(source, "<docstring example>", "eval")
        except SyntaxError:
            exec(compile(source, "<docstring example>", "exec"), globals())
        else:
            value = eval(code, globals())
            if value is not None:
                print(repr(value))
    finally:
        sys.stdout = saved
    return shown.getvalue()
'''


def public_suffix(task_id: str, examples: list[Example], entry_point: str) -> str:
    """The docstring examples of `task_id` as code that runs after the program ("" when there are none)."""
    if not examples:
        return ""
    lines = [f"# the docstring examples of {task_id}", f"candidate = {entry_point}"]
    if any(e.kind != "value" for e in examples):
        lines.append(_SHOWN)
    for number, e in enumerate(examples, 1):
        label = f"docstring example {number}: {e.source.strip()}"
        if e.kind == "value":
            lines.append(f"assert ({e.source.strip()}) == ({e.want}), {label!r}")
        else:
            lines.append(f"assert __pg_doctest__({e.want!r}, __pg_shown__({e.source!r})), {label!r}")
    return "\n".join(lines) + "\n"

