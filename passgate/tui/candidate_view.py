"""One candidate as the failures screen shows it: the head line, the tests with line numbers (the
failing line marked), and the output tab. Rich renderables; no Textual here.

What is shown follows what the record holds: the failing line and the value the candidate returned
come from the attempt's evidence, the expected value from the failing assertion itself; how the
candidate's process ended is said only where it tells something (a wrong answer's process is
stopped by the grader after the calls, which is not why it failed); figures a run did not measure
(repository patches have no candidate CPU or memory) are left out instead of shown as zeros.
"""

from __future__ import annotations

import ast
import json
import re

from rich.console import Group
from rich.markup import escape
from rich.syntax import Syntax
from rich.text import Text

from passgate.core.words import CLASS_MEANING, class_words, plain

from . import languages

_ASSERT_EQ = re.compile(r"^assert\s+(?P<call>.+?)\s*==\s*(?P<expected>.+?)(?:\s*,\s*(?:f?['\"]).*)?$")


def attempt_result(a: dict) -> str:
    """What an attempt decided: its protected verdict, or the evaluator's failure (never a bare 'ok')."""
    if a["status"] != "ok":
        return class_words(a["status"]) or "?"
    return a["protected_status"] or "?"


def evidence_of(attempt: dict) -> dict:
    try:
        found = json.loads(attempt.get("evidence_json") or "{}")
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def expected_of(source: str) -> str | None:
    """The expected value of a failing `assert f(x) == expected` line, when the line says it plainly."""
    found = _ASSERT_EQ.match((source or "").strip())
    if not found:
        return None
    expected = found.group("expected").strip()
    try:
        ast.parse(expected, mode="eval")
    except SyntaxError:
        return None
    return expected


def failing_lines(last: dict, task: dict | None = None) -> list[tuple[str, str]]:
    """(label, text) of where each suite failed, what was expected and what the candidate returned.

    A public suite built from the prompt's docstring examples fails inside its own runner (the line that
    raises "docstring example ...", or the one that evaluates an example): that line is the harness's, so
    the example it ran is named instead, with its expected value, where the suite has one example; with
    several, the record does not say which one failed, and the line says so."""
    evidence = evidence_of(last)
    out = []
    for suite in ("protected", "public"):
        where = evidence.get(suite)
        if not isinstance(where, dict):
            continue
        examples = docstring_examples(task, suite, where)
        if examples is not None:
            out += example_lines(examples)
        elif where.get("line") is not None:
            out.append((f"Failing line ({suite} tests)", f"line {where['line']}: {where.get('source') or ''}"))
            expected = expected_of(where.get("source") or "")
            if expected is not None:
                out.append((f"Expected ({suite} tests)", expected))
        if where.get("returned"):
            out.append((f"Returned ({suite} tests)", str(where["returned"])))
    return out


def docstring_examples(task: dict | None, suite: str, where: dict) -> list[tuple[int, str, str]] | None:
    """(line, source, expected) of each example of a docstring-example suite that failed inside its runner
    (the `_pg_` functions), or None when the failure is at a line of the tests themselves."""
    if suite != "public" or not task or where.get("line") is None:
        return None
    try:
        tree = ast.parse(task.get("public_tests") or "")
    except SyntaxError:
        return None
    runner = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("_pg_")]
    if not any(node.lineno <= int(where["line"]) <= (node.end_lineno or node.lineno) for node in runner):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "_pg_run_examples" and node.args \
                and isinstance(node.args[0], ast.List):
            found = []
            for item in node.args[0].elts:
                try:
                    kind, call, want = ast.literal_eval(item)
                except (ValueError, TypeError, SyntaxError):
                    return None
                found.append((item.lineno, str(call).strip(), str(want).strip()))
            return found or None
    return None


def example_lines(examples: list[tuple[int, str, str]]) -> list[tuple[str, str]]:
    if len(examples) == 1:
        line, call, want = examples[0]
        return [("Failing example (public tests)", f"line {line}: {call}"), ("Expected (public tests)", want)]
    return [("Failing example (public tests)",
             f"one of the prompt's {len(examples)} docstring examples (the record does not say which; the Tests "
             "tab lists them)")]


def failing_line_numbers(last: dict, task: dict | None = None) -> dict[str, int]:
    """suite -> the failing line's number, to mark it in the Tests tab. A docstring example's runner is not
    marked (its line is the harness's); a suite of one example marks that example."""
    evidence = evidence_of(last)
    out = {}
    for suite in ("protected", "public"):
        where = evidence.get(suite)
        if not isinstance(where, dict) or where.get("line") is None:
            continue
        examples = docstring_examples(task, suite, where)
        if examples is None:
            out[suite] = int(where["line"])
        elif len(examples) == 1:
            out[suite] = examples[0][0]
    return out


def exit_words(last: dict, failure_class: str | None, repo: bool) -> tuple[str, str] | None:
    """(label, words) for how the run's last process ended, or None where that says nothing."""
    reason = (last.get("exit_reason") or "").strip()
    if not reason:
        return None
    if repo:
        return "Build", reason
    kind, _, value = reason.partition(" ")
    if kind == "signal":
        if failure_class in ("timeout", "memory_exceeded", "output_exceeded"):
            return "Process", f"killed by signal {value} at the sandbox's limit"
        return None             # the grader stops the candidate's process after its calls: not the failure
    if kind == "exit":
        if failure_class == "premature_exit":
            return "Process", f"the candidate exited by itself with status {value} before the tests finished"
        return ("Process", f"exited with status {value}") if value not in ("0", "None") else None
    return "Process", reason


