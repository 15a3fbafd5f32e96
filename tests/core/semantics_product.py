"""Product-shaped grading cases: tests that set process state the candidate reads, use what the
candidate defines, check exceptions in detail, or catch wrong code only through shared state. For
each, a candidate that passes in plain CPython and a wrong variant that fails there (the same
`Case` shape as semantics_cases.py: `tests` runs after the program with `candidate` bound).
"""

from __future__ import annotations

from tests.core.semantics_cases import Case


def _c(category, name, entry_point, tests, good, bad):
    return Case(name, category, entry_point, tests, good, bad)


STATE = [
    _c("state", "test_seeds_random", "roll",
       "import random\nrandom.seed(7)\nexpected = [random.randint(1, 6) for _ in range(5)]\n"
       "random.seed(7)\nassert candidate(5) == expected\n",
       "import random\ndef roll(n):\n    return [random.randint(1, 6) for _ in range(n)]\n",
       "import random\ndef roll(n):\n    return [random.randint(1, 6) for _ in range(n + 1)][1:]\n"),
    _c("state", "test_sets_environment", "greeting",
       "import os\nos.environ['GREETING_NAME'] = 'Ada'\nassert candidate() == 'Hello, Ada'\n",
       "import os\ndef greeting():\n    return 'Hello, ' + os.environ.get('GREETING_NAME', 'world')\n",
       "import os\ndef greeting():\n    return 'Hello, ' + os.environ.get('NAME', 'world')\n"),
    _c("state", "test_changes_directory_and_writes_a_file", "first_line",
       "import os, tempfile\nd = tempfile.mkdtemp()\nos.chdir(d)\n"
       "with open('data.txt', 'w') as fh:\n    fh.write('alpha\\nbeta\\n')\nassert candidate('data.txt') == 'alpha'\n",
       "def first_line(path):\n    with open(path) as fh:\n        return fh.readline().rstrip('\\n')\n",
       "def first_line(path):\n    with open(path) as fh:\n        return fh.readlines()[-1].rstrip('\\n')\n"),
    _c("state", "test_patches_stdin", "read_numbers",
       "import io, sys\nsys.stdin = io.StringIO('3\\n1 2 3\\n')\nassert candidate() == 6\n",
       "import sys\ndef read_numbers():\n    n = int(sys.stdin.readline())\n"
       "    return sum(int(x) for x in sys.stdin.readline().split()[:n])\n",
       "import sys\ndef read_numbers():\n    return int(sys.stdin.readline())\n"),
    _c("state", "test_patches_input", "ask",
       "import builtins\nanswers = iter(['yes'])\nbuiltins.input = lambda prompt='': next(answers)\n"
       "assert candidate() is True\n",
       "def ask():\n    return input('continue? ') == 'yes'\n",
       "def ask():\n    return input('continue? ') == 'y'\n"),
    _c("state", "test_captures_printed_output", "report",
       "import contextlib, io\nbuf = io.StringIO()\nwith contextlib.redirect_stdout(buf):\n    candidate(3)\n"
       "assert buf.getvalue() == '1\\n2\\n3\\n'\n",
       "def report(n):\n    for i in range(1, n + 1):\n        print(i)\n",
       "def report(n):\n    for i in range(n):\n        print(i)\n"),
    _c("state", "test_sets_argv", "program_name",
       "import sys\nsys.argv = ['tool', '--verbose']\nassert candidate() == ('tool', True)\n",
       "import sys\ndef program_name():\n    return sys.argv[0], '--verbose' in sys.argv[1:]\n",
       "import sys\ndef program_name():\n    return sys.argv[0], len(sys.argv) > 2\n"),
    _c("state", "test_patches_time", "age_seconds",
       "import time\ntime.time = lambda: 1000.0\nassert candidate(400.0) == 600.0\n",
       "import time\ndef age_seconds(t0):\n    return time.time() - t0\n",
       "import time\ndef age_seconds(t0):\n    return time.monotonic() - t0\n"),
    _c("state", "test_sets_decimal_context", "third",
       "from decimal import Decimal, getcontext\ngetcontext().prec = 4\nassert candidate(Decimal(1)) == Decimal('0.3333')\n",
       "def third(x):\n    return x / 3\n",
       "from decimal import Decimal\ndef third(x):\n    return Decimal(str(float(x) / 3))\n"),
    _c("state", "test_raises_int_digit_limit", "digits",
       "import sys\nsys.set_int_max_str_digits(0)\nassert candidate(5000) == 5001\n",
       "def digits(n):\n    return len(str(10 ** n))\n",
       "def digits(n):\n    return len(str(10 ** n)) - 1\n"),
    _c("state", "test_redefines_a_helper_the_candidate_calls", "fetch_title",
       "def download(url):\n    return '<title>Home</title>'\nassert candidate('http://x') == 'Home'\n",
       "def download(url):\n    import urllib.request\n    return urllib.request.urlopen(url).read().decode()\n"
       "def fetch_title(url):\n    html = download(url)\n    return html.split('<title>')[1].split('</title>')[0]\n",
       "def download(url):\n    import urllib.request\n    return urllib.request.urlopen(url).read().decode()\n"
       "def fetch_title(url):\n    html = download(url)\n    return html.split('<title>')[1]\n"),
]

