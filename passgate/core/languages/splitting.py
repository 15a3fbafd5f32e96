"""The part of splitting a test that every C-family language shares: find the assertion calls,
give each a site, and rewrite the test text with each call replaced by a report of its actual
expression. A language module says which calls are assertions and how to cut one (`Cut`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .compare import Compare
from .scan import ScanError, Token, line_of, matching, strip_parens, text_of
from .spec import Integrity, Site, SplitTest
from .literals import LiteralError

LOOP_WORDS = ("for", "while", "do", "forEach", "map", "loop")
NOT_A_CALL = "the tested expression is not one call of the function"


@dataclass(frozen=True)
class Cut:
    """One assertion cut in two: the token range of its actual expression, the expected value."""

    actual: tuple[int, int]
    expected: object
    compare: Compare


class Unsplittable(ValueError):
    """The test has a shape whose expected values cannot be read reliably."""


@dataclass(frozen=True)
class Assertion:
    start: int          # first token of the statement's call
    open_at: int        # its "("
    close_at: int       # its ")"


def inside_loop(tokens: list[Token], at: int) -> bool:
    """Whether token `at` sits in a loop body (a site there would report more than once)."""
    for k in range(at - 1, -1, -1):
        if tokens[k].text in LOOP_WORDS and tokens[k].kind == "ident":
            body = _body_after(tokens, k)
            if body and body[0] <= at <= body[1]:
                return True
    return False


def _body_after(tokens: list[Token], k: int) -> tuple[int, int] | None:
    word, j = tokens[k].text, k + 1
    if j >= len(tokens):
        return None
    if word in ("forEach", "map"):           # xs.forEach(x => ...): the callback runs per element
        return (j, matching(tokens, j)) if tokens[j].text == "(" and tokens[k - 1].text == "." else None
    if tokens[j].text == "(":
        j = matching(tokens, j) + 1
    elif word != "do":                       # Go and Rust: `for i := 0; i < n; i++ {`, `for x in xs {`
        depth = 0
        while j < len(tokens) and not (depth == 0 and tokens[j].text in ("{", "}")):
            depth += (tokens[j].text in "([") - (tokens[j].text in ")]")
            j += 1
    if j < len(tokens) and tokens[j].text == "{":
        return j, matching(tokens, j)
    end = j
    while end < len(tokens) and tokens[end].text != ";":
        end += 1
    return j, end


def split_calls(src: str, tokens: list[Token], assertions: list[Assertion],
                cut: Callable[[Assertion], Cut], report: Callable[[int, str], str],
                finish: Callable[[str, int], str]) -> SplitTest:
    """The harness (each assertion replaced by `report(index, actual text)`, then `finish(text,
    number of sites)`) and the sites. Raises Unsplittable when an assertion cannot be cut."""
    if not assertions:
        raise Unsplittable("no assertion found")
    pieces, sites, pos = [], [], 0
    for index, a in enumerate(assertions):
        if inside_loop(tokens, a.start):
            raise Unsplittable(f"an assertion on line {line_of(src, tokens[a.start].start)} is inside a loop")
        try:
            c = cut(a)
        except (LiteralError, ScanError, IndexError) as exc:
            line = line_of(src, tokens[a.start].start)
            helpers = test_helpers(tokens)
            helper = next((t.text for k, t in enumerate(tokens[a.start:a.close_at], a.start)
                           if t.text in helpers and tokens[k + 1].text == "("), None)
            if helper and str(exc) == NOT_A_CALL:       # Go/33: `assert.Equal(true, same(E, SortThird(x)))`
                raise Unsplittable(f"line {line}: the assertion calls `{helper}`, a helper the test defines "
                                   f"({exc})") from exc
            raise Unsplittable(f"line {line}: {exc}") from exc
        start, stop = tokens[a.start].start, tokens[a.close_at].end
        pieces.append(src[pos:start])
        pieces.append(report(index, text_of(src, tokens, *c.actual)))
        pos = stop
        sites.append(Site(index, line_of(src, start), " ".join(src[start:stop].split()), c.expected, c.compare))
    pieces.append(src[pos:])
    return SplitTest(Integrity.OUTSIDE, finish("".join(pieces), len(sites)), tuple(sites))


# words that introduce a named function: Go's `func f(`, Rust's `fn f(`, JavaScript's `function f(`
FUNCTION_WORDS = ("func", "fn", "function", "def")
# words that may stand before `name (...) {` without it being a C-family function definition
NOT_A_TYPE = frozenset(("if", "for", "while", "switch", "catch", "return", "else", "new", "sizeof", "do", "case",
                        "throw", "await", "typeof", "delete", "in", "of", "and", "or", "not", "yield"))


def _close(tokens, open_at: int) -> int:
    """The matching bracket, or past the end when there is none (the cut itself reports that)."""
    try:
        return matching(tokens, open_at)
    except ScanError:
        return len(tokens)


def _function_literal(tokens, at: int) -> bool:
    """tokens[at] starts an anonymous function: Go's `func(`, JavaScript's `function`, `(a) =>`,
    `a =>` and `async`, Rust's `|a|`, `||` and `move`, C++'s `[&](...)`."""
    if at >= len(tokens):
        return False
    t = tokens[at]
    if t.text in ("func", "function", "async", "move", "|", "||", "[", "lambda"):
        return True
    if t.text == "(":
        close = _close(tokens, at)
        return close + 1 < len(tokens) and tokens[close + 1].text == "=>"
    return t.kind == "ident" and at + 1 < len(tokens) and tokens[at + 1].text == "=>"


def test_helpers(tokens) -> frozenset[str]:
    """The functions the test text itself defines (Go/33's `same := func(...)`, C++'s `bool
    issame(...) {`, a Java `static boolean check(...) {`), and names bound to one of them. A call
    of one of these is test code (its arguments may be expected values), never the function under
    test: the candidate's program defines the function under test, the test only calls it."""
    helpers, aliases, n = set(), [], len(tokens)
    for k, tok in enumerate(tokens):
        if tok.kind != "ident" or k + 1 >= n:
            continue
        after = tokens[k + 1].text
        if tok.text in FUNCTION_WORDS:
            j = k + 1
            if tokens[j].text == "(" and tok.text == "func":      # a Go method: func (r T) Name(
                j = _close(tokens, j) + 1
            if j + 1 < n and tokens[j].kind == "ident" and tokens[j + 1].text in ("(", "<"):
                helpers.add(tokens[j].text)
        elif after in ("=", ":="):
            if _function_literal(tokens, k + 2):
                helpers.add(tok.text)
            elif k + 2 < n and tokens[k + 2].kind == "ident":
                aliases.append((tok.text, tokens[k + 2].text))
        elif after == "(" and tok.text not in NOT_A_TYPE and k > 0 and (
                (tokens[k - 1].kind == "ident" and tokens[k - 1].text not in NOT_A_TYPE)
                or tokens[k - 1].text in (">", "*", "&", "]")):
            close = _close(tokens, k + 1)
            if close + 1 < n and tokens[close + 1].text in ("{", "throws", "const", "noexcept", "->"):
                helpers.add(tok.text)
    grown = True
    while grown:                                   # `check := same`: an alias of a helper is one too
        grown = False
        for name, target in aliases:
            if target in helpers and name not in helpers:
                helpers.add(name)
                grown = True
    return frozenset(helpers)


