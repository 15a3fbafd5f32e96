"""The task contract beyond the tests: the modules a program may import and its entry point's signature.

`allowed_imports` is what a manifest's task set declares (`stdlib`, `any`, or top-level module names
with `stdlib` usable among them); public benchmarks default to `stdlib`, a user's own tasks to `any`.
The candidate's process enforces it (core/sandbox/program/imports.py); `scan_imports` reads what a
program's text names, without running it, so a report shows what a candidate tried even where that
code never ran. `entry_signature` records the entry point's parameters (names, kinds, defaults) from
the prompt or the reference; `signature_changes` says how a candidate's differs in what a caller can
pass. Pure functions of text; nothing here executes a program.
"""

from __future__ import annotations

import ast
from dataclasses import asdict, dataclass
from typing import Iterable

from passgate.core.allowed_imports import STDLIB, allows, imports_words


# ---- what a program names ----------------------------------------------------------------------
@dataclass(frozen=True)
class NamedImport:
    """One module a program's text names: `how` is import | __import__ | importlib | sys.modules |
    exec; `module` is "" where the name is computed at run time (`dynamic`)."""
    module: str
    line: int
    how: str
    allowed: bool | None = None

    @property
    def top(self) -> str:
        return self.module.partition(".")[0]

    def as_dict(self) -> dict:
        return {**asdict(self), "top": self.top}


_BY_NAME_CALLS = {"__import__": "__import__", "import_module": "importlib", "importlib.import_module": "importlib",
                  "importlib.__import__": "importlib", "pkgutil.resolve_name": "importlib",
                  "runpy.run_module": "importlib", "importlib.util.find_spec": "importlib"}
_EXEC_CALLS = {"exec", "eval", "compile"}


def scan_imports(program: str, allowed_imports: Iterable[str] = ("any",), *, skip_lines: int = 0,
                 stdlib: frozenset[str] = STDLIB) -> tuple[bool, list[NamedImport]]:
    """(parsed, the modules the program names after its first `skip_lines` lines), each judged
    against `allowed_imports`. Strings handed to exec/eval/compile are read as code too."""
    allowed = tuple(allowed_imports)
    try:
        tree = ast.parse(program)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False, []
    found: list[NamedImport] = []
    for module, line, how in _names(tree, 0):
        if line <= skip_lines:
            continue
        verdict = allows(allowed, module.partition(".")[0], stdlib) if module else None
        item = NamedImport(module, line, how, verdict)
        if item not in found:
            found.append(item)
    return True, found


def _names(tree: ast.AST, depth: int, at_line: int | None = None):
    """(module, line, how) for every import the tree names; `at_line` pins code read from a string."""
    for node in ast.walk(tree):
        line = at_line or getattr(node, "lineno", 0)
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, line, "exec" if at_line else "import"
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module, line, "exec" if at_line else "import"
        elif isinstance(node, ast.Subscript) and _dotted(node.value) == "sys.modules":
            yield _constant(node.slice), line, "sys.modules"
        elif isinstance(node, ast.Call):
            name = _dotted(node.func)
            if name == "sys.modules.get" and node.args:
                yield _constant(node.args[0]), line, "sys.modules"
            elif name in _BY_NAME_CALLS and node.args:
                module = _constant(node.args[0])
                yield (module.partition(":")[0] if module else ""), line, _BY_NAME_CALLS[name]
            elif name in _EXEC_CALLS and node.args and depth < 3:
                text = _constant(node.args[0])
                try:
                    inner = ast.parse(text) if text else None
                except (SyntaxError, ValueError, RecursionError, MemoryError):
                    inner = None
                if inner is not None:
                    yield from _names(inner, depth + 1, line)


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def _constant(node: ast.AST) -> str:
    """A string constant's value; "" for anything computed."""
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else ""


# ---- the entry point's signature ---------------------------------------------------------------
_KINDS = ("positional_only", "positional_or_keyword", "var_positional", "keyword_only", "var_keyword")


def entry_signature(source: str, entry_point: str) -> dict | None:
    """The last top-level `def entry_point` in `source`: its parameters (name, kind, default as code)
    and whether it is async; None when the source does not parse or does not define it."""
    if not source or not entry_point:
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    found = None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == entry_point:
            found = node
    if found is None:
        return None
    a = found.args
    positional = a.posonlyargs + a.args
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    params = []
    for i, (arg, default) in enumerate(zip(positional, defaults)):
        params.append(_param(arg.arg, "positional_only" if i < len(a.posonlyargs) else "positional_or_keyword",
                             default))
    if a.vararg:
        params.append(_param(a.vararg.arg, "var_positional", None))
    for arg, default in zip(a.kwonlyargs, a.kw_defaults):
        params.append(_param(arg.arg, "keyword_only", default))
    if a.kwarg:
        params.append(_param(a.kwarg.arg, "var_keyword", None))
    return {"name": entry_point, "async": isinstance(found, ast.AsyncFunctionDef), "params": params}


