"""C++ with Debian's g++ (and libssl-dev: HumanEval-X's CPP/162 calls OpenSSL's MD5).

HumanEval-X asserts `f(x) == e`, `issame(f(x), {...})` (a helper in the test, with a 1e-4
tolerance for vectors of floats), `abs(f(x) - e) < 1e-4`, or a bare condition; MultiPL-E asserts
`candidate(x) == (e)`. Each becomes `__pg::report(k, f(x))`; the brace lists, casts and
`std::make_tuple`s become values the grader compares the way the C++ `==` would (a brace list
takes the type it initialises; a `float` is compared at float precision).
"""

from __future__ import annotations

import re
import struct

from .compare import Compare
from .toolchain import Toolchain
from .literals import LiteralError, LiteralSyntax, number, read_literal
from .runtimes import cpp as cpp_runtime
from .scan import Dialect, find_calls, find_top, matching, split_top, strip_parens, tokenize
from .spec import REPORT_FD, LanguageSpec, Program, SourceFile, SplitTest, TestInput
from .splitting import Assertion, Cut, Unsplittable, actual_call, in_process, split_calls, wrapped_call
from .values import Char, Map, Opt, Tuple

DIALECT = Dialect(quotes='"', char_quote=True)
GCC = Toolchain("gcc", ("g++", "libssl-dev", "libboost-dev"))
# HumanEval-X's runner puts these before the prompt when the prompt lacks them (CodeGeeX utils.py)
IMPORT_HELPER = ("#include<stdlib.h>", "#include<algorithm>", "#include<math.h>", "#include<stdio.h>",
                 "#include<vector>", "#include<string>", "#include<climits>", "#include<cstring>",
                 "#include<iostream>")


def f32(x) -> float:
    """A value as a C++ float holds it."""
    try:
        return struct.unpack("f", struct.pack("f", float(x)))[0]
    except OverflowError:
        return float("inf") if x > 0 else float("-inf")


def read_number(text: str):
    value = number(text)
    return f32(value) if text.lower().endswith("f") and not text.lower().startswith("0x") else value


def _seq(args: list):
    return args[0] if len(args) == 1 and isinstance(args[0], list) else list(args)


def _map(args: list):
    entries = args[0] if args else []
    return Map(tuple((k, v) for k, v in entries))


def _optional(args: list):
    return Opt(True, args[0]) if args else Opt(False)


_CONSTRUCTORS = {
    "vector": _seq, "make_tuple": lambda a: Tuple(tuple(a)), "tuple": lambda a: Tuple(tuple(a)),
    "make_pair": lambda a: Tuple(tuple(a)), "pair": lambda a: Tuple(tuple(a)), "optional": _optional,
    "nullopt": lambda a: Opt(False), "string": lambda a: a[0] if a else "", "map": _map,
    "float": lambda a: f32(a[0]), "double": lambda a: float(a[0]), "long": lambda a: int(a[0]),
    "int": lambda a: int(a[0]),
}
SYNTAX = LiteralSyntax(
    constants={"true": True, "false": False},
    constructors={**_CONSTRUCTORS, **{f"std::{k}": v for k, v in _CONSTRUCTORS.items()}},
    brace_list=list, int_division="trunc", generics=True, read_number=read_number,
    casts={"float": f32, "double": float, "long": int, "int": int, "longlong": int, "std::string": str,
           "string": str, "bool": bool, "char": lambda v: v if isinstance(v, Char) else Char(chr(v))})


def issame_tolerance(test: str) -> float | None:
    """The tolerance of the test's own `issame` helper (`abs(a[i]-b[i])>1e-4`), if it has one."""
    m = re.search(r"bool\s+issame[^{]*\{.*?abs\s*\(\s*a\s*\[\s*i\s*\]\s*-\s*b\s*\[\s*i\s*\]\s*\)\s*>\s*([0-9.eE+-]+)",
                  test, re.S)
    return float(m.group(1)) if m else None


def _equality(tokens, lo, hi, op_at) -> Cut:
    if tokens[op_at].text != "==":
        raise LiteralError(f"comparison {tokens[op_at].text} is not split")
    left, right = strip_parens(tokens, lo, op_at), strip_parens(tokens, op_at + 1, hi)
    try:
        return Cut(actual_call(tokens, left), read_literal(tokens, *right, SYNTAX), Compare("cpp_eq"))
    except LiteralError:
        return Cut(actual_call(tokens, right), read_literal(tokens, *left, SYNTAX), Compare("cpp_eq"))


def _tolerance(tokens, lo, hi, op_at) -> Cut:
    inner = wrapped_call(tokens, *strip_parens(tokens, lo, op_at), ("abs",)) or \
        wrapped_call(tokens, *strip_parens(tokens, lo, op_at), ("fabs",))
    if inner is None:
        raise LiteralError("a `<` comparison that is not abs(...) < tolerance")
    how = Compare("approx", float(read_literal(tokens, op_at + 1, hi, SYNTAX)),
                  inclusive=tokens[op_at].text == "<=")
    for sign_at in reversed(find_top(tokens, *inner, ("-", "+"))):
        try:
            value = read_literal(tokens, sign_at + 1, inner[1], SYNTAX)
            expected = value if tokens[sign_at].text == "-" else -value
            return Cut(actual_call(tokens, (inner[0], sign_at)), expected, how)
        except (LiteralError, TypeError):
            continue
    return Cut(actual_call(tokens, inner), 0, how)


