"""What a candidate program binds that can change how the test's static parts must be split.
Standard library only."""

import __future__
import ast

from .statics import BUILTIN_VALUES, PURE_BUILTINS

_BUILTIN_NAMES = PURE_BUILTINS | BUILTIN_VALUES


class ProgramFacts:
    """`shadowed`: builtin names the program rebinds at module level; `star`: it has `from m import *`
    (any builtin may be rebound); `names`: every identifier it uses (a test's module-level name it
    mentions must stay in the process); `future_flags`: its `from __future__` imports, which in one
    program also apply to the test."""

    __slots__ = ("shadowed", "star", "names", "future_flags")

    def __init__(self, shadowed=frozenset(), star=False, names=frozenset(), future_flags=0):
        self.shadowed, self.star, self.names, self.future_flags = shadowed, star, names, future_flags


def program_facts(program):
    try:
        tree = ast.parse(program)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ProgramFacts()
    names, bound, star = set(), set(), False
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                star = star or alias.name == "*"
                names.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.Global):
            bound |= set(node.names)
    for stmt in tree.body:
        bound |= _top_level_bindings(stmt)
    return ProgramFacts(frozenset(bound & _BUILTIN_NAMES), star, frozenset(names), _future_flags(tree))


def _top_level_bindings(stmt):
    out = set()
    stack = [stmt]
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.add(n.id)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            out |= {(a.asname or a.name).split(".")[0] for a in n.names if a.name != "*"}
        if not isinstance(n, ast.Lambda):
            stack.extend(ast.iter_child_nodes(n))
    return out


def _future_flags(tree):
    flags = 0
    for stmt in tree.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
            continue
        if not (isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"):
            break
        for alias in stmt.names:
            feature = getattr(__future__, alias.name, None)
            if feature is not None:
                flags |= feature.compiler_flag
    return flags