DEFINED = [
    _c("defined", "test_subclasses_the_candidates_class", "Shape",
       "class Square(candidate):\n    def __init__(self, s):\n        super().__init__(s * s)\n"
       "assert Square(3).area() == 9 and isinstance(Square(2), candidate)\n",
       "class Shape:\n    def __init__(self, area):\n        self._area = area\n    def area(self):\n        return self._area\n",
       "class Shape:\n    def __init__(self, area):\n        self._area = area\n    def area(self):\n        return self._area + 1\n"),
    _c("defined", "test_catches_the_candidates_exception", "parse_port",
       "try:\n    parse_port('x')\n    caught = False\nexcept PortError as e:\n    caught = e.code == 2\nassert caught\n",
       "class PortError(ValueError):\n    def __init__(self, msg, code):\n        super().__init__(msg)\n"
       "        self.code = code\ndef parse_port(s):\n    if not s.isdigit():\n        raise PortError('not a number', 2)\n"
       "    return int(s)\n",
       "class PortError(ValueError):\n    def __init__(self, msg, code):\n        super().__init__(msg)\n"
       "        self.code = code\ndef parse_port(s):\n    if not s.isdigit():\n        raise ValueError('not a number')\n"
       "    return int(s)\n"),
    _c("defined", "candidate_object_as_context_manager", "Opened",
       "log = []\nwith candidate(log) as handle:\n    assert handle == 'ready'\nassert log == ['enter', 'exit']\n",
       "class Opened:\n    def __init__(self, log):\n        self.log = log\n    def __enter__(self):\n"
       "        self.log.append('enter')\n        return 'ready'\n    def __exit__(self, *exc):\n"
       "        self.log.append('exit')\n",
       "class Opened:\n    def __init__(self, log):\n        self.log = log\n    def __enter__(self):\n"
       "        self.log.append('enter')\n        return 'ready'\n    def __exit__(self, *exc):\n        pass\n"),
    _c("defined", "descriptor_runs", "Temperature",
       "t = candidate()\nt.celsius = 100\nassert t.fahrenheit == 212.0\n",
       "class Temperature:\n    celsius = 0\n    @property\n    def fahrenheit(self):\n"
       "        return self.celsius * 9 / 5 + 32\n",
       "class Temperature:\n    celsius = 0\n    fahrenheit = 32.0\n"),
    _c("defined", "str_of_candidate_object", "Money",
       "assert str(candidate(12.5)) == '$12.50'\n",
       "class Money:\n    def __init__(self, v):\n        self.v = v\n    def __str__(self):\n"
       "        return '$%.2f' % self.v\n",
       "class Money:\n    def __init__(self, v):\n        self.v = v\n    def __repr__(self):\n"
       "        return '$%.2f' % self.v\n    def __str__(self):\n        return '$%.1f' % self.v\n"),
    _c("defined", "compares_candidate_dataclasses", "make_point",
       "assert candidate(1, 2) == candidate(1, 2) and candidate(1, 2) != candidate(2, 1)\n",
       "from dataclasses import dataclass\n@dataclass\nclass P:\n    x: int\n    y: int\n"
       "def make_point(x, y):\n    return P(x, y)\n",
       "class P:\n    def __init__(self, x, y):\n        self.x, self.y = x, y\ndef make_point(x, y):\n    return P(x, y)\n"),
    _c("defined", "intenum_and_date", "plan",
       "import datetime\nlevel, day = candidate()\nassert level == 2 and level.name == 'HIGH' and day == datetime.date(2024, 2, 29)\n",
       "import datetime, enum\nclass Level(enum.IntEnum):\n    LOW = 1\n    HIGH = 2\n"
       "def plan():\n    return Level.HIGH, datetime.date(2024, 2, 29)\n",
       "import datetime, enum\nclass Level(enum.IntEnum):\n    LOW = 1\n    HIGH = 2\n"
       "def plan():\n    return Level.LOW, datetime.date(2024, 2, 28)\n"),
    _c("defined", "signature_and_generator_checks", "chunks",
       "import inspect\nassert list(inspect.signature(candidate).parameters) == ['xs', 'size']\n"
       "assert inspect.isgeneratorfunction(candidate) and list(candidate([1, 2, 3], 2)) == [[1, 2], [3]]\n",
       "def chunks(xs, size):\n    for i in range(0, len(xs), size):\n        yield xs[i:i + size]\n",
       "def chunks(xs, n):\n    return [xs[i:i + n] for i in range(0, len(xs), n)]\n"),
    _c("defined", "asyncio_runs_the_candidate", "fetch_all",
       "import asyncio\nassert asyncio.run(candidate([1, 2, 3])) == [2, 4, 6]\n",
       "import asyncio\nasync def double(x):\n    await asyncio.sleep(0)\n    return 2 * x\n"
       "async def fetch_all(xs):\n    return list(await asyncio.gather(*(double(x) for x in xs)))\n",
       "import asyncio\nasync def fetch_all(xs):\n    return [2 * x for x in reversed(xs)]\n"),
    _c("defined", "wraps_the_tests_function", "logged",
       "def work(a, b):\n    '''Adds.'''\n    return a + b\nw = candidate(work)\n"
       "assert w(1, 2) == 3 and w.__name__ == 'work' and w.__doc__ == 'Adds.' and w.calls == 1\n",
       "import functools\ndef logged(fn):\n    @functools.wraps(fn)\n    def inner(*a):\n        inner.calls += 1\n"
       "        return fn(*a)\n    inner.calls = 0\n    return inner\n",
       "def logged(fn):\n    def inner(*a):\n        inner.calls += 1\n        return fn(*a)\n    inner.calls = 0\n    return inner\n"),
    _c("defined", "lru_cache_info", "fib",
       "assert candidate(30) == 832040 and candidate.cache_info().hits > 0\n",
       "import functools\n@functools.lru_cache(maxsize=None)\ndef fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n",
       "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\nfib.cache_info = lambda: None\n"),
    _c("defined", "module_constant_and_import", "area",
       "import math\nassert PI is math.pi and abs(candidate(1) - math.pi) < 1e-12\n",
       "import math\nPI = math.pi\ndef area(r):\n    return PI * r * r\n",
       "PI = 3.14159\ndef area(r):\n    return PI * r * r\n"),
    _c("defined", "mutation_seen_later", "Counter2",
       "c = candidate()\ncount = c.items\nc.add('a')\nassert count == ['a'] and c.items is count\n",
       "class Counter2:\n    def __init__(self):\n        self.items = []\n    def add(self, x):\n        self.items.append(x)\n",
       "class Counter2:\n    def __init__(self):\n        self.items = []\n    def add(self, x):\n"
       "        self.items = self.items + [x]\n"),
    _c("defined", "same_object_twice", "registry",
       "assert candidate('a') is candidate('a') and candidate('a') is not candidate('b')\n",
       "_cache = {}\ndef registry(name):\n    return _cache.setdefault(name, object())\n",
       "def registry(name):\n    return object()\n"),
    _c("defined", "threads_call_a_test_callback", "map_parallel",
       "import threading\ndef square(x):\n    return x * x\nassert candidate(square, list(range(20))) == [x * x for x in range(20)]\n",
       "import threading\ndef map_parallel(fn, xs):\n    out = [None] * len(xs)\n    def run(i):\n"
       "        out[i] = fn(xs[i])\n    ts = [threading.Thread(target=run, args=(i,)) for i in range(len(xs))]\n"
       "    [t.start() for t in ts]\n    [t.join() for t in ts]\n    return out\n",
       "import threading\ndef map_parallel(fn, xs):\n    out = []\n    def run(i):\n"
       "        out.append(fn(xs[i]))\n    ts = [threading.Thread(target=run, args=(i,)) for i in range(len(xs))]\n"
       "    [t.start() for t in ts]\n    [t.join() for t in ts]\n    return sorted(out, reverse=True)\n"),
]

