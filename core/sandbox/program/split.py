"""Split a test program into the code the candidate's process runs and the plan the grader follows
(grading protocol 3). Standard library only.

The candidate's process runs the program and then the test, in one namespace, exactly as CPython
runs `program + test`, except that no value the grader can compute itself and only uses as an
expected value is left in it. The plan is what the grader does meanwhile: it runs those static
statements on its side, in order, and consumes the process's reports, site by site:

* ("site", id)          the next report must be this site's; the grader decides it
* ("exec", code)        a static statement, run in the grader's scope
* ("for", target, iter, body, orelse) / ("while", test, body, orelse) / ("if", test, body, orelse)
                        control flow that depends only on static values, followed in step
* ("region", ids)       a statement whose control flow is the process's (try, with, a loop over
                        dynamic values): its sites may be reported any number of times, each decided
* ("call", body, bound) a test function the test calls once at its top level (HumanEval's `check`)
* ("break",) / ("continue",)

Sites inside other functions the test defines (callbacks, helpers, methods) are *floating*: the
grader decides each report of them whenever it comes.
"""

import ast
import copy

from . import sites as S
from .statics import (Binding, Statics, bound_names, imported_name_is_pure, module_is_pure, scope_locals,
                      uses_dynamic_builtins)

DRIVER, REGION, FLOATING = "driver", "region", "floating"


class SplitTest:
    """The result: the process's code (an ast.Module), the sites, the plan, and what it relies on."""

    def __init__(self, tree, sites, plan, builtins_used, module_statics, regions):
        self.tree = tree
        self.sites = sites                      # id -> sites.Site
        self.plan = plan
        self.builtins_used = builtins_used      # builtin names static parts rely on
        self.module_statics = module_statics    # module-level names the grader may keep to itself
        self.regions = regions                  # statements whose control flow the process decides

    def counts(self):
        out = {S.HIDDEN: 0, S.VISIBLE: 0, S.IN_PROCESS: 0}
        for site in self.sites.values():
            out[site.kind] += 1
        return out


class _LoopIsDynamic(Exception):
    """A break or continue of a static loop sits under control flow the process decides."""


class _Removable:
    """A static statement of the process's code that may be dropped when nothing there reads what it binds."""

    __slots__ = ("stmt", "names", "key")

    def __init__(self, stmt, names, key):
        self.stmt, self.names, self.key = stmt, frozenset(names), key


def split_test(source, *, filename="<test>", shadowed=frozenset(), star=False, program_names=frozenset()):
    """Split `source`; `shadowed`: builtin names the program rebinds at its top level (`star`: it has
    `from m import *`); `program_names`: every identifier the program uses (a module-level name of the
    test the program mentions stays in the process)."""
    tree = ast.parse(source, filename)
    walker = _Walker(source, Statics(shadowed, star), tree)
    body, plan = walker.module(tree)
    process = ast.Module(body=body, type_ignores=[])
    keep_all = uses_dynamic_builtins(tree)
    walker.drop_unread(process, program_names, keep_all)
    walker.classify_visible()
    for site in walker.sites.values():
        if site.skeleton is not None:
            site.code = compile(site.skeleton, filename, "eval")
    ast.fix_missing_locations(process)
    return SplitTest(process, walker.sites, plan, frozenset(walker.statics.builtins_used),
                     frozenset(walker.module_statics), walker.regions)


