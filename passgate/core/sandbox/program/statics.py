"""Which parts of a test the grader can compute itself: binding times over a test's scopes.

A value is *static* when it depends only on literals, on static names and on pure functions of the
standard library applied to them: the grader computes it in its own process, so it never has to
enter the candidate's. Everything else is *dynamic*: it can only be computed in the candidate's
process (the candidate, the program's names, modules with state such as `random`, the test's own
functions and classes, anything a dynamic call may have changed). Standard library only.
"""

import ast
import types
import builtins

from .oracles import GRADER_FUNCTIONS

# builtins whose result depends only on their arguments (and which never call back into the process)
PURE_BUILTINS = frozenset({
    "abs", "all", "any", "ascii", "bin", "bool", "bytes", "chr", "complex", "dict", "divmod", "enumerate",
    "filter", "float", "format", "frozenset", "hex", "int", "isinstance", "issubclass", "len", "list", "map",
    "max", "min", "oct", "ord", "pow", "range", "repr", "reversed", "round", "set", "slice", "sorted", "str",
    "sum", "tuple", "type", "zip",
})
# builtin names that are values (types, exception classes): static, never called with dynamic effect
BUILTIN_VALUES = frozenset(n for n in dir(builtins) if isinstance(getattr(builtins, n), type)) | {"Ellipsis"}
# modules whose public functions and constants are pure: importing them binds a static name
PURE_MODULES = frozenset({"math", "cmath", "string", "itertools", "functools", "operator", "collections",
                          "fractions", "statistics", "heapq", "bisect", "copy", "json", "textwrap"})
# names of impure modules that are pure themselves (`from decimal import Decimal`)
PURE_NAMES = {"decimal": frozenset({"Decimal"})}
# a Decimal's arithmetic depends on the process's context, which the test may have changed: only a
# Decimal built from a literal is static, never arithmetic on one
DECIMAL_CONSTRUCTORS = frozenset({"Decimal"})
# calls whose result is immutable whatever their arguments (so passing it on exposes nothing)
IMMUTABLE_RESULTS = frozenset({"len", "str", "int", "float", "bool", "abs", "round", "ord", "chr", "hex", "oct",
                               "bin", "repr", "ascii", "format", "complex", "divmod", "pow", "isinstance",
                               "issubclass", "frozenset", "bytes", "type", "hash"})
DYNAMIC_BUILTINS_IN_TESTS = frozenset({"eval", "exec", "globals", "locals", "vars", "dir", "compile", "__import__"})


def bound_names(node):
    """Names a statement binds in the scope it belongs to (not in nested scopes)."""
    out = set()
    for child in _scope_walk(node):
        if isinstance(child, ast.Name) and isinstance(child.ctx, (ast.Store, ast.Del)):
            out.add(child.id)
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(child.name)
        elif isinstance(child, (ast.Import, ast.ImportFrom)):
            for alias in child.names:
                if alias.name != "*":
                    out.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(child, ast.ExceptHandler) and child.name:
            out.add(child.name)
        elif isinstance(child, (ast.MatchAs, ast.MatchStar)) and child.name:
            out.add(child.name)
        elif isinstance(child, ast.MatchMapping) and child.rest:
            out.add(child.rest)
    return out


