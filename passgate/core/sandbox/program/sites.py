"""An assertion split in two: what the candidate's process evaluates (the holes) and what the grader
keeps (the expected values and the comparison). Standard library only.

`assert abs(candidate(x) - 0.5) < 1e-6` becomes, in the candidate's process, `__pg_h__(7, candidate(x))`:
the hole is evaluated exactly as CPython would and its value reported; the grader evaluates
`abs(__pg_h0__ - 0.5) < 1e-6` on that value. The literals 0.5 and 1e-6 never enter the process.
An assertion with nothing static to keep (`p1 == p2`, `isinstance(x, Thing)`) is decided in the
process, exactly as written, and reported as such.
"""

import ast

HOLES = "__pg_h__"          # in the process: report a site's hole values
TRUTH_HOLE = "__pg_b__"     # in the process: report only a hole's truth
TRUTH = "__pg_t__"          # in the process: an assertion decided there held (returns the truth)
COMPARE = "__pg_c__"        # in the process: a comparison of an assertion decided there, with the trust check
HOLE_NAME = "__pg_h%d__"    # in the grader: the name a hole's value has in its skeleton

# hole modes: the value itself, or only its truth (`assert f(x)`, `assert not f(x)`)
VALUE, TRUTH_ONLY = "v", "t"
HIDDEN, VISIBLE, IN_PROCESS = "hidden", "visible", "in_process"
COMPARE_OPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
               ast.In: "in", ast.NotIn: "not in"}


class Site:
    """One assertion site: where it is, how it is decided, and what the grader needs to decide it."""

    __slots__ = ("id", "line", "source", "kind", "modes", "skeleton", "outside", "message", "place",
                 "expected", "scope", "code")

    def __init__(self, site_id, line, source, kind, place):
        self.id, self.line, self.source, self.kind, self.place = site_id, line, source, kind, place
        self.modes = ()             # one per hole
        self.skeleton = None        # the grader's expression over the holes (an ast.Expression)
        self.outside = []           # the static parts the skeleton keeps (ast nodes)
        self.message = None         # the assertion's message when it is a literal
        self.expected = None        # the static operand of a top-level comparison, for display
        self.scope = None           # the Binding the skeleton's static names are read in
        self.code = None            # the skeleton, compiled


class Part:
    """A node of an assertion's test: kept by the grader (out), evaluated in the process (hole), or a
    pure operation over parts (skeleton)."""

    __slots__ = ("kind", "node", "children")

    def __init__(self, kind, node, children=()):
        self.kind, self.node, self.children = kind, node, children

    def has_out(self):
        return self.kind == "out" or any(c.has_out() for c in self.children)


class Splitter:
    """Splits assertion tests, given which names are static where (statics.Statics)."""

    def __init__(self, statics):
        self.statics = statics

    def part(self, node, bt):
        if self.statics.static(node, bt):
            return Part("out", node)
        children = self._evaluable_children(node, bt)
        if children is not None:
            parts = [self.part(c, bt) for c in children]
            if any(p.has_out() for p in parts) and self._order_allows(node, parts, bt):
                return Part("skel", node, parts)
        return Part("hole", node)

    def _evaluable_children(self, node, bt):
        """The operands, when the grader can apply `node`'s operation to plain values itself."""
        if isinstance(node, ast.Compare):
            return [node.left] + list(node.comparators)
        if isinstance(node, ast.BinOp):
            return [node.left, node.right]
        if isinstance(node, ast.UnaryOp):
            return [node.operand]
        if isinstance(node, ast.Call) and not any(isinstance(a, ast.Starred) for a in node.args) \
                and all(k.arg is not None for k in node.keywords) and self._pure_callable(node.func, bt):
            return list(node.args) + [k.value for k in node.keywords]
        return None

    def _pure_callable(self, func, bt):
        probe = ast.Call(func=func, args=[], keywords=[])
        return self.statics.static(probe, bt)

    def _order_allows(self, node, parts, bt):
        """A chained comparison evaluates its third operand only when the first comparison held: the
        process cannot know that, so holes may only sit in the first two operands. `is` compares
        identities, which a value decoded in the grader has only with None, True, False and classes."""
        if isinstance(node, ast.Compare):
            if any(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops):
                operands = [node.left] + list(node.comparators)
                if not all(self.statics.identity_safe(o, bt) for o, p in zip(operands, parts) if p.kind == "out"):
                    return False
            return all(p.kind == "out" for p in parts[2:])
        return True


def holes_of(part, out=None):
    """The hole parts, in CPython's evaluation order (left to right through operands and arguments)."""
    out = [] if out is None else out
    if part.kind == "hole":
        out.append(part)
    for child in part.children:
        holes_of(child, out)
    return out


def outs_of(part, out=None):
    out = [] if out is None else out
    if part.kind == "out":
        out.append(part.node)
    for child in part.children:
        outs_of(child, out)
    return out


def skeleton_of(part, holes):
    """The grader's expression: `part` with each hole replaced by its name."""
    if part.kind == "hole":
        return ast.Name(id=HOLE_NAME % holes.index(part), ctx=ast.Load())
    if part.kind == "out":
        return part.node
    node = part.node
    kids = [skeleton_of(c, holes) for c in part.children]
    if isinstance(node, ast.Compare):
        return ast.Compare(left=kids[0], ops=node.ops, comparators=kids[1:])
    if isinstance(node, ast.BinOp):
        return ast.BinOp(left=kids[0], op=node.op, right=kids[1])
    if isinstance(node, ast.UnaryOp):
        return ast.UnaryOp(op=node.op, operand=kids[0])
    n_args = len(node.args)
    return ast.Call(func=node.func, args=kids[:n_args],
                    keywords=[ast.keyword(arg=k.arg, value=v) for k, v in zip(node.keywords, kids[n_args:])])


def conjuncts(test):
    """`assert a and b` checks a, then b (b is not evaluated once a failed, as the assert then fails)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        out = []
        for value in test.values:
            out.extend(conjuncts(value))
        return out
    return [test]


def truth_shape(test):
    """(negated, operand) when the test only asks for an operand's truth: `x`, `not x`, `not not x`."""
    negated = False
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        negated, test = not negated, test.operand
    return negated, test


def trusted_compare(site_id, test):
    """In the process: a top-level comparison goes through the trust check (an object whose equality
    is the candidate's own, compared with plain data, is not believed)."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in COMPARE_OPS:
        call = ast.Call(func=ast.Name(id=COMPARE, ctx=ast.Load()),
                        args=[ast.Constant(site_id), ast.Constant(COMPARE_OPS[type(test.ops[0])]), test.left,
                              test.comparators[0]], keywords=[])
        return ast.copy_location(call, test)
    return test


def report_call(name, site_id, args, where):
    call = ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=[ast.Constant(site_id)] + list(args), keywords=[])
    return ast.copy_location(call, where)
