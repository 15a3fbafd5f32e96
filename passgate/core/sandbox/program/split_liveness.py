"""Liveness: which static statements the split process still needs, and removing the rest."""

import ast

from .statics import bound_names, scope_locals


def needed_statements(process, removable, program_names, groups):
    """ids of removable statements whose names (or names sharing parts with them) the process's own
    code, or the program, reads."""
    by_stmt = {id(r.stmt): r for r in removable}
    reads, stmt_reads = _reads_by_scope(process, by_stmt)
    needed = {groups.find(k) for k in reads}
    needed |= {groups.find(("module", n)) for n in program_names}
    kept = set()
    changed = True
    while changed:
        changed = False
        for r in removable:
            if id(r.stmt) not in kept and any(groups.find((r.key, n)) in needed for n in r.names):
                kept.add(id(r.stmt))
                needed |= {groups.find(k) for k in stmt_reads.get(id(r.stmt), set())}
                changed = True
    return kept


class UnionFind:
    def __init__(self):
        self.parent = {}

    def find(self, x):
        root = x
        while self.parent.get(root, root) != root:
            root = self.parent[root]
        while x != root:
            self.parent[x], x = root, self.parent.get(x, x)
        return root

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb


def _reads_by_scope(process, by_stmt):
    """Every (scope, name) the process's code reads outside removable statements, and each removable
    statement's own reads."""
    reads, stmt_reads = set(), {}
    scopes = _ScopeMap(process)

    def visit(node, scope_key, removable_id):
        for child in ast.iter_child_nodes(node):
            rid = id(child) if id(child) in by_stmt else removable_id
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
                key = (scopes.resolve(scope_key, child.id), child.id)
                (stmt_reads.setdefault(rid, set()).add(key) if rid is not None else reads.add(key))
            inner = scopes.key_of(child) or scope_key
            visit(child, inner, rid)

    visit(process, "module", None)
    return reads, stmt_reads


def binds_by_scope(process):
    """Every (scope, name) the process's code binds."""
    scopes = _ScopeMap(process)
    out = set()

    def visit(node, key):
        for child in ast.iter_child_nodes(node):
            inner = scopes.key_of(child) or key
            if inner is key:
                for name in bound_names(child) if isinstance(child, ast.stmt) else ():
                    out.add((key, name))
            visit(child, inner)

    visit(process, "module")
    return out


class _ScopeMap:
    """Which scope a name read in a function resolves to (its own, an enclosing function's, the module)."""

    def __init__(self, module):
        self.parent, self.locals = {}, {}
        self._index(module, "module")

    def _index(self, node, key):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                ck = id(child)
                self.parent[ck] = key
                self.locals[ck] = scope_locals(child)[0] if not isinstance(child, ast.Lambda) else \
                    {a.arg for a in child.args.args}
                self._index(child, ck)
            else:
                self._index(child, key)

    def key_of(self, node):
        return id(node) if id(node) in self.parent else None

    def resolve(self, key, name):
        while key != "module":
            if name in self.locals.get(key, ()):
                return key
            key = self.parent[key]
        return "module"


def remove_statements(process, dropped):
    class Dropper(ast.NodeTransformer):
        def generic_visit(self, node):
            for field, value in ast.iter_fields(node):
                if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                    kept = [self.visit(s) for s in value if id(s) not in dropped]
                    flat = []
                    for s in kept:
                        flat.extend(s if isinstance(s, list) else [s])
                    setattr(node, field, flat or [ast.copy_location(ast.Pass(), value[0])])
                elif isinstance(value, ast.AST):
                    self.visit(value)
            return node
    Dropper().visit(process)
