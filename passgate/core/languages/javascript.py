"""JavaScript and TypeScript on Node (Debian's nodejs and node-typescript).

HumanEval-X's tests are `console.assert(cond)`, which in Node prints and carries on: the exit
status never shows a failure (its own runner counts any output as one). MultiPL-E's are
`assert.deepEqual(candidate(...), expected)` from node:assert. Either way a site here is one
call of the function under test; what it is compared with, and how (`===`, `==`, JSON text,
deepEqual, a tolerance), stays with the grader.
"""

from __future__ import annotations

import math

from .compare import Compare
from .toolchain import Toolchain
from .literals import LiteralError, LiteralSyntax, number, read_literal
from .scan import Dialect, find_calls, find_top, split_top, strip_parens, tokenize
from .spec import REPORT_FD, LanguageSpec, Program, SourceFile, SplitTest, TestInput
from .splitting import Assertion, Cut, Unsplittable, actual_call, in_process, split_calls, wrapped_call
from .values import UNDEFINED

DIALECT = Dialect(quotes="'\"`")


def read_number(text: str):
    """A JavaScript number: every one is a double, so an integer past 2**53 is rounded like one."""
    value = number(text)
    return float(value) if isinstance(value, int) and abs(value) > 2 ** 53 else value


SYNTAX = LiteralSyntax(constants={"true": True, "false": False, "null": None, "undefined": UNDEFINED,
                                  "NaN": math.nan, "Infinity": math.inf},
                       read_number=read_number, comma_operator=True)
NODE = Toolchain("node", ("nodejs", "node-typescript"))
EQUALITY = {"===": "js_strict", "==": "js_loose", "!==": "js_not_strict"}
# node:assert's own rules: `equal` is `==` but NaN equals NaN, `strictEqual` is Object.is
NODE_ASSERT = {"deepEqual": "js_deep", "deepStrictEqual": "js_deep_strict", "equal": "js_assert_equal",
               "strictEqual": "js_same"}

RUNTIME = r"""
const __pg = (() => {
  const writeSync = require('fs').writeSync, stringify = JSON.stringify, isArray = Array.isArray;
  const keys = Object.keys, is = Object.is, isSafe = Number.isSafeInteger, proto = Object.getPrototypeOf;
  const kind = (v: any) => Object.prototype.toString.call(v);
  let budget = 0;
  const enc = (v: any, depth: number): any => {
    if (++budget > 5000000 || depth > 1000) return {x: 'too large'};
    if (v === undefined) return {u: 1};
    if (v === null) return null;
    const t = typeof v;
    if (t === 'boolean' || t === 'string') return v;
    if (t === 'number') {
      if (v !== v) return {f: 'nan'};
      if (v === Infinity) return {f: 'inf'};
      if (v === -Infinity) return {f: '-inf'};
      if (is(v, -0)) return {f: '-0'};
      return isSafe(v) ? v : {f: v};
    }
    if (t === 'bigint') return {big: v.toString()};
    if (isArray(v)) {
      const out = [];
      for (let i = 0; i < v.length; i++) out.push(enc(v[i], depth + 1));
      return out;
    }
    if (t === 'object' && (proto(v) === Object.prototype || proto(v) === null)) {
      return {o: keys(v).map((k: string) => [k, enc(v[k], depth + 1)])};
    }
    return {x: kind(v)};
  };
  const put = (record: any) => { writeSync(FD, stringify(record) + '\n'); };
  return {
    report: (site: number, value: any) => { budget = 0; put({s: site, v: enc(value, 0)}); },
    end: (n: number) => put({end: n}),
  };
})();
""".replace("FD", str(REPORT_FD))


def runtime_js() -> str:
    """The serialiser as plain JavaScript (type annotations removed)."""
    text = RUNTIME
    for annotation in (": any", ": number", ": string"):
        text = text.replace(annotation, "")
    return text


def runtime_ts() -> str:
    return "declare var require: any;\n" + RUNTIME


def _equality(tokens, lo: int, hi: int, op_at: int) -> Cut:
    rule = EQUALITY.get(tokens[op_at].text)
    if rule is None:
        raise LiteralError(f"comparison {tokens[op_at].text} is not split")
    left, right = strip_parens(tokens, lo, op_at), strip_parens(tokens, op_at + 1, hi)
    inner_l, inner_r = (wrapped_call(tokens, *side, ("JSON", ".", "stringify")) for side in (left, right))
    if inner_l and inner_r:
        left, right, rule = inner_l, inner_r, "js_json"
    try:
        expected = read_literal(tokens, *right, SYNTAX)
        actual = left
    except LiteralError:
        expected = read_literal(tokens, *left, SYNTAX)
        actual = right
    return Cut(actual_call(tokens, actual), expected, Compare(rule))


def _tolerance(tokens, lo: int, hi: int, op_at: int) -> Cut:
    """`Math.abs(f(x) - e) < tol`, or `Math.abs(f(x)) < tol` (expected 0)."""
    inner = wrapped_call(tokens, *strip_parens(tokens, lo, op_at), ("Math", ".", "abs"))
    if inner is None:
        raise LiteralError("a `<` comparison that is not Math.abs(...) < tolerance")
    tol = read_literal(tokens, op_at + 1, hi, SYNTAX)
    how = Compare("approx", float(tol), inclusive=tokens[op_at].text == "<=")
    for minus in reversed(find_top(tokens, *inner, ("-",))):
        try:
            return Cut(actual_call(tokens, (inner[0], minus)), read_literal(tokens, minus + 1, inner[1], SYNTAX), how)
        except LiteralError:
            continue
    return Cut(actual_call(tokens, inner), 0, how)