def _param(name: str, kind: str, default: ast.AST | None) -> dict:
    return {"name": name, "kind": kind, "default": None if default is None else ast.unparse(default)}


def task_signature(entry_point: str, *sources: str) -> tuple[dict | None, str]:
    """(signature, where from) from the first source that defines the entry point: the prompt (with
    the task's preamble) or the reference."""
    names = ("prompt", "prompt", "reference")
    for name, source in zip(names, sources):
        sig = entry_signature(source, entry_point)
        if sig is not None:
            return sig, name
    return None, ""


def signature_changes(expected: dict, got: dict | None) -> list[str]:
    """How `got` differs from `expected` in what a caller can pass (names a caller can use by keyword,
    which arguments are required, what may be passed by position, *args and **kwargs), and in the
    defaults a caller who leaves an argument out receives. Empty when they agree."""
    if got is None:
        return [f"{expected['name']} is not defined by a top-level def"]
    out = []
    if expected.get("async") != got.get("async"):
        out.append("is async" if got.get("async") else "is no longer async")
    pos_e, pos_g = _positional(expected), _positional(got)
    if len(pos_e) != len(pos_g):
        out.append(f"takes {len(pos_g)} positional parameters, the task's {len(pos_e)}")
    for i, (e, g) in enumerate(zip(pos_e, pos_g), 1):
        if e["kind"] != g["kind"]:
            out.append(f"parameter {i} ({g['name']}) is {g['kind'].replace('_', '-')}, was {e['kind'].replace('_', '-')}")
        elif e["kind"] == "positional_or_keyword" and e["name"] != g["name"]:
            out.append(f"parameter {i} is named {g['name']}, was {e['name']}")
        out += _default_change(e, g)
    kw_e, kw_g = _by_kind(expected, "keyword_only"), _by_kind(got, "keyword_only")
    for name in sorted(set(kw_e) | set(kw_g)):
        if name not in kw_g:
            out.append(f"keyword-only {name} removed")
        elif name not in kw_e:
            out.append(f"keyword-only {name} added" + ("" if kw_g[name]["default"] is not None else " (required)"))
        else:
            out += _default_change(kw_e[name], kw_g[name])
    for kind, words in (("var_positional", "*args"), ("var_keyword", "**kwargs")):
        had, has = bool(_by_kind(expected, kind)), bool(_by_kind(got, kind))
        if had != has:
            out.append(f"{words} {'added' if has else 'removed'}")
    return out


def _positional(sig: dict) -> list[dict]:
    return [p for p in sig["params"] if p["kind"] in ("positional_only", "positional_or_keyword")]


def _by_kind(sig: dict, kind: str) -> dict[str, dict]:
    return {p["name"]: p for p in sig["params"] if p["kind"] == kind}


def _default_change(e: dict, g: dict) -> list[str]:
    if (e["default"] is None) != (g["default"] is None):
        return [f"{g['name']} is {'optional' if g['default'] is not None else 'required'} now"]
    if e["default"] != g["default"]:
        return [f"default of {g['name']} is {g['default']}, was {e['default']}"]
    return []


# ---- a task under its contract ------------------------------------------------------------------
def with_contract(task, allowed_imports: tuple[str, ...]):
    """The task with its allowed imports and the entry point's signature recorded, and notes where
    the task's own text (its preamble, prompt or reference) imports what the contract does not allow."""
    import dataclasses
    import json
    sig, origin = task_signature(task.entry_point, task.candidate_preamble + task.prompt, task.prompt,
                                 task.reference_solution)
    signature = json.dumps({**sig, "from": origin}, sort_keys=True) if sig else ""
    notes = []
    for name, text in (("prompt", task.candidate_preamble + task.prompt), ("reference", task.reference_solution)):
        _parsed, named = scan_imports(text, allowed_imports)
        refused = sorted({n.top for n in named if n.allowed is False})
        if refused:
            notes.append(f"{task.task_id}: its {name} imports {', '.join(refused)}, which allowed_imports "
                         f"({imports_words(allowed_imports)}) does not allow")
    return dataclasses.replace(task, allowed_imports=tuple(allowed_imports), signature=signature), notes
