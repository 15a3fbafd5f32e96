"""Expected values from a test's literals, in the C family's syntax, to the values model.

One recursive-descent reader over scan.py's tokens: numbers, strings, characters, constants,
arrays and brace lists, casts, constant arithmetic, and calls that build values
(`Arrays.asList(...)`, `vec![...]`, `std::make_tuple(...)`, `Some(...)`), each language giving its
table of constants and constructors. Anything else (a variable, a call of the candidate) is a
LiteralError: such an expected value is not a literal, and the test is not split.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Callable

from .scan import Token
from .values import Char

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", "'": "'", '"': '"', "b": "\b", "f": "\f",
            "v": "\v", "a": "\a", "`": "`", "$": "$", "?": "?", "e": "\x1b"}


class LiteralError(ValueError):
    """Tokens that are not a literal this reader knows."""


@dataclass(frozen=True)
class LiteralSyntax:
    """One language's literal vocabulary."""

    constants: dict                                 # identifier -> value (true, null, NaN, ...)
    constructors: dict = field(default_factory=dict)  # callee name -> f(list of args) -> value
    brace_list: Callable | None = None              # {a, b} -> value; None: `{` starts an object (JS)
    int_division: str = "float"                     # "float" (JavaScript) or "trunc"
    generics: bool = False                          # callee names may carry <...> (C++, Java, Rust, C#)
    casts: dict = field(default_factory=dict)       # (type) value: type name -> f(value)
    read_number: Callable = None                    # numeric literal text -> value (default: `number`)
    comma_operator: bool = False                    # `(a, b)` is b (JavaScript), not a tuple


def unescape(body: str) -> str:
    out, i = [], 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt == "x":
            m = re.match(r"[0-9a-fA-F]{1,2}", body[i + 2:])
            out.append(chr(int(m.group(0), 16)))
            i += 2 + m.end()
        elif nxt == "u" and body[i + 2:i + 3] == "{":
            j = body.index("}", i)
            out.append(chr(int(body[i + 3:j], 16)))
            i = j + 1
        elif nxt == "u":
            out.append(chr(int(body[i + 2:i + 6], 16)))
            i += 6
        elif nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        elif nxt == "\n":
            i += 2
        else:
            raise LiteralError(f"unknown escape \\{nxt}")
    return "".join(out)


def number(text: str):
    """A numeric literal without its type suffix: int or float."""
    t = text.replace("_", "").replace("'", "")
    radix = re.fullmatch(r"0(?:[xX]([0-9a-fA-F]+)|[bB]([01]+))([a-zA-Z0-9]*)", t)
    if radix:
        hexa, binary, suffix = radix.groups()
        if suffix and suffix.lower() not in _INT_SUFFIXES:     # a JavaScript bigint's `n` among them
            raise LiteralError(f"unknown number suffix in {text}")
        return int(hexa, 16) if hexa is not None else int(binary, 2)
    m = re.match(r"(\d*\.?\d*(?:[eE][+-]?\d+)?)([a-zA-Z0-9]*)$", t)
    if not m:
        raise LiteralError(f"not a number: {text}")
    digits, suffix = m.groups()
    is_float = any(c in digits for c in ".eE") or suffix.lower() in ("f", "d", "f32", "f64", "lf", "m")
    if suffix and suffix.lower() not in (*_INT_SUFFIXES, "f", "d", "f32", "f64", "m", "lf"):
        raise LiteralError(f"unknown number suffix in {text}")
    return float(digits) if is_float else int(digits)


_INT_SUFFIXES = ("l", "ll", "u", "ul", "ull", "lu", "llu", "i32", "i64", "u32", "u64", "usize", "isize", "i8", "u8",
                 "i16", "u16", "i128")


