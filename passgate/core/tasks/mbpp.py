"""MBPP (Austin et al. 2021): the original 974-task release and the 427-task sanitized subset.

Task ids are `Mbpp/<n>`, the spelling EvalPlus uses, so MBPP and MBPP+ results line up.
The protected suite is every assert of `test_list` (the official grading suite); the public suite
is the first assert, the one the prompt shows.
"""

from __future__ import annotations

import ast
import builtins
import json
import warnings
from pathlib import Path

from passgate.core.errors import ConfigError
from passgate.core.model import Task

from .io import iter_json_lines, optional, require

SPLITS = {
    "prompt": range(1, 11),
    "test": range(11, 511),
    "validation": range(511, 601),
    "train": range(601, 975),
}

PROMPT_TEMPLATE = (
    "You are an expert Python programmer, and here is your task: {text} "
    "Your code should pass these tests:\n\n{first_test}\n"
)


def in_split(number: int, split: str) -> bool:
    if split == "all":
        return True
    if split not in SPLITS:
        raise ConfigError(f"unknown MBPP split {split!r}; use one of {', '.join([*SPLITS, 'all'])}", field="split")
    return number in SPLITS[split]


def load_original(path: Path, text: str, slice_name: str, split: str) -> tuple[list[Task], list[str]]:
    """mbpp.jsonl: `text, code, task_id, test_setup_code, test_list, challenge_test_list`."""
    tasks, notes = [], []
    for line, record in iter_json_lines(path, text):
        number = require(record, "task_id", int, path, line)
        if not in_split(number, split):
            continue
        task, note = _task(
            path, line, number, slice_name,
            text=require(record, "text", str, path, line),
            code=require(record, "code", str, path, line),
            setup=optional(record, "test_setup_code", str, "", path, line),
            tests=_tests(record, path, line),
        )
        tasks.append(task)
        notes.extend(note)
    return tasks, notes


def load_sanitized(path: Path, text: str, slice_name: str, split: str) -> tuple[list[Task], list[str]]:
    """sanitized-mbpp.json (one JSON array): `source_file, task_id, prompt, code, test_imports, test_list`."""
    try:
        records = json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(f"not valid JSON ({error.msg})", path=str(path), line=error.lineno) from None
    if not isinstance(records, list):
        raise ConfigError("expected one JSON array of task objects", path=str(path))
    tasks, notes = [], []
    for index, record in enumerate(records):
        where = f"{path} [record {index}]"
        if not isinstance(record, dict):
            raise ConfigError("each array item must be an object", path=where)
        number = require(record, "task_id", int, where, None)
        if not in_split(number, split):
            continue
        imports = optional(record, "test_imports", list, [], where, None)
        task, note = _task(
            where, None, number, slice_name,
            text=require(record, "prompt", str, where, None),
            code=require(record, "code", str, where, None),
            setup="\n".join(str(i) for i in imports),
            tests=_tests(record, where, None),
        )
        tasks.append(task)
        notes.extend(note)
    return tasks, notes


def _tests(record: dict, path, line) -> list[str]:
    tests = require(record, "test_list", list, path, line)
    if not tests or not all(isinstance(t, str) for t in tests):
        raise ConfigError("must be a non-empty list of assert strings", path=str(path), line=line, field="test_list")
    return tests


