"""Java with Debian's OpenJDK 17 (and libjavatuples-java: MultiPL-E's prompts import org.javatuples).

HumanEval-X builds `List<Boolean> correct = Arrays.asList(c1, c2, ...)` and throws when one is
false; each `ci` (`s.f(x).equals(e)`, `Objects.equals(s.f(x), e)`, `s.f(x) == e`, `!s.f(x)`)
becomes `__PgReport.report(i, s.f(x))`, which returns true. MultiPL-E asserts
`assert(f(x).equals(e))`, which the JVM checks only under `-ea` (its runner passes it).
"""

from __future__ import annotations

import struct

from .compare import Compare
from .toolchain import Toolchain
from .literals import LiteralError, LiteralSyntax, number, read_literal
from .runtimes import java as java_runtime
from .scan import Dialect, find_calls, find_top, line_of, matching, split_top, strip_parens, tokenize
from .spec import REPORT_FD, LanguageSpec, Program, SourceFile, SplitTest, TestInput
from .splitting import Assertion, Cut, Unsplittable, actual_call, in_process, split_calls, wrapped_call
from .values import Map, Opt, SetOf, Tuple

DIALECT = Dialect(quotes='"', char_quote=True)
# the Java trust store is generated at install with the time of the build; offline, nothing needs it
JDK = Toolchain("java", ("openjdk-17-jdk-headless", "libjavatuples-java"), drop=("etc/ssl/certs/java/cacerts",))
CLASSPATH = ".:/usr/share/java/javatuples.jar"
RECEIVERS = ("s",)


def f32(x) -> float:
    return struct.unpack("f", struct.pack("f", float(x)))[0]


def read_number(text: str):
    value = number(text)
    return f32(value) if text.lower().endswith("f") else value


class JavaArray(list):
    """An array literal (`new int[]{...}`): passed alone to a varargs list factory, it is the list."""


def _list(args):
    """`Arrays.asList(a, b)` / `List.of(a)`: the arguments; one array argument is the elements."""
    return list(args[0]) if len(args) == 1 and isinstance(args[0], JavaArray) else list(args)


def _map_of(args):
    return Map(tuple(zip(args[0::2], args[1::2])))


def _same(args):
    if len(args) != 1:
        raise LiteralError("a copy constructor with other than one argument")
    return args[0]


def _new_collection(args):
    return _same(args) if args else []


_CONSTRUCTORS = {
    "Arrays.asList": _list, "List.of": _list, "new ArrayList": _new_collection, "new LinkedList": _new_collection,
    "Set.of": lambda a: SetOf(tuple(a)), "new HashSet": lambda a: SetOf(tuple(_new_collection(a))),
    "Map.of": _map_of, "new HashMap": lambda a: _same(a) if a else Map(()),
    "Optional.of": lambda a: Opt(True, a[0]), "Optional.empty": lambda a: Opt(False),
    "Pair.with": lambda a: Tuple(tuple(a)), "new Pair": lambda a: Tuple(tuple(a)),
    "new int[]": JavaArray, "new String[]": JavaArray, "new double[]": JavaArray, "new long[]": JavaArray,
    "new Integer[]": JavaArray,
}
SYNTAX = LiteralSyntax(
    constants={"true": True, "false": False, "null": None},
    constructors=_CONSTRUCTORS, brace_list=list, int_division="trunc", generics=True, read_number=read_number,
    casts={"float": f32, "double": float, "long": int, "int": int, "String": str, "Long": int, "Integer": int,
           "Double": float, "Float": f32, "Boolean": bool, "boolean": bool, "char": lambda v: v,
           **{name: (lambda v: v) for name in ("ArrayList", "List", "HashMap", "Map", "Pair", "Optional", "HashSet",
                                              "Set", "Object")}})


def _without_cast(tokens, lo: int, hi: int) -> tuple[int, int]:
    """`(String) s.f(x)` → `s.f(x)`: the cast is test-side typing, the call is what is reported."""
    lo, hi = strip_parens(tokens, lo, hi)
    if tokens[lo].text == "(" and tokens[lo + 1].kind == "ident" and tokens[lo + 2].text == ")" and lo + 3 < hi:
        return lo + 3, hi
    return lo, hi