EXCEPTIONS = [
    _c("exceptions", "cause_is_kept", "load",
       "try:\n    candidate('{')\n    ok = False\nexcept ValueError as e:\n"
       "    ok = isinstance(e.__cause__, KeyError)\nassert ok\n",
       "def load(s):\n    try:\n        return {}[s]\n    except KeyError as exc:\n        raise ValueError('bad') from exc\n",
       "def load(s):\n    raise ValueError('bad')\n"),
    _c("exceptions", "stopiteration_value", "gen",
       "g = candidate()\nassert next(g) == 1\ntry:\n    next(g)\n    value = None\nexcept StopIteration as e:\n"
       "    value = e.value\nassert value == 'done'\n",
       "def gen():\n    yield 1\n    return 'done'\n",
       "def gen():\n    yield 1\n    return 'finished'\n"),
    _c("exceptions", "argparse_exit_code", "parse",
       "import contextlib, io\ntry:\n    with contextlib.redirect_stderr(io.StringIO()):\n        candidate(['--count', 'x'])\n"
       "    code = None\nexcept SystemExit as e:\n    code = e.code\nassert code == 2\nassert candidate(['--count', '3']) == 3\n",
       "import argparse\ndef parse(argv):\n    p = argparse.ArgumentParser()\n    p.add_argument('--count', type=int)\n"
       "    return p.parse_args(argv).count\n",
       "def parse(argv):\n    return int(argv[1]) if argv[1].isdigit() else None\n"),
    _c("exceptions", "callback_interrupt", "run_all",
       "def boom():\n    raise KeyboardInterrupt\ntry:\n    candidate([boom])\n    got = None\nexcept KeyboardInterrupt:\n"
       "    got = 'interrupted'\nassert got == 'interrupted'\n",
       "def run_all(fns):\n    return [f() for f in fns]\n",
       "def run_all(fns):\n    out = []\n    for f in fns:\n        try:\n            out.append(f())\n"
       "        except BaseException:\n            out.append(None)\n    return out\n"),
    _c("exceptions", "tests_own_exception_class", "call",
       "class Stop(Exception):\n    pass\ndef f():\n    raise Stop('x')\ntry:\n    candidate(f)\n    kind = None\n"
       "except Stop as e:\n    kind = type(e)\nassert kind is Stop\n",
       "def call(fn):\n    return fn()\n",
       "def call(fn):\n    try:\n        return fn()\n    except Exception as e:\n        raise RuntimeError(str(e))\n"),
]