def cut_condition(tokens, lo: int, hi: int) -> Cut:
    """One console.assert condition → the call, the expected value and the comparison."""
    lo, hi = strip_parens(tokens, lo, hi)
    if find_top(tokens, lo, hi, ("&&", "||", "?")):
        raise LiteralError("a compound condition")
    ops = find_top(tokens, lo, hi, tuple(EQUALITY) + ("!=",))
    if len(ops) == 1:
        return _equality(tokens, lo, hi, ops[0])
    less = find_top(tokens, lo, hi, ("<", "<="))
    if len(less) == 1 and not ops:
        return _tolerance(tokens, lo, hi, less[0])
    if ops or less:
        raise LiteralError("more than one comparison")
    if tokens[lo].text == "!":
        return Cut(actual_call(tokens, (lo + 1, hi)), False, Compare("truthy"))
    return Cut(actual_call(tokens, (lo, hi)), True, Compare("truthy"))


def _report(index: int, actual: str) -> str:
    return f"__pg.report({index}, {actual})"


def _finish(text: str, n_sites: int) -> str:
    return f"{text}\n__pg.end({n_sites});\n"


def split_console_assert(src: str) -> SplitTest:
    tokens = tokenize(src, DIALECT)
    calls = [Assertion(*c) for c in find_calls(tokens, ("console", ".", "assert"))]

    def cut(a: Assertion) -> Cut:
        first = split_top(tokens, a.open_at + 1, a.close_at, ",")[0]
        return cut_condition(tokens, *first)
    return split_calls(src, tokens, calls, cut, _report, _finish)


def split_node_assert(src: str) -> SplitTest:
    tokens = tokenize(src, DIALECT)
    calls = [Assertion(*c) for name in ("deepEqual", "deepStrictEqual", "equal", "strictEqual", "notDeepEqual",
                                        "notEqual", "ok", "throws")
             for c in find_calls(tokens, ("assert", ".", name))]
    calls += [Assertion(*c) for c in find_calls(tokens, ("assert",))]
    calls.sort(key=lambda a: a.start)

    def cut(a: Assertion) -> Cut:
        method = tokens[a.start + 2].text if tokens[a.start + 1].text == "." else ""
        args = split_top(tokens, a.open_at + 1, a.close_at, ",")
        if method not in NODE_ASSERT or len(args) != 2:
            raise LiteralError(f"assert.{method or '(...)'} with {len(args)} arguments is not split")
        expected = read_literal(tokens, *strip_parens(tokens, *args[1]), SYNTAX)
        return Cut(actual_call(tokens, args[0]), expected, Compare(NODE_ASSERT[method]))
    return split_calls(src, tokens, calls, cut, _report, _finish)


def failing_console_assert(test: str) -> str:
    """The test with each `console.assert(` made to throw when false, as its author meant (in Node it
    only prints): the in-process fallback then fails by exit status on a false condition."""
    return test.replace("console.assert(", "require('node:assert').ok(")


def split(test: TestInput) -> SplitTest:
    if test.dataset == "humaneval-x":
        try:
            return split_console_assert(test.test)
        except Unsplittable as exc:
            return in_process(failing_console_assert(test.test), str(exc))
    try:
        return split_node_assert(test.test)
    except Unsplittable as exc:
        return in_process(test.test, str(exc))


def program_js(test: TestInput, completion: str, split_test: SplitTest) -> Program:
    runtime = runtime_js() if split_test.sites else ""
    text = test.prompt + completion + "\n" + runtime + split_test.harness
    return Program((SourceFile("main.js", text),), None, ("node", "main.js"))


def original_js(test: TestInput, completion: str) -> Program:
    """HumanEval-X's and MultiPL-E's own construction: prompt + completion + test, one file."""
    text = test.prompt + completion + "\n" + test.test
    return Program((SourceFile("main.js", text),), None, ("node", "main.js"))


TSC = ("tsc", "--target", "esnext", "main.ts")


def program_ts(test: TestInput, completion: str, split_test: SplitTest) -> Program:
    runtime = runtime_ts() if split_test.sites else ""
    text = test.prompt + completion + "\n" + runtime + split_test.harness
    return Program((SourceFile("main.ts", text),), TSC, ("node", "main.js"))


def original_ts(test: TestInput, completion: str) -> Program:
    """MultiPL-E's construction: tsc --target esnext (a type error fails), then node."""
    text = test.prompt + completion + "\n" + test.test
    return Program((SourceFile("main.ts", text),), TSC, ("node", "main.js"))


JAVASCRIPT = LanguageSpec(
    name="js", title="JavaScript", toolchain=NODE, fence_tags=("javascript", "js", "node"),
    split=split, program=program_js, original=original_js, runtime=runtime_js,
    version_argv=("node", "--version"),
    default_stop_tokens=("\nfunction ", "\n/*", "\n//", "\nconsole.log"))

TYPESCRIPT = LanguageSpec(
    name="ts", title="TypeScript", toolchain=NODE, fence_tags=("typescript", "ts"),
    split=split, program=program_ts, original=original_ts, runtime=runtime_ts,
    version_argv=("tsc", "--version"),
    default_stop_tokens=("\nfunction ", "\n/*", "\n//", "\nclass"))