def _suffix(tokens, lo: int, hi: int) -> tuple[int, str] | None:
    """`X.get()` / `X.isEmpty()` at the range's end: where X ends, and which method."""
    if hi - lo > 4 and tokens[hi - 1].text == ")" and tokens[hi - 2].text == "(" and tokens[hi - 4].text == "." \
            and tokens[hi - 3].text in ("get", "isEmpty"):
        return hi - 4, tokens[hi - 3].text
    return None


def _call(tokens, lo, hi):
    """The reported call and how the test's expected value relates to it: `s.f(x).get() == e`
    expects an Optional holding e (an empty one throws, which fails the original test too)."""
    lo, hi = _without_cast(tokens, lo, hi)
    suffix = _suffix(tokens, lo, hi)
    if suffix and suffix[1] == "get":
        return actual_call(tokens, _without_cast(tokens, lo, suffix[0]), RECEIVERS), (lambda e: Opt(True, e))
    return actual_call(tokens, (lo, hi), RECEIVERS), (lambda e: e)


def _pair(tokens, actual, expected, rule: str) -> Cut:
    """A Cut from two ranges, whichever of them is the literal."""
    try:
        rng, wrap = _call(tokens, *actual)
        return Cut(rng, wrap(read_literal(tokens, *strip_parens(tokens, *expected), SYNTAX)), Compare(rule))
    except LiteralError:
        rng, wrap = _call(tokens, *expected)
        return Cut(rng, wrap(read_literal(tokens, *strip_parens(tokens, *actual), SYNTAX)), Compare(rule))


def _dot_equals(tokens, lo: int, hi: int) -> Cut | None:
    """`X.equals(E)` at the end of the range."""
    if tokens[hi - 1].text != ")":
        return None
    opener = next((k for k in range(hi - 2, lo, -1) if tokens[k].text == "(" and matching(tokens, k) == hi - 1), None)
    if opener is None or tokens[opener - 1].text != "equals" or tokens[opener - 2].text != ".":
        return None
    return _pair(tokens, (lo, opener - 2), (opener + 1, hi - 1), "java_equals")


def cut_condition(tokens, lo: int, hi: int) -> Cut:
    lo, hi = strip_parens(tokens, lo, hi)
    if find_top(tokens, lo, hi, ("&&", "||", "?")):
        raise LiteralError("a compound condition")
    inner = wrapped_call(tokens, lo, hi, ("Objects", ".", "equals"))
    if inner:
        a, b = split_top(tokens, *inner, ",")
        return _pair(tokens, a, b, "java_equals")
    ops = find_top(tokens, lo, hi, ("==", "!="))
    if len(ops) == 1 and tokens[ops[0]].text == "==":
        return _pair(tokens, (lo, ops[0]), (ops[0] + 1, hi), "java_eq")
    if ops:
        raise LiteralError("a comparison this splitter does not read")
    less = find_top(tokens, lo, hi, ("<", "<="))
    if len(less) == 1:
        return _tolerance(tokens, lo, hi, less[0])
    dot = _dot_equals(tokens, lo, hi)
    if dot:
        return dot
    negated = tokens[lo].text == "!"
    lo += negated
    suffix = _suffix(tokens, lo, hi)
    if suffix and suffix[1] == "isEmpty":
        rule = "java_not_empty" if negated else "java_is_empty"
        return Cut(actual_call(tokens, _without_cast(tokens, lo, suffix[0]), RECEIVERS), None, Compare(rule))
    rng, _ = _call(tokens, lo, hi)
    return Cut(rng, not negated, Compare("truthy"))