def called_name(tokens, lo: int, hi: int, receivers: tuple[str, ...] = ()) -> str | None:
    """The name called when tokens[lo:hi] is one call `name(...)`, or `r.name(...)` for a receiver
    the language allows (Java's `s.`); None otherwise."""
    if receivers and hi - lo >= 5 and tokens[lo].text in receivers and tokens[lo + 1].text in (".", "::"):
        lo += 2
    if hi - lo >= 3 and tokens[lo].kind == "ident" and tokens[lo + 1].text == "(" and matching(tokens, lo + 1) == hi - 1:
        return tokens[lo].text
    return None


def is_call(tokens, lo: int, hi: int, receivers: tuple[str, ...] = ()) -> bool:
    """tokens[lo:hi] is one call of the function under test: `name(...)` or `r.name(...)`, never
    test-side arithmetic, a library call, or a helper the test defines (`tokens` is the whole
    test; Go/33's `same([]int{1, 2, 3}, SortThird(...))` would put the expected slice in the
    candidate's process)."""
    name = called_name(tokens, lo, hi, receivers)
    return name is not None and name not in test_helpers(tokens)


def wrapped_call(tokens, lo: int, hi: int, name: tuple[str, ...]) -> tuple[int, int] | None:
    """The inside of `name(...)` when tokens[lo:hi] is exactly that call."""
    n = len(name)
    if tuple(t.text for t in tokens[lo:lo + n]) == name and lo + n < hi and tokens[lo + n].text == "(" \
            and matching(tokens, lo + n) == hi - 1:
        return lo + n + 1, hi - 1
    return None


def actual_call(tokens, rng: tuple[int, int], receivers: tuple[str, ...] = ()) -> tuple[int, int]:
    lo, hi = strip_parens(tokens, *rng)
    name = called_name(tokens, lo, hi, receivers)
    if name is not None and name in test_helpers(tokens):
        raise LiteralError(f"the tested expression calls `{name}`, a helper the test defines, "
                           "not the function under test")
    if not is_call(tokens, lo, hi, receivers):
        raise LiteralError(NOT_A_CALL)
    return lo, hi


def in_process(original_test: str, reason: str) -> SplitTest:
    return SplitTest(Integrity.IN_PROCESS, original_test, (), reason)