def _task(path, line, number: int, slice_name: str, *, text: str, code: str, setup: str, tests: list[str]) -> tuple[Task, list[str]]:
    task_id = f"Mbpp/{number}"
    code, setup = _lf(code), _lf(setup)
    tests = [_lf(t) for t in tests]
    entry_point = entry_point_of(tests[0], code)
    if entry_point is None:
        raise ConfigError("cannot tell which function the first test calls", path=str(path), line=line, field="test_list")
    notes, preamble, trusted_setup, suite_head = [], setup, setup, ""
    if setup and not _only_imports(setup):
        # The setup builds objects from the candidate's own classes (e.g. Mbpp/367 `Node`): it can only
        # run after the candidate's names are bound, so it opens each suite instead.
        preamble, trusted_setup, suite_head = "", "", setup.rstrip("\n") + "\n"
        notes.append(f"{task_id}: test_setup_code uses names the solution defines; it runs at the start of each suite")
    borrowed = _imports_tests_need(code, tests, already=trusted_setup)
    if borrowed:
        # e.g. Mbpp/596 tests call sys.getsizeof: the reference harness shares one namespace, so the
        # tests saw the solution's `import sys`. The grader imports the module itself instead.
        trusted_setup = "\n".join(filter(None, [trusted_setup.rstrip("\n"), *borrowed]))
        notes.append(f"{task_id}: the tests use modules the reference imports; the grader imports them too: {'; '.join(borrowed)}")
    setup_block = preamble.rstrip("\n") + "\n" if preamble else ""
    return Task(
        task_id=task_id,
        slice=slice_name,
        prompt=PROMPT_TEMPLATE.format(text=text.strip(), first_test=tests[0]),
        entry_point=entry_point,
        public_tests=suite_head + tests[0] + "\n",
        protected_tests=suite_head + "\n".join(tests) + "\n",
        test_setup=trusted_setup.rstrip("\n") + "\n" if trusted_setup else "",
        candidate_preamble=setup_block,
        reference_solution=setup_block + code.rstrip("\n") + "\n",  # a whole program: preamble included
        completion_style="full",
        # the MBPP harness: the solution, test_setup_code, then every assert of test_list, in one namespace
        classic_suffix="\n" + (setup.rstrip("\n") + "\n" if setup else "") + "\n".join(tests) + "\n",
        public_suffix="\n" + (setup.rstrip("\n") + "\n" if setup else "") + tests[0] + "\n",
    ), notes


def entry_point_of(test: str, code: str) -> str | None:
    """The function the assert calls: the first called name, in source order, that the code defines."""
    try:
        calls = [n for n in ast.walk(_parse(test)) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    except SyntaxError:
        return None
    calls.sort(key=lambda n: (n.lineno, n.col_offset))
    defined = _defined_functions(code)
    for call in calls:
        if call.func.id in defined:
            return call.func.id
    others = [c.func.id for c in calls if not hasattr(builtins, c.func.id)]
    return others[0] if others else None


def _imports_tests_need(code: str, tests: list[str], already: str) -> list[str]:
    """Import statements of the reference whose names the tests use and the setup does not import."""
    if "import" not in code:
        return []
    try:
        imports = [n for n in _parse(code).body if isinstance(n, (ast.Import, ast.ImportFrom))]
        if not imports:
            return []
        used = {n.id for t in tests for n in ast.walk(_parse(t)) if isinstance(n, ast.Name)}
        used -= _bound_by_imports(_parse(already))
    except SyntaxError:
        return []
    return [ast.unparse(n) for n in imports if _bound_by_imports(ast.Module(body=[n], type_ignores=[])) & used]


def _bound_by_imports(tree: ast.Module) -> set[str]:
    return {
        (alias.asname or alias.name).split(".")[0]
        for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }


def _defined_functions(code: str) -> set[str]:
    try:
        tree = _parse(code)
    except SyntaxError:
        return set()
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _only_imports(code: str) -> bool:
    try:
        tree = _parse(code)
    except SyntaxError:
        return False
    return all(isinstance(n, (ast.Import, ast.ImportFrom)) for n in tree.body)


def _parse(source: str) -> ast.Module:
    """ast.parse without the invalid-escape warnings some MBPP reference code triggers."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", (SyntaxWarning, DeprecationWarning))
        return ast.parse(source)


def _lf(text: str) -> str:
    """MBPP's code uses CRLF line ends; passgate stores LF so programs join cleanly with other text."""
    return text.replace("\r\n", "\n")
