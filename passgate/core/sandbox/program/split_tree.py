"""Small questions asked of a test's syntax tree while splitting it (core/sandbox/program/split.py)."""

import ast

from .statics import bound_names


def all_bound(tree):
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


def import_paths(stmt):
    """{name bound: what it stands for} of an import ("np" -> "numpy", "Fraction" -> "fractions.Fraction")."""
    out = {}
    for alias in stmt.names:
        if isinstance(stmt, ast.Import):
            name = alias.asname or alias.name.split(".")[0]
            out[name] = alias.name if alias.asname else alias.name.split(".")[0]
        else:
            out[alias.asname or alias.name] = "%s.%s" % (stmt.module, alias.name)
    return out


def captured(body, drivers):
    """Names the nested functions, lambdas and classes of a scope use (drivers aside): such a function
    may run whenever the candidate calls it, and change them."""
    out = set()
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)) \
                    and getattr(node, "name", None) not in drivers:
                out |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    return out


def drivers(tree):
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


def jumps_out(stmt, loop=False):
    """A return anywhere inside: the rest of the function may not run."""
    return any(isinstance(node, ast.Return) for node in _walk_same_function(stmt))


def jumps_in_loop(stmt):
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


def simple_target(target):
    if isinstance(target, ast.Name):
        return True
    if isinstance(target, (ast.Tuple, ast.List)):
        return all(simple_target(e.value if isinstance(e, ast.Starred) else e) for e in target.elts)
    return False


def target_names(target):
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


def expression(node):
    return ast.fix_missing_locations(ast.copy_location(ast.Expression(body=node), node))


def expected_operand(part):
    """The static side of a top-level comparison (`f(x) == [1, 2]` -> `[1, 2]`), for display."""
    node = part.node
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        kinds = [c.kind for c in part.children]
        if kinds == ["hole", "out"]:
            return node.comparators[0]
        if kinds == ["out", "hole"]:
            return node.left
    return None


def rooted_name(node):
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def exposed_names(node, bt, statics):
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


def source_of(source, node):
    text = ast.get_source_segment(source, node) or ""
    return text.strip()


def shallow_copy(func):
    new = ast.FunctionDef(name=func.name, args=func.args, body=func.body, decorator_list=func.decorator_list,
                          returns=func.returns, type_comment=None)
    return ast.copy_location(new, func)


def compile_stmt(stmt):
    module = ast.fix_missing_locations(ast.Module(body=[stmt], type_ignores=[]))
    return compile(module, "<test>", "exec")


def compile_expr(expr):
    return compile(ast.fix_missing_locations(ast.Expression(body=expr)), "<test>", "eval")


def compile_target(target):
    assign = ast.Assign(targets=[target], value=ast.Name(id="__pg_item__", ctx=ast.Load()))
    return compile_stmt(ast.copy_location(assign, target))