def _scope_walk(node):
    """Every node of `node` that belongs to the same scope (nested function, class, lambda and
    comprehension bodies left out; their names, decorators, defaults and first iterables kept)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n is not node:
            stack.extend(n.decorator_list + n.args.defaults + [d for d in n.args.kw_defaults if d is not None])
            continue
        if isinstance(n, ast.ClassDef) and n is not node:
            stack.extend(n.decorator_list + n.bases + [k.value for k in n.keywords])
            continue
        if isinstance(n, ast.Lambda) and n is not node:
            stack.extend(n.args.defaults + [d for d in n.args.kw_defaults if d is not None])
            continue
        if isinstance(n, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)) and n is not node:
            stack.append(n.generators[0].iter)
            stack.extend(_walrus_targets(n))
            continue
        stack.extend(ast.iter_child_nodes(n))


def _walrus_targets(comp):
    return [n.target for n in ast.walk(comp) if isinstance(n, ast.NamedExpr)]


def scope_locals(func):
    """The local names of a function (its parameters and every name it binds), minus global/nonlocal ones."""
    args = func.args
    params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    names = set(params)
    declared = set()
    for stmt in func.body:
        names |= bound_names(stmt)
        for child in _scope_walk(stmt):
            if isinstance(child, (ast.Global, ast.Nonlocal)):
                declared |= set(child.names)
    return names - declared, declared


class Binding:
    """Binding times in one scope: which names are static now, which of them hold immutable values,
    and which static names may share mutable parts (so a change through one changes the others)."""

    def __init__(self, kind, names, parent=None, key=None):
        self.kind = kind                    # "module" or "function"
        self.key = key if key is not None else ("module" if kind == "module" else object())
        self.names = names                  # every name bound in this scope
        self.parent = parent
        self.static = {}                    # name -> True while its value is static here
        self.immutable = set()
        self.linked = {}                    # name -> set of static names it may share parts with
        self.context_bound = set()          # static names holding Decimal values (context-dependent arithmetic)
        self.imported = {}                  # static name -> what import bound it ("math", "fractions.Fraction")
        self.captured = frozenset()         # names a nested function of the test uses: they change when it runs

    def copy(self):
        b = Binding(self.kind, self.names, self.parent, self.key)
        b.static, b.immutable = dict(self.static), set(self.immutable)
        b.imported, b.captured = dict(self.imported), self.captured
        b.linked = {k: set(v) for k, v in self.linked.items()}
        b.context_bound = set(self.context_bound)
        return b

    def same_as(self, other):
        return self.static == other.static

    def meet(self, other):
        """What holds on both paths: a name is static only where it is static on each."""
        for name in set(self.static) | set(other.static):
            self.static[name] = self.static.get(name, False) and other.static.get(name, False)
        self.immutable &= other.immutable

    def scope_of(self, name):
        if name in self.names:
            return self
        if self.parent is not None and name in self.parent.names:
            return self.parent
        return None

    def bind(self, name, static, immutable=False, links=(), context=False, imported=None):
        scope = self.scope_of(name) or self
        static = static and name not in scope.captured
        scope.static[name] = static
        if static and imported:
            scope.imported[name] = imported
        else:
            scope.imported.pop(name, None)
        (scope.immutable.add if static and immutable else scope.immutable.discard)(name)
        (scope.context_bound.add if static and context else scope.context_bound.discard)(name)
        scope.linked[name] = set(links) if static else set()
        for other in links:
            scope.linked.setdefault(other, set()).add(name)

    def expose(self, name):
        """A static name whose value dynamic code could change (or keep and change later): dynamic from
        here on, with every static name sharing parts with it."""
        scope = self.scope_of(name)
        if scope is None or not scope.static.get(name) or name in scope.immutable:
            return
        pending = [name]
        while pending:
            n = pending.pop()
            if scope.static.get(n):
                scope.static[n] = False
                pending.extend(scope.linked.get(n, ()))

    def forget(self, names):
        for name in names:
            scope = self.scope_of(name) or self
            scope.static[name] = False
            scope.immutable.discard(name)


class Statics:
    """Static or dynamic, for expressions of one test, given the program's top-level bindings."""

    def __init__(self, shadowed=frozenset(), star=False):
        self.shadowed = frozenset(shadowed)  # builtin names the program rebinds at its top level
        self.star = star                     # the program has `from m import *`: any builtin may be rebound
        self.builtins_used = set()           # builtin names a static part relies on (to key the variants)
        self.statics_read = set()            # static names a static part relies on

    # ---- names ------------------------------------------------------------------
    def name_static(self, name, bt):
        if name in GRADER_FUNCTIONS:
            return True
        scope = bt.scope_of(name)
        if scope is not None:
            return scope.static.get(name, False)
        if name in PURE_BUILTINS or name in BUILTIN_VALUES:
            self.builtins_used.add(name)
            return name not in self.shadowed and not self.star
        return False

    def identity_safe(self, node, bt):
        """A static operand `is` may compare with in the grader: one whose identity a value decoded
        there can share (None, True, False, Ellipsis, a builtin type, a class of a pure module)."""
        if isinstance(node, ast.Constant):
            return node.value is None or node.value is True or node.value is False or node.value is Ellipsis
        path = _import_path(node, bt)
        if path is None:
            return isinstance(node, ast.Name) and bt.scope_of(node.id) is None and node.id in BUILTIN_VALUES
        return isinstance(_resolve(path), type)

    def is_immutable_name(self, name, bt):
        scope = bt.scope_of(name)
        if scope is None:
            return name in BUILTIN_VALUES or name in PURE_BUILTINS
        return name in scope.immutable

    # ---- expressions --------------------------------------------------------------
    def static(self, node, bt, params=frozenset()):
        """True when the grader can compute `node` itself (params: a static lambda's parameters)."""
        return self._static(node, bt, params) and not self.context_arithmetic(node, bt)

    def _static(self, node, bt, params):
        s = lambda n: self._static(n, bt, params)      # noqa: E731
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.Name):
            return isinstance(node.ctx, ast.Load) and (node.id in params or self.name_static(node.id, bt))
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return all(s(e) for e in node.elts)
        if isinstance(node, ast.Starred):
            return s(node.value)
        if isinstance(node, ast.Dict):
            return all(k is None or s(k) for k in node.keys) and all(s(v) for v in node.values)
        if isinstance(node, (ast.BinOp,)):
            return s(node.left) and s(node.right)
        if isinstance(node, ast.UnaryOp):
            return s(node.operand)
        if isinstance(node, ast.BoolOp):
            return all(s(v) for v in node.values)
        if isinstance(node, ast.Compare):
            return s(node.left) and all(s(c) for c in node.comparators)
        if isinstance(node, ast.IfExp):
            return s(node.test) and s(node.body) and s(node.orelse)
        if isinstance(node, ast.JoinedStr):
            return all(s(v) for v in node.values)
        if isinstance(node, ast.FormattedValue):
            return s(node.value) and (node.format_spec is None or s(node.format_spec))
        if isinstance(node, ast.Subscript):
            return s(node.value) and s(node.slice)
        if isinstance(node, ast.Slice):
            return all(p is None or s(p) for p in (node.lower, node.upper, node.step))
        if isinstance(node, ast.Attribute):
            return not node.attr.startswith("_") and s(node.value)
        if isinstance(node, ast.Call):
            return self._static_call(node, bt, params)
        if isinstance(node, ast.Lambda):
            return self._static_lambda(node, bt, params)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            return self._static_comprehension(node, bt, params)
        return False

    def _static_call(self, node, bt, params):
        s = lambda n: self._static(n, bt, params)      # noqa: E731
        if not (all(s(a) for a in node.args) and all(s(k.value) for k in node.keywords)):
            return False
        func = node.func
        if isinstance(func, ast.Name):
            if func.id in params:
                return False
            scope = bt.scope_of(func.id)
            if scope is not None:                  # a static module function or lambda bound to a name
                return scope.static.get(func.id, False)
            if func.id in GRADER_FUNCTIONS:
                return True
            self.builtins_used.add(func.id)
            return func.id in PURE_BUILTINS and func.id not in self.shadowed and not self.star
        if isinstance(func, ast.Attribute) and not func.attr.startswith("_"):
            owner = _import_path(func.value, bt)
            if owner is not None and not isinstance(_resolve(owner), types.ModuleType):
                return False                       # a class's method (`Sequence.register`) may change the module
            return s(func.value)                   # a method of static data, or a static module's function
        return False

    def _static_lambda(self, node, bt, params):
        a = node.args
        if a.vararg or a.kwarg or a.defaults or a.kw_defaults:
            return False
        inner = set(params) | {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
        return self._static(node.body, bt, frozenset(inner))

    def _static_comprehension(self, node, bt, params):
        inner = set(params)
        for gen in node.generators:
            if gen.is_async or not self._static(gen.iter, bt, frozenset(inner)):
                return False
            targets = [n for n in ast.walk(gen.target) if isinstance(n, ast.Name)]
            if not all(isinstance(n, (ast.Name, ast.Tuple, ast.List, ast.Starred)) for n in ast.walk(gen.target)
                       if not isinstance(n, ast.expr_context)):
                return False
            inner |= {n.id for n in targets}
            if not all(self._static(c, bt, frozenset(inner)) for c in gen.ifs):
                return False
        body = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        return all(self._static(b, bt, frozenset(inner)) for b in body)

    def context_arithmetic(self, node, bt):
        """Arithmetic on Decimal values: its result depends on the process's decimal context."""
        for child in ast.walk(node):
            if isinstance(child, (ast.BinOp, ast.UnaryOp)) or (isinstance(child, ast.Call) and not
                                                               self.decimal_constructor(child)):
                operands = [child.left, child.right] if isinstance(child, ast.BinOp) else \
                    [child.operand] if isinstance(child, ast.UnaryOp) else list(child.args)
                if any(self.holds_decimal(o, bt) for o in operands):
                    return True
        return False

    def holds_decimal(self, node, bt):
        for child in ast.walk(node):
            if isinstance(child, ast.Call) and self.decimal_constructor(child):
                return True
            if isinstance(child, ast.Name):
                scope = bt.scope_of(child.id)
                if scope is not None and child.id in scope.context_bound:
                    return True
        return False

    @staticmethod
    def decimal_constructor(call):
        f = call.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
        return name in DECIMAL_CONSTRUCTORS

    def immutable(self, node, bt):
        """A static value that no code can change in place (numbers, strings, tuples of such)."""
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.Name):
            return self.is_immutable_name(node.id, bt)
        if isinstance(node, ast.Tuple):
            return all(self.immutable(e, bt) for e in node.elts)
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp)):
            return all(self.immutable(c, bt) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr))
        if isinstance(node, ast.JoinedStr):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            return node.func.id in IMMUTABLE_RESULTS and bt.scope_of(node.func.id) is None
        return False

    def names_read(self, node):
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _import_path(node, bt):
    """"fractions.Fraction" for a name or attribute chain rooted at an imported static name, else None."""
    attrs = []
    while isinstance(node, ast.Attribute):
        attrs.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    scope = bt.scope_of(node.id)
    if scope is None or node.id not in scope.imported:
        return None
    return ".".join([scope.imported[node.id]] + attrs[::-1])


def _resolve(path):
    import importlib
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                value = getattr(value, attr)
        except AttributeError:
            return None
        return value
    return None


def module_is_pure(name):
    return name.split(".")[0] in PURE_MODULES


def imported_name_is_pure(module, name):
    return module_is_pure(module) or name in PURE_NAMES.get(module, ())


def uses_dynamic_builtins(tree):
    """A test that reads its own namespace (`eval`, `globals()`...): no statement of it can be dropped."""
    return any(isinstance(n, ast.Name) and n.id in DYNAMIC_BUILTINS_IN_TESTS for n in ast.walk(tree))
