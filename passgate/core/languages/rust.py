"""Rust with Debian's rustc (1.63), and the crates HumanEval-X's declarations name (rand, regex,
md5: Debian's librust-*-dev sources, compiled into the image once, offline).

HumanEval-X's tests are a `#[cfg(test)] mod tests` of `#[test]` functions asserting
`assert_eq!(f(x), e)` or `assert!(f(x) == e)`; MultiPL-E's a `fn main` of `assert_eq!`. The
test functions become plain ones called from a generated main; each site reports `&(f(x))`.
"""

from __future__ import annotations

import re
from dataclasses import replace

from .compare import Compare
from .toolchain import Toolchain
from .literals import LiteralError, LiteralSyntax, read_literal
from .runtimes import rust as rust_runtime
from .scan import Dialect, find_top, matching, split_top, strip_parens, tokenize
from .spec import REPORT_FD, LanguageSpec, Program, SourceFile, SplitTest, TestInput
from .splitting import Assertion, Cut, Unsplittable, actual_call, in_process, split_calls
from .values import Map, Opt

DIALECT = Dialect(quotes='"', char_quote=True, raw_strings=True)
CRATES = ("rand", "regex", "md5")
DEPS = "/opt/passgate/rust"
PREPARE = f"""
mkdir -p {DEPS}/build/src {DEPS}/build/.cargo {DEPS}/deps {DEPS}/extern
cd {DEPS}/build
printf '[package]\\nname = "pgdeps"\\nversion = "0.0.0"\\nedition = "2021"\\n[lib]\\npath = "src/lib.rs"\\n[dependencies]\\nrand = "0.8"\\nregex = "1"\\nmd5 = "0.7"\\n' > Cargo.toml
printf '[source.crates-io]\\nreplace-with = "debian"\\n[source.debian]\\ndirectory = "/usr/share/cargo/registry"\\n[net]\\noffline = true\\n' > .cargo/config.toml
: > src/lib.rs
CARGO_HOME={DEPS}/build/.cargo cargo build --release --offline -j 1 -q
cp target/release/deps/*.rlib {DEPS}/deps/
for c in {' '.join(CRATES)}; do cp $(ls target/release/deps/lib$c-*.rlib | head -n 1) {DEPS}/extern/lib$c.rlib; done
cd / && rm -rf {DEPS}/build
"""
RUST = Toolchain("rust", ("rustc", "libc6-dev", "cargo"),
                 apt_packages=("librust-rand-dev", "librust-regex-dev", "librust-regex+default-dev", "librust-md5-dev"),
                 prepare=PREPARE)
CRATE_FLAGS = ("-L", f"dependency={DEPS}/deps",
               *(a for c in CRATES for a in ("--extern", f"{c}={DEPS}/extern/lib{c}.rlib")))


def _vec(args):
    return list(args)


SYNTAX = LiteralSyntax(
    constants={"true": True, "false": False, "None": Opt(False)},
    constructors={"vec": _vec, "Some": lambda a: Opt(True, a[0]), "String::from": lambda a: a[0],
                  "HashMap::from": lambda a: Map(tuple((k.items[0], k.items[1]) for k in a[0])),
                  "Vec::new": lambda a: [], "String::new": lambda a: ""},
    brace_list=None, int_division="trunc", generics=True)


def let_literals(tokens) -> dict[str, object]:
    """`let name: T = literal;` bindings of a test: an expected value may be named by one."""
    bound = {}
    for k in range(len(tokens) - 3):
        if tokens[k].text != "let" or tokens[k + 1].text == "mut":      # a mutable one may change before use
            continue
        name, eq = tokens[k + 1].text, k + 2
        while eq < len(tokens) and tokens[eq].text not in ("=", ";"):
            eq += 1
        end = eq
        while end < len(tokens) and tokens[end].text != ";":
            end += 1
        try:
            bound[name] = read_literal(tokens, eq + 1, end, SYNTAX)
        except (LiteralError, IndexError):
            continue
    return bound


def _pair(tokens, actual, expected, rule: str = "eq", syntax: LiteralSyntax = SYNTAX) -> Cut:
    try:
        return Cut(actual_call(tokens, actual), read_literal(tokens, *strip_parens(tokens, *expected), syntax),
                   Compare(rule))
    except LiteralError:
        return Cut(actual_call(tokens, expected), read_literal(tokens, *strip_parens(tokens, *actual), syntax),
                   Compare(rule))


def _abs_tolerance(tokens, lo: int, hi: int) -> Cut | None:
    """`(f(x) - e).abs() < tol`."""
    less = find_top(tokens, lo, hi, ("<", "<="))
    if len(less) != 1:
        return None
    left = strip_parens(tokens, lo, less[0])
    if [t.text for t in tokens[left[1] - 4:left[1]]] != [".", "abs", "(", ")"] or tokens[left[0]].text != "(":
        return None
    inner = (left[0] + 1, matching(tokens, left[0]))
    how = Compare("approx", float(read_literal(tokens, less[0] + 1, hi, SYNTAX)), inclusive=tokens[less[0]].text == "<=")
    for sign_at in reversed(find_top(tokens, *inner, ("-", "+"))):
        try:
            value = read_literal(tokens, sign_at + 1, inner[1], SYNTAX)
            return Cut(actual_call(tokens, (inner[0], sign_at)), value if tokens[sign_at].text == "-" else -value, how)
        except (LiteralError, TypeError):
            continue
    return None


