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
from .split_liveness import UnionFind, binds_by_scope, needed_statements, remove_statements
from .split_tree import (
    all_bound,
    captured,
    compile_expr,
    compile_stmt,
    compile_target,
    drivers,
    expected_operand,
    exposed_names,
    expression,
    import_paths,
    jumps_in_loop,
    jumps_out,
    rooted_name,
    shallow_copy,
    simple_target,
    source_of,
    target_names,
)
from .statics import (
    Binding,
    Statics,
    bound_names,
    imported_name_is_pure,
    module_is_pure,
    scope_locals,
    uses_dynamic_builtins,
)

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
        self.drivers = drivers(tree)
        self.driver_defs = {}           # name -> the FunctionDef in the process's code, body filled at the call
        self.loop_depth = 0
        self.groups = UnionFind()
        self.test_bound = all_bound(tree)
        self.test_defs = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                             ast.ClassDef))}

    # ---- scopes -------------------------------------------------------------------
    def module(self, tree):
        names = set()
        for stmt in tree.body:
            names |= bound_names(stmt)
        self.module_bt = Binding("module", names)
        self.module_bt.captured = frozenset(captured(tree.body, self.drivers))
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
        targets = [t for tgt in stmt.targets for t in target_names(tgt)] if all(
            simple_target(t) for t in stmt.targets) else None
        return self.assignment(stmt, stmt.value, targets, bt)

    def _AnnAssign(self, stmt, bt):
        if stmt.value is None:
            return [stmt], []
        targets = target_names(stmt.target) if simple_target(stmt.target) and stmt.simple else None
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
            return [stmt], [("exec", compile_stmt(stmt))]
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
            return [stmt], [("exec", compile_stmt(stmt))]
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
        for name, path in import_paths(stmt).items():
            bt.bind(name, pure, immutable=pure, imported=path)
        return [stmt], ([("exec", compile_stmt(stmt))] if pure else [])

    def _FunctionDef(self, stmt, bt):
        for node in stmt.decorator_list + stmt.args.defaults + [d for d in stmt.args.kw_defaults if d]:
            self.expose(node, bt)
        if stmt.name in self.drivers and bt.kind == "module":
            new = shallow_copy(stmt)
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
        if not self.statics.static(stmt.test, bt) or jumps_out(stmt):
            return self.region(stmt, bt)
        other = bt.copy()
        body, plan_body = self.block(stmt.body, bt, DRIVER)
        orelse, plan_else = self.block(stmt.orelse, other, DRIVER) if stmt.orelse else ([], [])
        bt.meet(other)
        new = ast.copy_location(ast.If(test=stmt.test, body=body, orelse=orelse), stmt)
        return [new], [("if", compile_expr(stmt.test), plan_body, plan_else)]

    def _For(self, stmt, bt):
        if not (self.statics.static(stmt.iter, bt) and simple_target(stmt.target)) or jumps_out(stmt, loop=True):
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
        step = ("for", compile_target(stmt.target), compile_expr(stmt.iter), plan_body, plan_else)
        return [new], [step]

    def _While(self, stmt, bt):
        if not self.statics.static(stmt.test, bt) or jumps_out(stmt, loop=True):
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
        return [new], [("while", compile_expr(stmt.test), plan_body, plan_else)]

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
        for name in target_names(target):
            bt.bind(name, True)

    # ---- calls to the test's own top-level function -------------------------------------
    def inline(self, stmt, defs, bt):
        new_def, original = defs
        call = stmt.value
        local, declared = scope_locals(original)
        fbt = Binding("function", local, parent=self.module_bt, key=id(new_def))
        fbt.captured = frozenset(captured(original.body, ()))
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
        if self.loop_depth and jumps_in_loop(stmt):
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
        site = S.Site(len(self.sites) + 1, stmt.lineno, source_of(self.source, stmt), S.IN_PROCESS, place)
        site.scope = bt
        if isinstance(stmt.msg, ast.Constant) and isinstance(stmt.msg.value, str):
            site.message = stmt.msg.value
        self.sites[site.id] = site
        if place == DRIVER and self.statics.static(test, bt):
            site.kind, site.skeleton = S.HIDDEN, expression(test)      # nothing of the candidate's in it
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
            site.expected = expected_operand(part)
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
        for name in exposed_names(node, bt, self.statics):
            bt.expose(name)

    # ---- the process's code: drop what nothing there reads ------------------------------
    def drop_unread(self, process, program_names, keep_all):
        if not keep_all and self.removable:
            kept = needed_statements(process, self.removable, program_names, self.groups)
            remove_statements(process, {id(r.stmt) for r in self.removable if id(r.stmt) not in kept})
        self.process_binds = binds_by_scope(process)

    def classify_visible(self):
        """A hidden site whose expected operand is a name the process also holds is decided outside, but
        the value is there to read."""
        for site in self.sites.values():
            name = rooted_name(site.expected) if site.expected is not None else None
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
