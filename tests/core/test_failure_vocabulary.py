"""The worker program's failure words are the record's: every class the program can give a suite is one
of model.FAILURE_CLASSES, so a word typed in core/sandbox/program/ cannot drift from the reports."""

from __future__ import annotations

import ast
from pathlib import Path

from passgate.core.model import FAILURE_CLASSES
from passgate.core.sandbox import program

PROGRAM = Path(program.__file__).parent
# calls whose first argument is a failure class, and functions that return one
CLASS_ARGUMENT = {"_suite_fail", "kill", "CandidateGone"}
CLASS_RETURNING = {"classify_exception", "_classify_exception"}


def class_words() -> set[tuple[str, int, str]]:
    found = set()
    for path in sorted(PROGRAM.glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                if name in CLASS_ARGUMENT and node.args and isinstance(node.args[0], ast.Constant):
                    found.add((path.name, node.lineno, node.args[0].value))
            elif isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values):
                    if isinstance(key, ast.Constant) and key.value == "class" and isinstance(value, ast.Constant) \
                            and value.value is not None:
                        found.add((path.name, node.lineno, value.value))
            elif isinstance(node, ast.FunctionDef) and node.name in CLASS_RETURNING:
                for ret in ast.walk(node):
                    if isinstance(ret, ast.Return) and isinstance(ret.value, ast.Constant):
                        found.add((path.name, ret.lineno, ret.value.value))
            elif isinstance(node, ast.Assign) and any(getattr(t, "id", "") in ("reason", "cls") for t in node.targets) \
                    and isinstance(node.value, ast.Constant):
                found.add((path.name, node.lineno, node.value.value))
    return found


def test_every_failure_word_in_the_worker_program_is_a_recorded_class():
    words = class_words()
    assert len(words) > 12           # the scan sees the program's call sites
    unknown = sorted(w for w in words if w[2] not in FAILURE_CLASSES)
    assert not unknown, f"failure words not in model.FAILURE_CLASSES: {unknown}"


def test_the_scan_catches_an_unknown_word(tmp_path, monkeypatch):
    (tmp_path / "bad.py").write_text("def f(ch):\n    ch.kill('wrong_anwser', 'typo')\n")
    monkeypatch.setattr(program, "__file__", str(tmp_path / "__init__.py"))
    global PROGRAM
    saved, PROGRAM = PROGRAM, tmp_path
    try:
        assert ("bad.py", 2, "wrong_anwser") in class_words()
    finally:
        PROGRAM = saved
