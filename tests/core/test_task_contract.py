"""The task contract beyond the tests: allowed imports in the manifest, what a program's text names,
the entry point's signature, and the gate's reading of them. Plain data here; the run end to end
(real sandbox) is in test_task_contract_run.py."""

from __future__ import annotations

import pytest

from passgate.core.errors import ConfigError
from passgate.core.manifest import dump_manifest, parse_manifest
from passgate.core.tasks.contract import entry_signature, scan_imports, signature_changes

MANIFEST = """version: 1
name: t
tasks:
  sets:
    - kind: {kind}
      path: x.jsonl
{extra}
candidates:
  source: reference
"""


def manifest(kind="humaneval", extra=""):
    return parse_manifest(MANIFEST.format(kind=kind, extra=extra))


def test_a_public_benchmark_allows_the_standard_library_and_a_users_own_tasks_anything():
    assert manifest().tasks.sets[0].imports == ("stdlib",)
    assert manifest("product").tasks.sets[0].imports == ("any",)


def test_saying_the_default_keeps_the_manifest_id_and_anything_else_changes_it():
    default = manifest().manifest_id
    assert manifest(extra="      allowed_imports: stdlib").manifest_id == default
    assert manifest(extra="      allowed_imports: [stdlib]").manifest_id == default
    listed = manifest(extra="      allowed_imports: [numpy, stdlib, numpy]")
    assert listed.manifest_id != default
    assert listed.tasks.sets[0].imports == ("stdlib", "numpy")
    assert manifest(extra="      allowed_imports: [stdlib, numpy]").manifest_id == listed.manifest_id
    assert "allowed_imports:\n    - stdlib\n    - numpy" in dump_manifest(listed)


@pytest.mark.parametrize("value, words", [
    ("[]", "at least one"), ("[any, numpy]", "stands alone"), ("[numpy.linalg]", "numpy, not numpy.linalg"),
    ("[scikit-learn]", "not a distribution"), ("[3]", "expected text")])
def test_a_bad_allowed_imports_value_names_the_key_and_why(value, words):
    with pytest.raises(ConfigError) as err:
        manifest(extra=f"      allowed_imports: {value}")
    assert "tasks.sets.0.allowed_imports" in str(err.value) and words in str(err.value)


def test_repository_tasks_take_their_packages_from_the_allowlist():
    with pytest.raises(ConfigError, match="execution.packages"):
        manifest("repo", "      allowed_imports: stdlib")


def test_the_scan_names_every_import_form_even_in_code_that_never_runs():
    program = ("import os, numpy as np\nfrom collections import Counter\nimport importlib, sys\n"
               "def never_called(x):\n    import requests\n    importlib.import_module('pandas')\n"
               "    __import__(x)\n    exec('import yaml')\n    return sys.modules['torch']\n")
    parsed, named = scan_imports(program, ("stdlib",))
    assert parsed
    got = {(n.module, n.line, n.how, n.allowed) for n in named}
    assert ("numpy", 1, "import", False) in got and ("os", 1, "import", True) in got
    assert ("requests", 5, "import", False) in got and ("pandas", 6, "importlib", False) in got
    assert ("", 7, "__import__", None) in got                      # a computed name: counted as dynamic
    assert ("yaml", 8, "exec", False) in got and ("torch", 9, "sys.modules", False) in got
    assert scan_imports(program, ("stdlib",), skip_lines=5)[1][0].line == 6     # the task's own lines left out
    assert scan_imports("def f(:\n", ("stdlib",)) == (False, [])


def test_the_signature_is_read_from_the_prompt_and_compared_in_what_a_caller_can_pass():
    prompt = 'from typing import List\n\ndef f(xs: List[int], n: int = 3, *, key=None) -> int:\n    """doc"""\n'
    task = entry_signature(prompt, "f")
    assert [(p["name"], p["kind"], p["default"]) for p in task["params"]] == [
        ("xs", "positional_or_keyword", None), ("n", "positional_or_keyword", "3"), ("key", "keyword_only", "None")]
    assert signature_changes(task, entry_signature(prompt + "    return 0\n", "f")) == []
    renamed = entry_signature("def f(values, n=3, *, key=None):\n    pass\n", "f")
    assert signature_changes(task, renamed) == ["parameter 1 is named values, was xs"]
    widened = entry_signature("def f(xs, n=2, *args, key=None, **kw):\n    pass\n", "f")
    assert signature_changes(task, widened) == ["default of n is 2, was 3", "*args added", "**kwargs added"]
    narrowed = entry_signature("async def f(xs, n, /):\n    pass\n", "f")
    assert signature_changes(task, narrowed) == [
        "is async", "parameter 1 (xs) is positional-only, was positional-or-keyword",
        "parameter 2 (n) is positional-only, was positional-or-keyword", "n is required now",
        "keyword-only key removed"]
    assert signature_changes(task, None) == ["f is not defined by a top-level def"]


def test_the_default_imports_follow_the_kind():
    """The Python public benchmarks take `stdlib` by default; a user's own sets and the language kinds `any`."""
    from passgate.core import kinds
    from passgate.core.kinds import default_imports
    stdlib = {k for k in kinds.names() if default_imports(k) == ("stdlib",)}
    assert stdlib == set(kinds.names(public=True, grader="python"))
    assert stdlib >= {"humaneval", "mbpp", "mbpp-sanitized", "humanevalplus", "mbppplus", "humaneval-infilling"}
    assert default_imports("product") == default_imports("humaneval-x") == ("any",)