class Reader:
    """Reads one literal from tokens[lo:hi]; `read()` insists on consuming all of it."""

    def __init__(self, tokens: list[Token], lo: int, hi: int, syntax: LiteralSyntax):
        self.toks, self.k, self.hi, self.syn = tokens, lo, hi, syntax

    def read(self):
        value = self.expr()
        if self.k != self.hi:
            raise LiteralError(f"unexpected {self.peek()!r} after a literal")
        return value

    def peek(self, ahead: int = 0) -> str:
        k = self.k + ahead
        return self.toks[k].text if k < self.hi else ""

    def take(self, text: str | None = None) -> Token:
        if self.k >= self.hi:
            raise LiteralError("literal ends early")
        tok = self.toks[self.k]
        if text is not None and tok.text != text:
            raise LiteralError(f"expected {text!r}, found {tok.text!r}")
        self.k += 1
        return tok

    def expr(self):
        value = self.term()
        while self.peek() in ("+", "-"):
            op = self.take().text
            value = _arith(op, value, self.term(), self.syn)
        return value

    def term(self):
        value = self.unary()
        while self.peek() in ("*", "/", "%"):
            op = self.take().text
            value = _arith(op, value, self.unary(), self.syn)
        return value

    def unary(self):
        if self.peek() in ("-", "+"):
            op = self.take().text
            value = self.unary()
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise LiteralError(f"{op} applied to a non-number")
            return -value if op == "-" else value
        return self.postfix(self.primary())

    def postfix(self, value):
        # `"x".to_string()`, `String::from`-like conversions that keep the value
        while self.peek() == "." and self.peek(1) in ("to_string", "to_owned", "into", "clone", "toString"):
            self.take(".")
            self.take()
            self.take("(")
            self.take(")")
        return value

    def primary(self):
        tok = self.take()
        if tok.kind == "num":
            return (self.syn.read_number or number)(tok.text)
        if tok.kind == "str":
            return _string(tok.text)
        if tok.kind == "char":
            return Char(unescape(tok.text[1:-1]))
        if tok.text == "[":
            return self.sequence("]")
        if tok.text == "{":
            if self.syn.brace_list is None:
                return self.js_object()
            return self.syn.brace_list(self.sequence("}"))
        if tok.text == "(":
            return self.paren()
        if tok.kind == "ident":
            return self.named(tok)
        raise LiteralError(f"{tok.text!r} does not start a literal")

    def sequence(self, close: str) -> list:
        items = []
        while self.peek() != close:
            items.append(self.expr())
            if self.peek() != close:
                self.take(",")
        self.take(close)
        return items

    def paren(self):
        cast = self.cast_type()
        if cast is not None:
            return cast(self.unary())
        items = self.sequence(")")
        if not items:
            raise LiteralError("() is not a value")
        if self.syn.comma_operator or (len(items) == 1 and self.toks[self.k - 2].text != ","):
            return items[-1]
        from .values import Tuple
        return Tuple(tuple(items))

    def cast_type(self):
        """`(Type)` before a value: the cast's conversion, or None when this is no cast. A cast to a
        container type the language builds (`(std::vector<long>)std::vector<long>({...})`) keeps the value."""
        j, depth = self.k, 0
        while j < self.hi and not (self.toks[j].text == ")" and depth == 0):
            tok = self.toks[j]
            if tok.kind not in ("ident", "punct") or (tok.kind == "punct" and tok.text not in ("::", ".", "<", ">", ",", "[", "]", "*", "&")):
                return None
            depth += tok.text.count("<") - tok.text.count(">")
            j += 1
        words = [t.text for t in self.toks[self.k:j]]
        base = _strip_generics(words)
        if j + 1 >= self.hi or not base:
            return None
        if base in self.syn.casts:
            convert = self.syn.casts[base]
        elif base in self.syn.constructors or base.split("::")[-1] in self.syn.constructors:
            convert = _same
        else:
            return None
        self.k = j + 1
        return convert

    def js_object(self):
        from .values import Record
        fields = []
        while self.peek() != "}":
            key_tok = self.take()
            key = _string(key_tok.text) if key_tok.kind == "str" else key_tok.text
            self.take(":")
            fields.append((key, self.expr()))
            if self.peek() != "}":
                self.take(",")
        self.take("}")
        return Record(tuple(fields))

    def named(self, tok: Token):
        if tok.text in self.syn.constants and self.peek() not in ("(", "::", ".", "<", "!"):
            return self.syn.constants[tok.text]
        callee = self.callee(tok.text)
        build = self.syn.constructors.get(callee)
        if build is None:
            raise LiteralError(f"{callee!r} is not a literal")
        if self.peek() == "!":
            self.take("!")
        opener = self.peek()
        if opener not in ("(", "[", "{"):
            return build([])
        self.take(opener)
        return build(self.sequence({"(": ")", "[": "]", "{": "}"}[opener]))

    def callee(self, first: str) -> str:
        """A dotted or `::` path with its generic arguments dropped: `new ArrayList<String>` → `new ArrayList`."""
        parts = [first]
        while True:
            if self.peek() == "::" and self.peek(1) == "<" and self.syn.generics:    # Rust's turbofish
                self.take("::")
                self.skip_angles()
            elif self.peek() in (".", "::") and self.k + 1 < self.hi and self.toks[self.k + 1].kind == "ident":
                parts.append(self.take().text)
                parts.append(self.take().text)
            elif first == "new" and len(parts) == 1 and self.toks[self.k].kind == "ident":
                parts.append(" " + self.take().text)
            elif self.syn.generics and self.peek() == "<":
                self.skip_angles()
            elif self.peek() == "[" and self.peek(1) == "]":
                self.take("[")
                self.take("]")
                parts.append("[]")
            else:
                return "".join(parts)

    def skip_angles(self) -> None:
        depth = 0
        while True:
            text = self.take().text
            depth += text.count("<") - text.count(">")
            if depth <= 0:
                return


def _same(value):
    return value


def _strip_generics(words: list[str]) -> str:
    out, depth = [], 0
    for w in words:
        if w == "<":
            depth += 1
        elif w == ">":
            depth -= 1
        elif depth == 0:
            out.append(w)
    return "".join(out)


def _string(text: str) -> str:
    if text.startswith("r"):
        return text.lstrip("r").strip("#")[1:-1]
    return unescape(text[1:-1])


def _arith(op: str, a, b, syn: LiteralSyntax):
    if isinstance(a, str) and isinstance(b, str) and op == "+":
        return a + b
    for x in (a, b):
        if not isinstance(x, (int, float)) or isinstance(x, bool):
            raise LiteralError(f"{op} of non-numbers")
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if isinstance(a, int) and isinstance(b, int) and syn.int_division == "trunc":
        if b == 0:
            raise LiteralError("division by zero")
        q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
        return q if op == "/" else a - q * b
    if op == "/":
        return a / b if b else (math.copysign(math.inf, a) if a else math.nan)
    return math.fmod(a, b)


def read_literal(tokens: list[Token], lo: int, hi: int, syntax: LiteralSyntax):
    return Reader(tokens, lo, hi, syntax).read()