def cut_condition(tokens, lo: int, hi: int, tolerance: float | None) -> Cut:
    lo, hi = strip_parens(tokens, lo, hi)
    ands = find_top(tokens, lo, hi, ("&&",))
    if ands and tokens[ands[-1] + 1].kind == "str" and ands[-1] + 2 == hi:      # assert(x && "failure 1")
        return cut_condition(tokens, lo, ands[-1], tolerance)
    if ands or find_top(tokens, lo, hi, ("||", "?", "and", "or")):
        raise LiteralError("a compound condition")
    same = wrapped_call(tokens, lo, hi, ("issame",))
    if same:
        args = split_top(tokens, *same, ",")
        how = Compare("approx", tolerance, inclusive=True) if tolerance else Compare("cpp_eq")
        return Cut(actual_call(tokens, args[0]), read_literal(tokens, *strip_parens(tokens, *args[1]), SYNTAX), how)
    ops = find_top(tokens, lo, hi, ("==", "!="))
    if len(ops) == 1:
        return _equality(tokens, lo, hi, ops[0])
    less = find_top(tokens, lo, hi, ("<", "<="))
    if len(less) == 1 and not ops:
        return _tolerance(tokens, lo, hi, less[0])
    if ops or less or find_top(tokens, lo, hi, (">", ">=")):
        raise LiteralError("a comparison this splitter does not read")
    if tokens[lo].text in ("!", "not"):
        return Cut(actual_call(tokens, (lo + 1, hi)), False, Compare("truthy"))
    return Cut(actual_call(tokens, (lo, hi)), True, Compare("truthy"))


def _report(index: int, actual: str) -> str:
    return f"__pg::report({index}, {actual})"


def _finish(text: str, n_sites: int) -> str:
    """main becomes __pg_main; a new main runs it, then reports the end."""
    tokens = tokenize(text, DIALECT)
    at = next((k for k in range(1, len(tokens) - 1) if tokens[k].text == "main" and tokens[k - 1].text == "int"
               and tokens[k + 1].text == "("), None)
    if at is None:
        raise Unsplittable("the test has no `int main(`")
    body = next(k for k in range(at, len(tokens)) if tokens[k].text == "{")
    close = tokens[matching(tokens, body)].start
    text = text[:tokens[at].start] + "__pg_main" + text[tokens[at].end:close] + "return 0;\n" + text[close:]
    return f"{text}\nint main() {{ __pg_main(); __pg::end({n_sites}); return 0; }}\n"


def split_test(test: TestInput) -> SplitTest:
    src = test.test
    tolerance = issame_tolerance(src)
    tokens = tokenize(src, DIALECT)
    calls = [Assertion(*c) for c in find_calls(tokens, ("assert",))]
    return split_calls(src, tokens, calls, lambda a: cut_condition(tokens, a.open_at + 1, a.close_at, tolerance),
                       _report, _finish)


# MultiPL-E's C++ prompts declare their own class for a Python union (`Union_std_string_long`): the
# serialiser has no overload for it, so a harness reporting it would not compile
_UNION_RETURN = re.compile(r"^\s*(Union_\w+)\s+\w+\s*\(", re.M)


def split(test: TestInput) -> SplitTest:
    union = _UNION_RETURN.search(test.prompt)
    if union:
        return in_process(test.test, f"the function returns {union.group(1)}, a class the prompt declares, "
                                     "which the serialiser cannot report")
    try:
        return split_test(test)
    except Unsplittable as exc:
        return in_process(test.test, str(exc))


def runtime() -> str:
    return cpp_runtime.SOURCE.replace("FD", str(REPORT_FD))


def _standard(dataset: str) -> str:
    return "c++11" if dataset == "humaneval-x" else "c++17"


def _compile(dataset: str) -> tuple[str, ...]:
    return ("g++", f"-std={_standard(dataset)}", "-O0", "main.cpp", "-o", "main", "-lcrypto")


def _prelude(prompt: str) -> str:
    return "".join(s + "\n" for s in IMPORT_HELPER if s not in prompt)


def program(test: TestInput, completion: str, split_test: SplitTest) -> Program:
    """The runtime, CodeGeeX's includes, prompt + completion + harness; the dataset's standard."""
    head = runtime() if split_test.sites else ""
    text = head + _prelude(test.prompt) + test.prompt + completion + "\n" + split_test.harness
    return Program((SourceFile("main.cpp", text),), _compile(test.dataset), ("./main",))


def original(test: TestInput, completion: str) -> Program:
    """HumanEval-X: CodeGeeX's includes + prompt + completion + test, g++ -std=c++11 (-lcrypto);
    MultiPL-E: prompt + completion + tests, g++ -std=c++17."""
    prelude = _prelude(test.prompt) if test.dataset == "humaneval-x" else ""
    text = prelude + test.prompt + completion + "\n" + test.test
    return Program((SourceFile("main.cpp", text),), _compile(test.dataset), ("./main",))


CPP = LanguageSpec(
    name="cpp", title="C++", toolchain=GCC, fence_tags=("cpp", "c++", "cc", "cxx"),
    split=split, program=program, original=original, runtime=runtime, version_argv=("g++", "--version"),
    default_stop_tokens=("\n}",))