class _Walker:
    def __init__(self, source, statics, tree):
        self.source = source
        self.statics = statics
        self.assertions = S.Splitter(statics)
        self.sites = {}
        self.removable = []
        self.regions = 0
        self.module_statics = set()
        self.drivers = _drivers(tree)
        self.driver_defs = {}           # name -> the FunctionDef in the process's code, body filled at the call
        self.loop_depth = 0
        self.groups = _UnionFind()
        self.test_bound = _all_bound(tree)
        self.test_defs = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                             ast.ClassDef))}

    # ---- scopes -------------------------------------------------------------------
    def module(self, tree):
        names = set()
        for stmt in tree.body:
            names |= bound_names(stmt)
        self.module_bt = Binding("module", names)
        self.module_bt.captured = frozenset(_captured(tree.body, self.drivers))
        return self.block(tree.body, self.module_bt, DRIVER)

    def block(self, stmts, bt, place):
        body, plan = [], []
        for stmt in stmts:
            out, steps = self.statement(stmt, bt, place)
            body.extend(out)
            plan.extend(steps)
        return body or [ast.copy_location(ast.Pass(), stmts[0]) if stmts else ast.Pass()], plan

    def statement(self, stmt, bt, place):
        if place != DRIVER:
            return self.passive(stmt, bt, place), []
        kind = type(stmt).__name__
        handler = getattr(self, "_" + kind, None)
        if handler is None:
            return self.region(stmt, bt)
        return handler(stmt, bt)

    # ---- driver statements ----------------------------------------------------------
    def _Assert(self, stmt, bt):
        out, plan = [], []
        for test in S.conjuncts(stmt.test):
            new, site = self.assertion(stmt, test, bt, DRIVER)
            out.append(new)
            plan.append(("site", site.id) if not isinstance(new, ast.Pass) else ("check", site.id))
        return out, plan

    def _Assign(self, stmt, bt):
        targets = [t for tgt in stmt.targets for t in _target_names(tgt)] if all(
            _simple_target(t) for t in stmt.targets) else None
        return self.assignment(stmt, stmt.value, targets, bt)

    def _AnnAssign(self, stmt, bt):
        if stmt.value is None:
            return [stmt], []
        targets = _target_names(stmt.target) if _simple_target(stmt.target) and stmt.simple else None
        return self.assignment(stmt, stmt.value, targets, bt)

    def _AugAssign(self, stmt, bt):
        ok = isinstance(stmt.target, ast.Name) and self.statics.name_static(stmt.target.id, bt)
        value = ast.BinOp(left=ast.Name(id=stmt.target.id, ctx=ast.Load()), op=stmt.op, right=stmt.value) if ok \
            else stmt.value
        return self.assignment(stmt, value, [stmt.target.id] if ok else None, bt)

    def assignment(self, stmt, value, targets, bt):
        if targets is not None and self.statics.static(value, bt):
            reads = self.statics.names_read(value)
            links = {n for n in reads if bt.scope_of(n) is not None and not self.statics.is_immutable_name(n, bt)}
            immutable = self.statics.immutable(value, bt) and len(targets) == 1
            context = self.statics.holds_decimal(value, bt)
            for name in targets:
                bt.bind(name, True, immutable=immutable, links=links, context=context)
                if bt.kind == "module":
                    self.module_statics.add(name)
            key = self.scope_key(bt, targets[0])
            self.group(key, set(targets) | links)
            self.removable.append(_Removable(stmt, targets, key))
            return [stmt], [("exec", _compile_stmt(stmt))]
        self.expose(stmt, bt)
        bt.forget(bound_names(stmt))
        return [stmt], []

    def group(self, key, names):
        """Static names whose values may share parts (one built from another, or changed with it): a
        statement changing one is needed wherever any of them is."""
        names = [(key, n) for n in names]
        for a, b in zip(names, names[1:]):
            self.groups.union(a, b)

    def scope_key(self, bt, name):
        """The key liveness uses for the scope `name` belongs to, seen from `bt`."""
        return (bt.scope_of(name) or bt).key

    def _Expr(self, stmt, bt):
        call = stmt.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in self.drivers \
                and call.func.id in self.driver_defs:
            return self.inline(stmt, self.driver_defs[call.func.id], bt)
        if isinstance(call, ast.Constant):
            return [stmt], []
        if self.statics.static(call, bt):
            names = {n for n in self.statics.names_read(call) if bt.scope_of(n) is not None}
            if names:
                key = self.scope_key(bt, sorted(names)[0])
                self.group(key, names)          # a call on static values may put one inside another
                self.removable.append(_Removable(stmt, names, key))
            return [stmt], [("exec", _compile_stmt(stmt))]
        self.expose(stmt, bt)
        return [stmt], []

    def _Import(self, stmt, bt):
        pure = all(module_is_pure(a.name) for a in stmt.names)
        return self.binding_import(stmt, bt, pure)

    def _ImportFrom(self, stmt, bt):
        pure = stmt.level == 0 and stmt.module is not None and all(
            a.name != "*" and imported_name_is_pure(stmt.module, a.name) for a in stmt.names)
        if any(a.name == "*" for a in stmt.names):
            return self.region(stmt, bt)
        return self.binding_import(stmt, bt, pure)

    def binding_import(self, stmt, bt, pure):
        for name, path in _import_paths(stmt).items():
            bt.bind(name, pure, immutable=pure, imported=path)
        return [stmt], ([("exec", _compile_stmt(stmt))] if pure else [])

    def _FunctionDef(self, stmt, bt):
        for node in stmt.decorator_list + stmt.args.defaults + [d for d in stmt.args.kw_defaults if d]:
            self.expose(node, bt)
        if stmt.name in self.drivers and bt.kind == "module":
            new = _shallow_copy(stmt)
            self.driver_defs[stmt.name] = (new, stmt)
            bt.bind(stmt.name, False)
            return [new], []
        bt.bind(stmt.name, False)
        return self.passive(stmt, bt, FLOATING), []

    def _AsyncFunctionDef(self, stmt, bt):
        bt.bind(stmt.name, False)
        return self.passive(stmt, bt, FLOATING), []

    def _ClassDef(self, stmt, bt):
        self.expose(stmt, bt)
        bt.bind(stmt.name, False)
        return self.passive(stmt, bt, FLOATING), []

    def _Pass(self, stmt, bt):
        return [stmt], []

    def _Delete(self, stmt, bt):
        self.expose(stmt, bt)
        bt.forget(bound_names(stmt))
        return [stmt], []

    def _Global(self, stmt, bt):
        return [stmt], []

    _Nonlocal = _Global

    def _Raise(self, stmt, bt):
        self.regions += 1          # the test decides to fail here, in the process
        self.expose(stmt, bt)
        return [stmt], []

    def _Return(self, stmt, bt):
        if stmt.value is not None and not self.statics.static(stmt.value, bt):
            self.expose(stmt, bt)
        return [stmt], []

    def _If(self, stmt, bt):
        if not self.statics.static(stmt.test, bt) or _jumps_out(stmt):
            return self.region(stmt, bt)
        other = bt.copy()
        body, plan_body = self.block(stmt.body, bt, DRIVER)
        orelse, plan_else = self.block(stmt.orelse, other, DRIVER) if stmt.orelse else ([], [])
        bt.meet(other)
        new = ast.copy_location(ast.If(test=stmt.test, body=body, orelse=orelse), stmt)
        return [new], [("if", _compile_expr(stmt.test), plan_body, plan_else)]

    def _For(self, stmt, bt):
        if not (self.statics.static(stmt.iter, bt) and _simple_target(stmt.target)) or _jumps_out(stmt, loop=True):
            return self.region(stmt, bt)
        try:
            entry = self.loop_entry(stmt, bt, lambda b: self._bind_target(stmt.target, b))
            self._bind_target(stmt.target, entry)
            body, plan_body, orelse, plan_else = self.loop_body(stmt, entry)
        except _LoopIsDynamic:
            return self.region(stmt, bt)
        bt.meet(entry)
        new = ast.copy_location(ast.For(target=stmt.target, iter=stmt.iter, body=body, orelse=orelse,
                                        type_comment=None), stmt)
        step = ("for", _compile_target(stmt.target), _compile_expr(stmt.iter), plan_body, plan_else)
        return [new], [step]

    def _While(self, stmt, bt):
        if not self.statics.static(stmt.test, bt) or _jumps_out(stmt, loop=True):
            return self.region(stmt, bt)
        try:
            entry = self.loop_entry(stmt, bt, lambda b: None)
            if not self.statics.static(stmt.test, entry):
                return self.region(stmt, bt)
            body, plan_body, orelse, plan_else = self.loop_body(stmt, entry)
        except _LoopIsDynamic:
            return self.region(stmt, bt)
        bt.meet(entry)
        new = ast.copy_location(ast.While(test=stmt.test, body=body, orelse=orelse), stmt)
        return [new], [("while", _compile_expr(stmt.test), plan_body, plan_else)]

    def _Break(self, stmt, bt):
        return [stmt], [("break",)]

    def _Continue(self, stmt, bt):
        return [stmt], [("continue",)]

    def loop_body(self, stmt, entry):
        self.loop_depth += 1
        try:
            body, plan_body = self.block(stmt.body, entry, DRIVER)
            orelse, plan_else = self.block(stmt.orelse, entry, DRIVER) if stmt.orelse else ([], [])
        finally:
            self.loop_depth -= 1
        return body, plan_body, orelse, plan_else

    def loop_entry(self, stmt, bt, bind_target):
        """The binding times at the top of every iteration: what the body leaves dynamic stays dynamic."""
        entry = bt.copy()
        for _ in range(64):
            trial = entry.copy()
            bind_target(trial)
            probe = _Walker(self.source, self.statics, ast.Module(body=[], type_ignores=[]))
            probe.drivers, probe.module_bt, probe.loop_depth = {}, self.module_bt, 1
            probe.test_bound, probe.test_defs = self.test_bound, self.test_defs
            probe.block(stmt.body + stmt.orelse, trial, DRIVER)
            before = entry.copy()
            entry.meet(trial)
            if entry.same_as(before):
                return entry
        return entry

    def _bind_target(self, target, bt):
        for name in _target_names(target):
            bt.bind(name, True)

    # ---- calls to the test's own top-level function -------------------------------------
    def inline(self, stmt, defs, bt):
        new_def, original = defs
        call = stmt.value
        local, declared = scope_locals(original)
        fbt = Binding("function", local, parent=self.module_bt, key=id(new_def))
        fbt.captured = frozenset(_captured(original.body, ()))
        if declared:
            self.module_bt.forget(declared)
        self.expose(stmt, bt)
        body, plan = self.block(original.body, fbt, DRIVER)
        new_def.body = body
        bound = [a.arg for a in original.args.args][:len(call.args)]
        return [stmt], [("call", plan, tuple(bound))]

    # ---- regions: control flow the process decides ------------------------------------
    def region(self, stmt, bt):
        """A statement the grader cannot follow: whatever it binds or may change is dynamic from here on,
        and the sites in it are decided one by one, however many times they run."""
        if self.loop_depth and _jumps_in_loop(stmt):
            raise _LoopIsDynamic()
        self.regions += 1
        self.expose(stmt, bt)
        bt.forget(bound_names(stmt))
        first = len(self.sites)
        out = self.passive(stmt, bt, REGION)
        ids = frozenset(list(self.sites)[first:])
        return out, ([("region", ids)] if ids else [])

    def passive(self, stmt, bt, place):
        """`stmt` with its assertions instrumented, sites decided one by one (regions and nested functions)."""
        rewriter = _Rewriter(self, bt, place)
        return [rewriter.visit(copy.deepcopy(stmt))]

    def answer_of_candidate(self, node, bt):
        """`f(...)` where f is neither the test's own function or class nor a static one: the truth of
        what the program answered (a comparison, `all(...)` or a method's verdict is a decision instead)."""
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id not in self.test_defs and not self.statics.static(node.func, bt)

    def floating_binding(self):
        """Inside a function the test defines, run at any time: every name the test binds is dynamic,
        only literals and builtins the test never rebinds are static."""
        return Binding("function", set(self.test_bound))

    # ---- assertions ----------------------------------------------------------------------
    def assertion(self, stmt, test, bt, place):
        """One assertion site: its statement in the process, and the Site the grader decides it by."""
        site = S.Site(len(self.sites) + 1, stmt.lineno, _source(self.source, stmt), S.IN_PROCESS, place)
        site.scope = bt
        if isinstance(stmt.msg, ast.Constant) and isinstance(stmt.msg.value, str):
            site.message = stmt.msg.value
        self.sites[site.id] = site
        if place == DRIVER and self.statics.static(test, bt):
            site.kind, site.skeleton = S.HIDDEN, _expression(test)      # nothing of the candidate's in it
            return ast.copy_location(ast.Pass(), stmt), site
        hidden = self._hidden(site, test, bt)
        if hidden is not None:
            return ast.copy_location(ast.Expr(value=hidden), stmt), site
        decided = S.trusted_compare(site.id, test)
        check = S.report_call(S.TRUTH, site.id, [decided], test)
        self.expose(test, bt)
        return ast.copy_location(ast.Assert(test=check, msg=stmt.msg), stmt), site

    def _hidden(self, site, test, bt):
        negated, operand = S.truth_shape(test)
        part = self.assertions.part(test, bt)
        if part.kind == "hole" and self.answer_of_candidate(operand, bt):
            holes = [S.Part("hole", operand)]
            skeleton = ast.Name(id=S.HOLE_NAME % 0, ctx=ast.Load())
            if negated:
                skeleton = ast.UnaryOp(op=ast.Not(), operand=skeleton)
            site.modes = (S.TRUTH_ONLY,)
        elif part.kind == "skel":
            holes = S.holes_of(part)
            skeleton = S.skeleton_of(part, holes)
            site.modes = tuple(S.VALUE for _ in holes)
            site.outside = S.outs_of(part)
            site.expected = _expected_operand(part)
        else:
            return None
        site.kind = S.HIDDEN
        site.skeleton = ast.fix_missing_locations(ast.copy_location(ast.Expression(body=skeleton), test))
        for hole in holes:
            self.expose(hole.node, bt)
        reporter = S.TRUTH_HOLE if site.modes == (S.TRUTH_ONLY,) else S.HOLES
        return S.report_call(reporter, site.id, [h.node for h in holes], test)

    # ---- exposure --------------------------------------------------------------------
    def expose(self, node, bt):
        """Static names that dynamic code in `node` reads may be changed by it: dynamic from here on
        (a static, immutable subexpression exposes nothing)."""
        for name in _exposed_names(node, bt, self.statics):
            bt.expose(name)

    # ---- the process's code: drop what nothing there reads ------------------------------
    def drop_unread(self, process, program_names, keep_all):
        if not keep_all and self.removable:
            kept = _liveness(process, self.removable, program_names, self.groups)
            _remove_statements(process, {id(r.stmt) for r in self.removable if id(r.stmt) not in kept})
        self.process_binds = _binds_by_scope(process)

    def classify_visible(self):
        """A hidden site whose expected operand is a name the process also holds is decided outside, but
        the value is there to read."""
        for site in self.sites.values():
            name = _rooted_name(site.expected) if site.expected is not None else None
            if site.kind == S.HIDDEN and name is not None and site.scope.scope_of(name) is not None:
                if (self.scope_key(site.scope, name), name) in self.process_binds:
                    site.kind = S.VISIBLE