SHARED = [
    _c("shared", "printed_result_captured", "shout",
       "import contextlib, io\nbuf = io.StringIO()\nwith contextlib.redirect_stdout(buf):\n    r = candidate('hi')\n"
       "assert r is None and buf.getvalue() == 'HI!\\n'\n",
       "def shout(s):\n    print(s.upper() + '!')\n",
       "def shout(s):\n    print(s.upper())\n"),
    _c("shared", "object_the_test_keeps_and_mutates", "Stack",
       "s = candidate()\ns.push(1)\ns.push(2)\nassert s.pop() == 2 and s.size() == 1\n",
       "class Stack:\n    def __init__(self):\n        self.xs = []\n    def push(self, x):\n        self.xs.append(x)\n"
       "    def pop(self):\n        return self.xs.pop()\n    def size(self):\n        return len(self.xs)\n",
       "class Stack:\n    def __init__(self):\n        self.xs = []\n    def push(self, x):\n        self.xs.append(x)\n"
       "    def pop(self):\n        return self.xs[-1]\n    def size(self):\n        return len(self.xs)\n"),
    _c("shared", "list_changed_after_return", "buffer",
       "b = candidate()\nfirst = b.snapshot()\nb.add(5)\nassert first == [] and b.snapshot() == [5]\n",
       "class Buf:\n    def __init__(self):\n        self.xs = []\n    def add(self, x):\n        self.xs.append(x)\n"
       "    def snapshot(self):\n        return list(self.xs)\ndef buffer():\n    return Buf()\n",
       "class Buf:\n    def __init__(self):\n        self.xs = []\n    def add(self, x):\n        self.xs.append(x)\n"
       "    def snapshot(self):\n        return self.xs\ndef buffer():\n    return Buf()\n"),
    _c("shared", "ne_falls_back_to_identity", "Token",
       "assert candidate('a') != candidate('b')\nassert not (candidate('a') != candidate('a'))\n",
       "class Token:\n    def __init__(self, v):\n        self.v = v\n    def __eq__(self, o):\n"
       "        return isinstance(o, Token) and o.v == self.v\n    def __hash__(self):\n        return hash(self.v)\n",
       "class Token:\n    def __init__(self, v):\n        self.v = v\n"),
]

CASES = STATE + DEFINED + EXCEPTIONS + SHARED
