"""Grading-semantics cases: for each way isolation can change what Python does, a test, a candidate
that passes it in plain CPython and a wrong variant that fails it there.

`tests` runs in the grader with `candidate` bound to the candidate's entry point; in plain CPython
the same text runs after the program in one namespace (with `candidate = <entry point>`), which is
what the reference harness does.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    name: str
    category: str
    entry_point: str
    tests: str
    good: str
    bad: str


def _c(category, name, entry_point, tests, good, bad):
    return Case(name, category, entry_point, tests, good, bad)


CASES = [
    # -------------------------------------------------------------- in-place mutation
    _c("mutation", "sort_in_place", "f",
       "x = [3, 1, 2]\ncandidate(x)\nassert x == [1, 2, 3]\n",
       "def f(xs):\n    xs.sort()\n", "def f(xs):\n    sorted(xs)\n"),
    _c("mutation", "dict_counter_in_place", "bump",
       "d = {'n': 1, 'm': 5}\ncandidate(d)\ncandidate(d)\nassert d == {'n': 3, 'm': 5} and list(d) == ['n', 'm']\n",
       "def bump(d):\n    d['n'] += 1\n", "def bump(d):\n    d = dict(d)\n    d['n'] += 1\n"),
    _c("mutation", "bytearray_in_place", "upper_first",
       "b = bytearray(b'abc')\ncandidate(b)\nassert b == bytearray(b'Abc') and type(b) is bytearray\n",
       "def upper_first(b):\n    b[0] = b[0] - 32\n", "def upper_first(b):\n    b = b.upper()\n"),
    _c("mutation", "nested_alias", "grow",
       "row = [0]\nm = [row, row]\ncandidate(m)\nassert row == [0, 1] and m[1] is row and m[1] == [0, 1]\n",
       "def grow(m):\n    m[0].append(1)\n", "def grow(m):\n    m[0] = m[0] + [1]\n"),
    _c("mutation", "set_in_place", "add_two",
       "s = {1}\ncandidate(s)\nassert s == {1, 2}\n",
       "def add_two(s):\n    s.add(2)\n", "def add_two(s):\n    s = s | {2}\n"),
    _c("mutation", "cycle_in_argument", "close_loop",
       "a = [1]\ncandidate(a)\nassert a[1] is a\n",
       "def close_loop(a):\n    a.append(a)\n", "def close_loop(a):\n    a.append(list(a))\n"),
    # -------------------------------------------------------------- identity
    _c("identity", "returns_its_argument", "same",
       "a = [1, 2]\nassert candidate(a) is a\n",
       "def same(a):\n    return a\n", "def same(a):\n    return list(a)\n"),
    _c("identity", "appends_and_returns", "push",
       "a = [1]\nr = candidate(a, 2)\nassert r is a and a == [1, 2]\n",
       "def push(a, v):\n    a.append(v)\n    return a\n", "def push(a, v):\n    return a + [v]\n"),
    _c("identity", "aliases_in_the_answer", "pair",
       "r = candidate()\nassert r[0] is r[1] and r == [[], []]\nr[0].append(1)\nassert r[1] == [1]\n",
       "def pair():\n    x = []\n    return [x, x]\n", "def pair():\n    return [[], []]\n"),
    # -------------------------------------------------------------- callables, iterators, the test's objects
    _c("callables", "key_is_len", "order",
       "assert candidate(['zz', 'a', 'yyy'], len) == ['a', 'zz', 'yyy']\n",
       "def order(xs, key):\n    return sorted(xs, key=key)\n", "def order(xs, key):\n    return sorted(xs)\n"),
    _c("callables", "key_is_a_lambda", "order",
       "assert candidate([3, -1, 2], lambda v: -v) == [3, 2, -1]\n",
       "def order(xs, key):\n    return sorted(xs, key=key)\n", "def order(xs, key):\n    return sorted(xs)\n"),
    _c("callables", "apply_a_test_function", "apply",
       "seen = []\ndef f(v):\n    seen.append(v)\n    return v * 10\n"
       "assert candidate(f, [1, 2]) == [10, 20] and seen == [1, 2]\n",
       "def apply(fn, xs):\n    return [fn(x) for x in xs]\n", "def apply(fn, xs):\n    return [x * 10 for x in xs[:1]]\n"),
    _c("callables", "generator_argument", "total",
       "assert candidate(x * x for x in range(4)) == 14\n",
       "def total(it):\n    return sum(it)\n", "def total(it):\n    return sum(it) + 1\n"),
    _c("callables", "iterator_partly_consumed", "take2",
       "it = iter([1, 2, 3])\nassert candidate(it) == [1, 2]\nassert next(it) == 3\n",
       "def take2(it):\n    return [next(it), next(it)]\n", "def take2(it):\n    return list(it)[:2]\n"),
    _c("callables", "range_argument", "evens",
       "r = range(5)\nassert candidate(r) == [0, 2, 4] and r == range(5)\n",
       "def evens(r):\n    return [x for x in r if x % 2 == 0]\n", "def evens(r):\n    return list(r)[::3]\n"),
    _c("callables", "test_defined_object", "area",
       "class Box:\n    def __init__(self, w, h):\n        self.w, self.h = w, h\n    def scale(self, k):\n"
       "        self.w *= k\n        self.h *= k\nb = Box(2, 3)\nassert candidate(b) == 24 and b.w == 4 and b.h == 6\n",
       "def area(box):\n    box.scale(2)\n    return box.w * box.h\n", "def area(box):\n    return box.w * box.h * 4\n"),
    _c("callables", "test_class_passed", "make",
       "class P:\n    def __init__(self, v):\n        self.v = v\np = candidate(P, 3)\nassert isinstance(p, P) and p.v == 3\n",
       "def make(cls, v):\n    return cls(v)\n", "def make(cls, v):\n    return cls(v + 1)\n"),
    # -------------------------------------------------------------- types on the way back
    _c("types", "namedtuple_fields", "point",
       "p = candidate(1, 2)\nassert p.x == 1 and p.y == 2 and p == (1, 2) and type(p).__name__ == 'Point'\n",
       "from collections import namedtuple\nPoint = namedtuple('Point', 'x y')\ndef point(a, b):\n    return Point(a, b)\n",
       "from collections import namedtuple\nPoint = namedtuple('Point', 'x y')\ndef point(a, b):\n    return Point(b, a)\n"),
    _c("types", "counter_missing_key", "tally",
       "c = candidate('aab')\nassert c['a'] == 2 and c['zzz'] == 0 and c.most_common(1) == [('a', 2)]\n",
       "from collections import Counter\ndef tally(s):\n    return Counter(s)\n",
       "from collections import Counter\ndef tally(s):\n    return Counter(s[1:])\n"),
    _c("types", "defaultdict_factory", "groups",
       "g = candidate([1, 2, 3])\nassert g[1] == [1, 3] and g[7] == [] and 7 in g\n",
       "from collections import defaultdict\ndef groups(xs):\n    d = defaultdict(list)\n"
       "    for x in xs:\n        d[x % 2].append(x)\n    return d\n",
       "from collections import defaultdict\ndef groups(xs):\n    d = defaultdict(list)\n"
       "    for x in xs:\n        d[x % 2].append(x * 2)\n    return d\n"),
    _c("types", "bytearray_stays_bytearray", "buf",
       "b = candidate()\nassert type(b) is bytearray\nb.append(33)\nassert b == b'hi!'\n",
       "def buf():\n    return bytearray(b'hi')\n", "def buf():\n    return b'hi'\n"),
    _c("types", "ordered_and_deque", "both",
       "from collections import OrderedDict, deque\no, q = candidate()\n"
       "assert type(o) is OrderedDict and list(o) == ['b', 'a'] and type(q) is deque and q.maxlen == 2\n"
       "o.move_to_end('b')\nassert list(o) == ['a', 'b']\n",
       "from collections import OrderedDict, deque\ndef both():\n    return OrderedDict([('b', 1), ('a', 2)]), deque([1], 2)\n",
       "from collections import OrderedDict, deque\ndef both():\n    return dict([('b', 1), ('a', 2)]), deque([1])\n"),
    _c("types", "numbers_keep_their_type", "nums",
       "from fractions import Fraction\nfrom decimal import Decimal\nf, d, c, s = candidate()\n"
       "assert type(f) is Fraction and f == Fraction(1, 3) and type(d) is Decimal and str(d) == '0.10'\n"
       "assert c == 1 + 2j and type(s) is frozenset and s == frozenset({1})\n",
       "from fractions import Fraction\nfrom decimal import Decimal\n"
       "def nums():\n    return Fraction(1, 3), Decimal('0.10'), 1 + 2j, frozenset({1})\n",
       "from fractions import Fraction\nfrom decimal import Decimal\n"
       "def nums():\n    return 1 / 3, Decimal('0.1'), 1 + 2j, {1}\n"),
    # -------------------------------------------------------------- exceptions
    _c("exceptions", "subclass_caught_as_its_base", "check_age",
       "try:\n    candidate(-1)\n    raised = False\nexcept ValueError as e:\n    raised = e.args == ('negative', -1)\n"
       "assert raised\nassert candidate(3) == 3\n",
       "class NegError(ValueError):\n    pass\ndef check_age(n):\n    if n < 0:\n        raise NegError('negative', n)\n"
       "    return n\n",
       "class NegError(Exception):\n    pass\ndef check_age(n):\n    if n < 0:\n        raise NegError('negative', n)\n"
       "    return n\n"),
    _c("exceptions", "key_error_args", "lookup",
       "try:\n    candidate({}, 'k')\n    ok = False\nexcept KeyError as e:\n    ok = e.args == ('k',) and str(e) == \"'k'\"\nassert ok\n",
       "def lookup(d, k):\n    return d[k]\n", "def lookup(d, k):\n    return d.get(k)\n"),
    _c("exceptions", "the_test_sees_the_candidates_message", "parse",
       "try:\n    candidate('x')\n    msg = ''\nexcept ValueError as e:\n    msg = str(e)\n"
       "assert msg == \"invalid literal for int() with base 10: 'x'\"\n",
       "def parse(s):\n    return int(s)\n", "def parse(s):\n    raise ValueError('bad')\n"),
    # -------------------------------------------------------------- set iteration order
    _c("set_order", "tuple_of_a_literal_set", "to_tuple",
       "assert candidate({12, 13, 14, 15, 16}) == (16, 12, 13, 14, 15)\n",
       "def to_tuple(s):\n    return tuple(s)\n", "def to_tuple(s):\n    return tuple(sorted(s))\n"),
    _c("set_order", "a_returned_set_iterated_by_the_test", "make",
       "assert list(candidate()) == list({'b', 'a', 'zz', 'q', 'k', 'x'} | set())\n",
       "def make():\n    return {'b', 'a', 'zz', 'q', 'k', 'x'} | set()\n",
       "def make():\n    return list(reversed(list({'b', 'a', 'zz', 'q', 'k', 'x'} | set())))\n"),
    _c("set_order", "a_set_after_removals", "shrink",
       "s = set(range(40))\nfor x in range(0, 40, 3):\n    s.discard(x)\nassert candidate(s) == list(s)\n",
       "def shrink(s):\n    return list(s)\n", "def shrink(s):\n    return sorted(s, reverse=True)\n"),
    # -------------------------------------------------------------- deep and big data
    _c("deep", "flatten_400_deep", "flatten",
       "x = []\ncur = x\nfor i in range(400):\n    nxt = [i]\n    cur.append(nxt)\n    cur = nxt\n"
       "assert candidate(x) == list(range(400))\n",
       "def flatten(x):\n    out, stack = [], [iter(x)]\n    while stack:\n        for v in stack[-1]:\n"
       "            if isinstance(v, list):\n                stack.append(iter(v))\n                break\n"
       "            out.append(v)\n        else:\n            stack.pop()\n    return out\n",
       "def flatten(x):\n    return list(range(399))\n"),
    _c("deep", "returns_a_deep_list", "nest",
       "r = candidate(3000)\nd = 0\nwhile r:\n    r = r[0]\n    d += 1\nassert d == 3000\n",
       "def nest(n):\n    r = []\n    for _ in range(n):\n        r = [r]\n    return r\n",
       "def nest(n):\n    r = []\n    for _ in range(n - 1):\n        r = [r]\n    return r\n"),
    _c("big", "an_answer_too_large_to_cross", "text",
       "assert candidate(70_000_000) == 'x' * 70_000_000\n",
       "def text(n):\n    return 'x' * n\n", "def text(n):\n    return 'x' * (n - 1) + 'y'\n"),
    _c("big", "many_elements", "pairs",
       "r = candidate(200_000)\nassert r == [(i, -i) for i in range(200_000)] and r[-1] == (199_999, -199_999)\n",
       "def pairs(n):\n    return [(i, -i) for i in range(n)]\n", "def pairs(n):\n    return [(i, i) for i in range(n)]\n"),
    # -------------------------------------------------------------- patched builtins break only the candidate
    _c("patching", "candidate_patches_isinstance", "f",
       "assert candidate(2) == 4\n",
       "import builtins\nbuiltins.isinstance = lambda *a: True\ndef f(x):\n    return x * 2\n",
       "import builtins\nbuiltins.isinstance = lambda *a: True\ndef f(x):\n    return x * 3\n"),
    _c("patching", "candidate_patches_json_and_len", "f",
       "assert candidate([1, 2, 3]) == 3\n",
       "import json, builtins\njson.dumps = json.loads = None\n_len = len\nbuiltins.len = lambda x: 0\n"
       "def f(xs):\n    return _len(xs)\n",
       "import json, builtins\njson.dumps = json.loads = None\nbuiltins.len = lambda x: 0\n"
       "def f(xs):\n    return len(xs)\n"),
]


def classic_program(case: Case, program: str) -> str:
    """The reference harness's one-process program: the program, then the tests."""
    return program + f"\ncandidate = {case.entry_point}\n" + case.tests


def plain_cpython_verdict(case: Case, program: str) -> bool:
    """What plain CPython says of the one-process program (in a child interpreter: some cases patch builtins)."""
    done = subprocess.run([sys.executable, "-c", classic_program(case, program)], capture_output=True, timeout=300,
                          env={"PYTHONHASHSEED": "0", "PATH": os.environ.get("PATH", "")})
    return done.returncode == 0