def _tolerance(tokens, lo, hi, op_at) -> Cut:
    inner = wrapped_call(tokens, *strip_parens(tokens, lo, op_at), ("Math", ".", "abs"))
    if inner is None:
        raise LiteralError("a `<` comparison that is not Math.abs(...) < tolerance")
    how = Compare("approx", float(read_literal(tokens, op_at + 1, hi, SYNTAX)), inclusive=tokens[op_at].text == "<=")
    for sign_at in reversed(find_top(tokens, *inner, ("-", "+"))):
        try:
            value = read_literal(tokens, sign_at + 1, inner[1], SYNTAX)
            return Cut(_call(tokens, inner[0], sign_at)[0], value if tokens[sign_at].text == "-" else -value, how)
        except (LiteralError, TypeError):
            continue
    return Cut(_call(tokens, *inner)[0], 0, how)


def _report(index: int, actual: str) -> str:
    return f"__PgReport.report({index}, {actual})"


def _finish(text: str, n_sites: int) -> str:
    """`__PgReport.end(n)` as main's last statement; the runtime class after everything."""
    tokens = tokenize(text, DIALECT)
    at = next((k for k in range(len(tokens) - 1) if tokens[k].text == "main" and tokens[k + 1].text == "("), None)
    if at is None:
        raise Unsplittable("the test has no main method")
    body = next(k for k in range(at, len(tokens)) if tokens[k].text == "{")
    close = tokens[matching(tokens, body)].start
    return text[:close] + f"__PgReport.end({n_sites});\n" + text[close:] + "\n" + runtime()


def _correct_list(tokens) -> tuple[list[Assertion], tuple[int, int]] | None:
    """The conditions of HumanEval-X's `List<Boolean> correct = Arrays.asList(...)`, as ranges, and
    the token range of that assignment (from `correct` to its `;`)."""
    for start, open_at, close_at in find_calls(tokens, ("Arrays", ".", "asList")):
        if start >= 2 and tokens[start - 1].text == "=" and tokens[start - 2].text == "correct":
            end = close_at + 1 + (close_at + 1 < len(tokens) and tokens[close_at + 1].text == ";")
            return [Assertion(a, a, b - 1) for a, b in split_top(tokens, open_at + 1, close_at, ",")], (start - 2, end)
    return None


# HumanEval-X's one check of the list, and its construction of the receiver: the only places
# besides the list where the split test may name `correct`, `s` or an exception
_CHECK = ("if", "(", "correct", ".", "contains", "(", "false", ")", ")")
_THROW = ("throw", "new", "AssertionError", "(", ")", ";")
_RECEIVER = ("Solution", "s", "=", "new", "Solution", "(", ")", ";")
# anything that can fail the test outside its sites: a statement, or a word of a call that checks
CHECK_WORDS = frozenset(("if", "switch", "case", "try", "catch", "finally", "throw", "assert"))
CHECK_FRAGMENTS = ("assert", "throw", "error", "exit", "halt", "fail", "check", "verify", "expect", "require")


def _at(tokens, k: int, texts: tuple[str, ...]) -> bool:
    return tuple(t.text for t in tokens[k:k + len(texts)]) == texts


def _standard_check(tokens) -> tuple[int, int] | None:
    """`if (correct.contains(false)) { throw new AssertionError(); }` (braces optional)."""
    for k in range(len(tokens)):
        if _at(tokens, k, _CHECK):
            j = k + len(_CHECK)
            braced = j < len(tokens) and tokens[j].text == "{"
            j += braced
            if not _at(tokens, j, _THROW):
                return None
            j += len(_THROW)
            if braced:
                if j >= len(tokens) or tokens[j].text != "}":
                    return None
                j += 1
            return k, j
    return None