def tests_view(task: dict, lines: dict[str, int]) -> Group:
    """Each suite with its own line numbers (the failure cites them), the failing line highlighted; a task
    in another language in its own lexer, without its test setup (the language header, not code)."""
    parts: list = []
    lexer = languages.lexer_of(task)
    suites = (("test_setup", "test setup", None), ("protected_tests", "protected suite (the verdict)", "protected"),
              ("public_tests", "public suite (what the model saw)", "public"))
    for column, title, suite in suites:
        source = task.get(column) or ""
        if column == "test_setup" and (not source.strip() or languages.language_of(task)):
            continue
        parts.append(Text(f"# {title}", style="bold"))
        if not source.strip():
            parts.append(Text("  none"))
            continue
        mark = {lines[suite]} if suite in lines else set()
        parts.append(Syntax(source.rstrip("\n"), lexer, line_numbers=True, word_wrap=True, highlight_lines=mark))
        if mark:
            parts.append(Text(f"  ▲ line {lines[suite]} is where the {suite} tests failed", style="bold red"))
    return Group(*parts)


def head_text(cand: dict, task: dict, outcome: dict, attempts: list[dict], last: dict, decided: str = "") -> Text:
    """The verdict, how its assertions were decided (`decided`, from `tui/integrity.decided_line`), then the
    deciding attempt's resource figures."""
    verdict = outcome.get("outcome", "undecided")
    colour = {"passed": "green", "failed": "red", "flaky": "yellow"}.get(verdict, "magenta")
    reruns = sum(a["purpose"] == "rerun" for a in attempts)
    tries = f"attempts {len(attempts)}" + (f" ({reruns} rerun{'s' if reruns != 1 else ''})" if reruns else "")
    language = f"{escape(languages.describe(task))}  " if languages.language_of(task) else ""
    text = Text.from_markup(
        f"[b]{task['task_id']}[/b] #{cand['candidate_index']}  slice {task['slice']}  {language}"
        f"[{colour}]{class_words(verdict)}[/{colour}] {class_words(outcome.get('failure_class')) or ''}  {tries}\n")
    if decided:
        text.append(decided + "\n", style="dim" if decided.startswith("decided: not recorded") else "")
    text.append(" · ".join(resource_figures(last, task)) or "no resource figures recorded")
    return text


def code_view(cand: dict, repo: bool, task: dict | None = None):
    """The candidate's program, under where it came from (the samples line, the generator, the reference);
    a completion in another language after the prompt it continues, in its language's lexer."""
    program = cand["program"] or cand["processed_text"] or cand["raw_text"] or ""
    source = Text(f"# {cand['source']} {cand['source_ref'] or ''}".rstrip(), style="dim")
    if not program:
        return Group(source, Text(f"not run: {cand['excluded_reason'] or ''}"))
    if task and languages.language_of(task):
        return Group(source, Syntax(languages.program_text(task, cand), languages.lexer_of(task), line_numbers=True,
                                    word_wrap=True))
    return Group(source, Syntax(program, "diff" if repo else "python", line_numbers=True, word_wrap=True))


def resource_figures(last: dict, task: dict) -> list[str]:
    """The attempt's measured figures (a unit stays with its number); a figure the run did not measure is
    left out, not shown as zero."""
    out = []
    cpu, limit = last.get("cpu_s") or 0, task.get("cpu_limit_s") or 0
    if cpu or limit:
        out.append(f"CPU {cpu:.3f}s" + (f" of {limit:.1f}s" if limit else ""))
    if last.get("wall_s"):
        out.append(f"wall {last['wall_s']:.3f}s")
    if last.get("peak_rss_kb"):
        out.append(f"peak memory {last['peak_rss_kb'] / 1024:.1f}MiB")
    if last.get("out_bytes"):
        out.append(f"output {last['out_bytes']}B")
    return out


def output_text(outcome: dict, last: dict, repo: bool, task: dict | None = None) -> Text:
    text = Text()
    decided = outcome.get("outcome")
    text.append("Decision: ", style="bold")
    text.append(f"{outcome.get('reason') or class_words(decided) or 'undecided'}")
    meaning = CLASS_MEANING.get(decided or "")
    text.append(f" ({meaning})\n" if meaning and not outcome.get("reason") else "\n")
    text.append("Detail: ", style="bold")
    text.append(f"{last.get('detail') or '—'}\n")
    for label, value in failing_lines(last, task):
        text.append(f"{label}: ", style="bold")
        text.append(f"{value}\n")
    ended = exit_words(last, outcome.get("failure_class") or last.get("failure_class"), repo)
    if ended:
        text.append(f"{ended[0]}: ", style="bold")
        text.append(f"{ended[1]}\n")
    if last.get("exc_type"):
        text.append("Exception: ", style="bold")
        text.append(f"{last['exc_type']}\n")
    violations = violations_of(last.get("violations_json"))
    if violations:
        text.append("Sandbox violations:\n", style="bold red")
        text.append("".join(f"  • {v}\n" for v in violations))
    text.append("Captured output (stdout + stderr, as stored):\n", style="bold")
    text.append((last.get("stdout") or "") + (last.get("stderr") or "") or "(none)")
    return text


def violations_of(blob: str | None) -> list[str]:
    try:
        found = json.loads(blob or "[]")
    except ValueError:
        return [plain(blob)]
    return [v if isinstance(v, str) else ", ".join(f"{k} {x}" for k, x in v.items()) if isinstance(v, dict)
            else str(v) for v in (found if isinstance(found, list) else [found])]
