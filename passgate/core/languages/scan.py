"""A tokenizer for the C family (C++, Java, JavaScript/TypeScript, Go, Rust, C#, D, Scala, Swift, PHP).

Test files are cut at token boundaries: an assertion call is found by its tokens, its arguments
by bracket depth, and the harness is the original text with those calls replaced. Strings and
comments are single tokens, so a bracket or a comparison inside one never counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PUNCT = ("===", "!==", "...", "<<=", ">>=", "::", "->", "=>", "==", "!=", "<=", ">=", "&&", "||", "++", "--",
         "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", ":=", "<<")
OPEN, CLOSE = "([{", ")]}"
_NUMBER = re.compile(r"0[xX][0-9a-fA-F_]+[a-zA-Z0-9_]*|0[bB][01_]+[a-zA-Z0-9_]*|"
                     r"(?:\d[\d_']*\.?[\d_']*|\.\d[\d_']*)(?:[eE][+-]?\d+)?[a-zA-Z0-9_]*")
_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


class ScanError(ValueError):
    """The text is not one this tokenizer reads reliably (an unterminated string or comment)."""


@dataclass(frozen=True)
class Token:
    kind: str       # "num", "str", "char", "ident", "punct"
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class Dialect:
    """The lexical differences that matter between the languages this tokenizer serves."""

    quotes: str = '"'                   # string delimiters
    char_quote: bool = False            # '.' is a character literal (C++, Java, Go, Rust, C#, D)
    raw_strings: bool = False           # Rust r"..." / r#"..."#
    hash_comments: bool = False         # `#` starts a comment (PHP)


def tokenize(src: str, dialect: Dialect) -> list[Token]:
    tokens: list[Token] = []
    i, n = 0, len(src)
    while i < n:
        ch = src[i]
        if ch.isspace():
            i += 1
        elif src.startswith("//", i) or (dialect.hash_comments and ch == "#"):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            if j < 0:
                raise ScanError("unterminated block comment")
            i = j + 2
        elif dialect.raw_strings and re.match(r'r#*"', src[i:i + 8]):
            i = _raw_string(src, i, tokens)
        elif ch in dialect.quotes:
            i = _quoted(src, i, ch, "str", tokens)
        elif ch == "'" and dialect.char_quote:
            i = _char_or_lifetime(src, i, tokens)
        elif ch.isdigit() or (ch == "." and i + 1 < n and src[i + 1].isdigit()):
            m = _NUMBER.match(src, i)
            tokens.append(Token("num", m.group(0), i, m.end()))
            i = m.end()
        elif m := _IDENT.match(src, i):
            tokens.append(Token("ident", m.group(0), i, m.end()))
            i = m.end()
        else:
            op = next((p for p in PUNCT if src.startswith(p, i)), ch)
            tokens.append(Token("punct", op, i, i + len(op)))
            i += len(op)
    return tokens


def _quoted(src: str, i: int, quote: str, kind: str, tokens: list[Token]) -> int:
    j = i + 1
    while j < len(src) and src[j] != quote:
        j += 2 if src[j] == "\\" else 1
    if j >= len(src):
        raise ScanError(f"unterminated {kind} starting at offset {i}")
    tokens.append(Token(kind, src[i:j + 1], i, j + 1))
    return j + 1


def _char_or_lifetime(src: str, i: int, tokens: list[Token]) -> int:
    m = re.match(r"'(?:\\u\{[0-9a-fA-F]+\}|\\.[0-9a-fA-F]*|[^'\\])'", src[i:i + 12])
    if m:
        tokens.append(Token("char", m.group(0), i, i + m.end()))
        return i + m.end()
    m = _IDENT.match(src, i + 1)      # a Rust lifetime or label: 'a
    end = m.end() if m else i + 1
    tokens.append(Token("punct", src[i:end], i, end))
    return end


def _raw_string(src: str, i: int, tokens: list[Token]) -> int:
    hashes = re.match(r'r(#*)"', src[i:]).group(1)
    close = '"' + hashes
    j = src.find(close, i + 2 + len(hashes))
    if j < 0:
        raise ScanError("unterminated raw string")
    end = j + len(close)
    tokens.append(Token("str", src[i:end], i, end))
    return end


def matching(tokens: list[Token], open_at: int) -> int:
    """Index of the bracket that closes the one at `open_at`."""
    depth = 0
    for k in range(open_at, len(tokens)):
        t = tokens[k]
        if t.kind == "punct" and t.text in OPEN:
            depth += 1
        elif t.kind == "punct" and t.text in CLOSE:
            depth -= 1
            if depth == 0:
                return k
    raise ScanError(f"unbalanced bracket at offset {tokens[open_at].start}")


def split_top(tokens: list[Token], lo: int, hi: int, sep: str) -> list[tuple[int, int]]:
    """Token ranges [a, b) of tokens[lo:hi] separated by `sep` at bracket depth 0."""
    parts, depth, start = [], 0, lo
    for k in range(lo, hi):
        t = tokens[k]
        if t.kind == "punct" and t.text in OPEN:
            depth += 1
        elif t.kind == "punct" and t.text in CLOSE:
            depth -= 1
        elif depth == 0 and t.kind == "punct" and t.text == sep:
            parts.append((start, k))
            start = k + 1
    parts.append((start, hi))
    return [p for p in parts if p[0] < p[1] or len(parts) == 1]


def find_top(tokens: list[Token], lo: int, hi: int, ops: tuple[str, ...]) -> list[int]:
    """Indices of the operators `ops` at bracket depth 0 within tokens[lo:hi]."""
    found, depth = [], 0
    for k in range(lo, hi):
        t = tokens[k]
        if t.kind == "punct" and t.text in OPEN:
            depth += 1
        elif t.kind == "punct" and t.text in CLOSE:
            depth -= 1
        elif depth == 0 and t.kind == "punct" and t.text in ops:
            found.append(k)
    return found


def strip_parens(tokens: list[Token], lo: int, hi: int) -> tuple[int, int]:
    """The range without the grouping brackets that wrap all of it: `((x))` becomes `x`."""
    while hi - lo >= 2 and tokens[lo].text == "(" and matching(tokens, lo) == hi - 1 \
            and not find_top(tokens, lo + 1, hi - 1, (",",)):          # `(a, b)` is a tuple, not grouping
        lo, hi = lo + 1, hi - 1
    return lo, hi


def find_calls(tokens: list[Token], name: tuple[str, ...]) -> list[tuple[int, int, int]]:
    """Each call of the dotted name (`("console", ".", "assert")`): (first token, "(" index, ")" index)."""
    calls, k, width = [], 0, len(name)
    while k + width < len(tokens):
        words = tuple(t.text for t in tokens[k:k + width])
        before = tokens[k - 1].text if k else ""
        if words == name and tokens[k + width].text == "(" and before not in (".", "::"):
            close = matching(tokens, k + width)
            calls.append((k, k + width, close))
            k = close + 1
        else:
            k += 1
    return calls


def text_of(src: str, tokens: list[Token], lo: int, hi: int) -> str:
    """The source text of tokens[lo:hi], comments and spacing included."""
    return src[tokens[lo].start:tokens[hi - 1].end] if lo < hi else ""


def line_of(src: str, offset: int) -> int:
    return src.count("\n", 0, offset) + 1