def _unsplit_checks(src: str, tokens, covered: list[tuple[int, int]], receivers: tuple[str, ...] = ()) -> None:
    """Raise Unsplittable when the test holds a check outside the ranges that became sites (and the
    recognised list check): Java/44 and 53 throw from a loop after the list, Java/151 ends with
    `assert s.doubleTheDifference(lst) == odd_sum;`. Graded outside, such a test would drop that
    check: a candidate right on the sites and wrong there would pass. With `receivers`, the test
    may not call the function under test anywhere else either."""
    skip = [False] * len(tokens)
    for lo, hi in covered:
        skip[lo:hi] = [True] * (hi - lo)
    if receivers:
        for k in range(len(tokens)):
            if _at(tokens, k, _RECEIVER) and not skip[k]:
                skip[k:k + len(_RECEIVER)] = [True] * len(_RECEIVER)
                break
    for k, tok in enumerate(tokens):
        if tok.text == "throws":          # `main(...) throws NoSuchAlgorithmException {` (Java/162) declares
            j = k + 1
            while j < len(tokens) and tokens[j].text not in ("{", ";"):
                skip[j] = True
                j += 1
            continue
        if skip[k] or tok.kind != "ident":
            continue
        word = tok.text.lower()
        if tok.text in CHECK_WORDS or any(f in word for f in CHECK_FRAGMENTS) or tok.text == "correct" \
                or (tok.text in receivers and k + 1 < len(tokens) and tokens[k + 1].text in (".", "::")):
            raise Unsplittable(f"line {line_of(src, tok.start)}: the test checks more than its sites "
                               f"(`{tok.text}` outside them)")


def split_test(test: TestInput) -> SplitTest:
    src = test.test
    tokens = tokenize(src, DIALECT)
    if test.dataset == "humaneval-x":
        found = _correct_list(tokens)
        if not found:
            raise Unsplittable("the test throws from its own checks instead of listing conditions")
        sites, assignment = found
        check = _standard_check(tokens)      # Java/151's public test builds the list and never checks it
        split = split_calls(src, tokens, sites, lambda a: cut_condition(tokens, a.start, a.close_at + 1),
                            _report, _finish)
        _unsplit_checks(src, tokens, [assignment] + ([check] if check else []), RECEIVERS)
        return split
    calls = [Assertion(*c) for c in find_calls(tokens, ("assert",))]
    split = split_calls(src, tokens, calls, lambda a: cut_condition(tokens, a.open_at + 1, a.close_at),
                        _report, _finish)
    _unsplit_checks(src, tokens, [(a.start, a.close_at + 1 + (a.close_at + 1 < len(tokens)
                                                            and tokens[a.close_at + 1].text == ";"))
                                  for a in calls])
    return split


def split(test: TestInput) -> SplitTest:
    try:
        return split_test(test)
    except Unsplittable as exc:
        return in_process(test.test, str(exc))


def runtime() -> str:
    return java_runtime.SOURCE.replace("/dev/fd/FD", f"/dev/fd/{REPORT_FD}")


def _layout(test: TestInput) -> tuple[str, str]:
    """(file, main class): HumanEval-X's `public class Main`, MultiPL-E's `class Problem`."""
    return ("Main.java", "Main") if test.dataset == "humaneval-x" else ("Problem.java", "Problem")


def _argv(test: TestInput) -> tuple[tuple[str, ...], tuple[str, ...]]:
    source, main = _layout(test)
    return (("javac", "-cp", CLASSPATH, "-encoding", "UTF-8", source),
            ("java", "-ea", "-Xss64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
             "-cp", CLASSPATH, main))


def program(test: TestInput, completion: str, split_test: SplitTest) -> Program:
    compile_argv, run_argv = _argv(test)
    text = test.prompt + completion + "\n" + split_test.harness
    return Program((SourceFile(_layout(test)[0], text),), compile_argv, run_argv)


def original(test: TestInput, completion: str) -> Program:
    """HumanEval-X: prompt + completion + test as Main.java, javac, java Main (CodeGeeX);
    MultiPL-E: Problem.java, java -ea."""
    compile_argv, run_argv = _argv(test)
    if test.dataset == "humaneval-x":
        run_argv = ("java", "-cp", CLASSPATH, "Main")
    text = test.prompt + completion + "\n" + test.test
    return Program((SourceFile(_layout(test)[0], text),), compile_argv, run_argv)


JAVA = LanguageSpec(
    name="java", title="Java", toolchain=JDK, fence_tags=("java",), split=split, program=program,
    original=original, runtime=runtime, version_argv=("java", "-version"), rlimit_as=False,
    default_stop_tokens=("\n    }\n",))