def _cut(tokens, a: Assertion, syntax: LiteralSyntax) -> Cut:
    macro = tokens[a.start].text
    args = split_top(tokens, a.open_at + 1, a.close_at, ",")
    if macro == "assert_eq":
        return _pair(tokens, args[0], args[1], "eq", syntax)
    if macro == "assert_ne":
        return _pair(tokens, args[0], args[1], "ne", syntax)
    lo, hi = strip_parens(tokens, *args[0])
    if find_top(tokens, lo, hi, ("&&", "||")):
        raise LiteralError("a compound condition")
    ops = find_top(tokens, lo, hi, ("==", "!="))
    if len(ops) == 1:
        return _pair(tokens, (lo, ops[0]), (ops[0] + 1, hi), "eq" if tokens[ops[0]].text == "==" else "ne", syntax)
    tolerance = _abs_tolerance(tokens, lo, hi)
    if tolerance:
        return tolerance
    if tokens[lo].text == "!":
        return Cut(actual_call(tokens, (lo + 1, hi)), False, Compare("eq"))
    return Cut(actual_call(tokens, (lo, hi)), True, Compare("eq"))


def _assertions(tokens) -> list[Assertion]:
    found = []
    for name in ("assert", "assert_eq", "assert_ne"):
        for k, t in enumerate(tokens[:-2]):
            if t.text == name and tokens[k + 1].text == "!" and tokens[k + 2].text == "(":
                found.append(Assertion(k, k + 2, matching(tokens, k + 2)))
    return sorted(found, key=lambda a: a.start)


def _report(index: int, actual: str) -> str:
    return f"__pg::report({index}, &({actual}))"


def _finish_module(text: str, n_sites: int) -> str:
    """HumanEval-X: the tests module compiled always, its #[test] functions public, a main calling them."""
    names = re.findall(r"#\[test\]\s*fn\s+(\w+)", text)
    if not names:
        raise Unsplittable("no #[test] function")
    text = text.replace("#[cfg(test)]", "")
    text = re.sub(r"#\[test\]\s*fn\s+", "pub fn ", text)
    calls = "".join(f"    tests::{n}();\n" for n in names)
    return f"{text}\nfn main() {{\n{calls}    __pg::end({n_sites});\n}}\n"


def _finish_main(text: str, n_sites: int) -> str:
    """MultiPL-E: `__pg::end(n)` as main's last statement."""
    tokens = tokenize(text, DIALECT)
    at = next((k for k in range(len(tokens) - 1) if tokens[k].text == "main" and tokens[k - 1].text == "fn"), None)
    if at is None:
        raise Unsplittable("the test has no fn main")
    body = next(k for k in range(at, len(tokens)) if tokens[k].text == "{")
    close = tokens[matching(tokens, body)].start
    return text[:close] + f"    __pg::end({n_sites});\n" + text[close:]


def _without_bindings(text: str, names) -> str:
    """The `let` of each named expected value removed, once nothing else in the harness uses it
    (an expected value stays out of the candidate's files too)."""
    for name in names:
        rest = re.sub(rf"\blet\s+(mut\s+)?{name}\b[^;]*;", "", text)
        if not re.search(rf"\b{name}\b", rest):
            text = rest
    return text


def split(test: TestInput) -> SplitTest:
    try:
        tokens = tokenize(test.test, DIALECT)
        bound = let_literals(tokens)
        syntax = replace(SYNTAX, constants={**SYNTAX.constants, **bound})
        finish_main = _finish_module if test.dataset == "humaneval-x" else _finish_main
        finish = lambda text, n: finish_main(_without_bindings(text, bound), n)  # noqa: E731
        return split_calls(test.test, tokens, _assertions(tokens), lambda a: _cut(tokens, a, syntax), _report, finish)
    except Unsplittable as exc:
        return in_process(test.test, str(exc))


def runtime() -> str:
    return rust_runtime.SOURCE.replace("from_raw_fd(FD)", f"from_raw_fd({REPORT_FD})")


def _head(test: TestInput) -> str:
    """HumanEval-X's prompt is the docstring; its declaration holds the `use` lines and the signature."""
    return test.prompt + test.declaration if test.dataset == "humaneval-x" else test.prompt


def _compile(test_mode: bool) -> tuple[str, ...]:
    return ("rustc", "--edition", "2021", "-C", "opt-level=0", *(("--test",) if test_mode else ()), *CRATE_FLAGS,
            "-o", "main", "main.rs")


def program(test: TestInput, completion: str, split_test: SplitTest) -> Program:
    if not split_test.sites:
        return original(test, completion)
    text = _head(test) + completion + "\n" + split_test.harness + "\n" + runtime()
    return Program((SourceFile("main.rs", text),), _compile(False), ("./main",))


def original(test: TestInput, completion: str) -> Program:
    """HumanEval-X: declaration + completion + the tests module, `rustc --test`, the test binary's
    exit status (CodeGeeX ran `cargo test` with these crates); MultiPL-E: prompt + completion + tests."""
    text = _head(test) + completion + "\n" + test.test
    return Program((SourceFile("main.rs", text),), _compile(test.dataset == "humaneval-x"), ("./main",))


RUST_SPEC = LanguageSpec(
    name="rs", title="Rust", toolchain=RUST, fence_tags=("rust", "rs"), split=split, program=program,
    original=original, runtime=runtime, version_argv=("rustc", "--version"), default_stop_tokens=("\n}",))

