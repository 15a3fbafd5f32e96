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
            raise Unsplittable(f"line {line_of(src, tokens[a.start].start)}: {exc}") from exc
        start, stop = tokens[a.start].start, tokens[a.close_at].end
        pieces.append(src[pos:start])
        pieces.append(report(index, text_of(src, tokens, *c.actual)))
        pos = stop
        sites.append(Site(index, line_of(src, start), " ".join(src[start:stop].split()), c.expected, c.compare))
    pieces.append(src[pos:])
    return SplitTest(Integrity.OUTSIDE, finish("".join(pieces), len(sites)), tuple(sites))


def is_call(tokens, lo: int, hi: int, receivers: tuple[str, ...] = ()) -> bool:
    """tokens[lo:hi] is one call `name(...)`, or `r.name(...)` for a receiver the language allows
    (Java's `s.`): the function under test, never test-side arithmetic or a library call."""
    if receivers and hi - lo >= 5 and tokens[lo].text in receivers and tokens[lo + 1].text in (".", "::"):
        lo += 2
    return hi - lo >= 3 and tokens[lo].kind == "ident" and tokens[lo + 1].text == "(" \
        and matching(tokens, lo + 1) == hi - 1


def wrapped_call(tokens, lo: int, hi: int, name: tuple[str, ...]) -> tuple[int, int] | None:
    """The inside of `name(...)` when tokens[lo:hi] is exactly that call."""
    n = len(name)
    if tuple(t.text for t in tokens[lo:lo + n]) == name and lo + n < hi and tokens[lo + n].text == "(" \
            and matching(tokens, lo + n) == hi - 1:
        return lo + n + 1, hi - 1
    return None


def actual_call(tokens, rng: tuple[int, int], receivers: tuple[str, ...] = ()) -> tuple[int, int]:
    lo, hi = strip_parens(tokens, *rng)
    if not is_call(tokens, lo, hi, receivers):
        raise LiteralError("the tested expression is not one call of the function")
    return lo, hi


def in_process(original_test: str, reason: str) -> SplitTest:
    return SplitTest(Integrity.IN_PROCESS, original_test, (), reason)