class _Rewriter(ast.NodeTransformer):
    """Instruments the assertions inside a statement whose control flow the process decides."""

    def __init__(self, walker, bt, place):
        self.walker, self.place = walker, place
        self.bt = bt if place == REGION else walker.floating_binding()

    def visit_Assert(self, node):
        out = []
        for test in S.conjuncts(node.test):
            new, _site = self.walker.assertion(node, test, self.bt, self.place)
            out.append(new)
        return out

    def visit_FunctionDef(self, node):
        saved, self.place = self.place, FLOATING
        saved_bt, self.bt = self.bt, self.walker.floating_binding()
        self.generic_visit(node)
        self.place, self.bt = saved, saved_bt
        return node

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_ClassDef = visit_FunctionDef
    visit_Lambda = visit_FunctionDef


# ---- helpers over the syntax tree ----------------------------------------------------------
def _all_bound(tree):
    """Every name bound anywhere in the test, in any scope (parameters included)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            out |= bound_names(node)
        if isinstance(node, ast.arg):
            out.add(node.arg)
        if isinstance(node, ast.comprehension):
            out |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
    return out


def _import_paths(stmt):
    """{name bound: what it stands for} of an import ("np" -> "numpy", "Fraction" -> "fractions.Fraction")."""
    out = {}
    for alias in stmt.names:
        if isinstance(stmt, ast.Import):
            name = alias.asname or alias.name.split(".")[0]
            out[name] = alias.name if alias.asname else alias.name.split(".")[0]
        else:
            out[alias.asname or alias.name] = "%s.%s" % (stmt.module, alias.name)
    return out


def _captured(body, drivers):
    """Names the nested functions, lambdas and classes of a scope use (drivers aside): such a function
    may run whenever the candidate calls it, and change them."""
    out = set()
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)) \
                    and getattr(node, "name", None) not in drivers:
                out |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    return out


def _drivers(tree):
    """Top-level functions of the test called exactly once, as a statement at its top level, and
    referred to nowhere else: their bodies run once, in order, like top-level code."""
    defs = {s.name: s for s in tree.body if isinstance(s, ast.FunctionDef) and _plain_function(s)}
    calls = {}
    for s in tree.body:
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Name):
            calls[s.value.func.id] = calls.get(s.value.func.id, 0) + 1
    uses = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Name):
            uses[n.id] = uses.get(n.id, 0) + 1
    return {name for name, d in defs.items() if calls.get(name) == 1 and uses.get(name) == 1
            and sum(1 for s in tree.body if name in bound_names(s)) == 1}


def _plain_function(func):
    """No decorators, no generator or coroutine body, no returns but a last one, no global writes."""
    if func.decorator_list or func.args.vararg or func.args.kwarg:
        return False
    for i, stmt in enumerate(func.body):
        for node in _walk_same_function(stmt):
            if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal)):
                return False
            if isinstance(node, ast.Return) and not (node is stmt and i == len(func.body) - 1):
                return False
    return True


def _walk_same_function(node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        for child in ast.iter_child_nodes(n):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                stack.append(child)


def _jumps_out(stmt, loop=False):
    """A return anywhere inside: the rest of the function may not run."""
    return any(isinstance(node, ast.Return) for node in _walk_same_function(stmt))


def _jumps_in_loop(stmt):
    """A break or continue in `stmt` that belongs to a loop around it."""
    stack = [stmt]
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.Break, ast.Continue)):
            return True
        for child in ast.iter_child_nodes(n):
            if not isinstance(child, (ast.For, ast.While, ast.AsyncFor, ast.FunctionDef, ast.AsyncFunctionDef,
                                      ast.ClassDef, ast.Lambda)):
                stack.append(child)
            elif isinstance(child, (ast.For, ast.While, ast.AsyncFor)):
                stack.extend(child.orelse)      # a loop's else belongs to the loop around it
    return False


def _simple_target(target):
    if isinstance(target, ast.Name):
        return True
    if isinstance(target, (ast.Tuple, ast.List)):
        return all(_simple_target(e.value if isinstance(e, ast.Starred) else e) for e in target.elts)
    return False


def _target_names(target):
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


def _expression(node):
    return ast.fix_missing_locations(ast.copy_location(ast.Expression(body=node), node))


def _expected_operand(part):
    """The static side of a top-level comparison (`f(x) == [1, 2]` -> `[1, 2]`), for display."""
    node = part.node
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        kinds = [c.kind for c in part.children]
        if kinds == ["hole", "out"]:
            return node.comparators[0]
        if kinds == ["out", "hole"]:
            return node.left
    return None


def _rooted_name(node):
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _exposed_names(node, bt, statics):
    """Static names read by dynamic parts of `node` outside an immutable static subexpression."""
    out = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.expr) and statics.static(n, bt) and statics.immutable(n, bt):
            continue
        if isinstance(n, ast.Name) and bt.scope_of(n.id) is not None:
            out.add(n.id)
        stack.extend(ast.iter_child_nodes(n))
    return out


def _source(source, node):
    text = ast.get_source_segment(source, node) or ""
    return text.strip()


def _shallow_copy(func):
    new = ast.FunctionDef(name=func.name, args=func.args, body=func.body, decorator_list=func.decorator_list,
                          returns=func.returns, type_comment=None)
    return ast.copy_location(new, func)


def _compile_stmt(stmt):
    module = ast.fix_missing_locations(ast.Module(body=[stmt], type_ignores=[]))
    return compile(module, "<test>", "exec")


def _compile_expr(expr):
    return compile(ast.fix_missing_locations(ast.Expression(body=expr)), "<test>", "eval")


def _compile_target(target):
    assign = ast.Assign(targets=[target], value=ast.Name(id="__pg_item__", ctx=ast.Load()))
    return _compile_stmt(ast.copy_location(assign, target))


# ---- liveness: which static statements the process still needs -----------------------------
def _liveness(process, removable, program_names, groups):
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


class _UnionFind:
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


def _binds_by_scope(process):
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


def _remove_statements(process, dropped):
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
