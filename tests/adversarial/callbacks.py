"""Hostile candidates against the channels protocol 2 opened into the grader: handles to the test's
objects (callbacks, generators, instances, classes), the copy-back of arguments, back-references,
digests of huge answers and the frames themselves.

The task hands the candidate a function, an instance, a generator, a class and a list; the answer
it must return is a number the test keeps in its own globals and never passes. No honest program
can know it: a candidate passes only by reaching the grader's globals, frames or code, which
every case here tries.
"""

from __future__ import annotations

from passgate.core.sandbox.runner import TaskSpec

from .corpus import Case

SECRET_TASK = TaskSpec.build(
    "Adversarial/secret", protected=(
        "EXPECTED = 987654321\n"
        "class Box:\n"
        "    def __init__(self):\n"
        "        self.size = 3\n"
        "    def grow(self):\n"
        "        self.size += 1\n"
        "        return self.size\n"
        "def helper(x):\n"
        "    return x + 1\n"
        "gen = (i for i in range(3))\n"
        "data = [1, 2, 3]\n"
        "assert reach(helper, Box(), gen, Box, data) == EXPECTED\n"),
)
HONEST = "def reach(fn, box, gen, cls, data):\n    return fn(box.grow()) + sum(gen) + len(data)\n"
HONEST_TASK = TaskSpec.build(
    "Adversarial/honest-callbacks",
    protected=("class Box:\n    def __init__(self):\n        self.size = 3\n    def grow(self):\n"
                     "        self.size += 1\n        return self.size\n"
                     "b = Box()\nassert reach(lambda x: x + 1, b, (i for i in range(3)), Box, [1, 2, 3]) == 11\n"
                     "assert b.size == 4\n"))

_HEAD = "def reach(fn, box, gen, cls, data):\n"


def _case(name, body, *expect):
    return Case(name, "callback", _HEAD + body, frozenset(expect or _ANY))


_ANY = ("wrong_answer", "runtime_error", "not_plain_data", "timeout", "premature_exit", "sandbox_violation",
        "output_exceeded", "memory_exceeded", "tampering")

CALLBACK_CASES = [
    _case("function_globals", "    return fn.__globals__['EXPECTED']\n"),
    _case("function_code_constants", "    return [c for c in fn.__code__.co_consts if isinstance(c, int)][-1]\n"),
    _case("function_closure_and_builtins", "    return fn.__builtins__['eval']('EXPECTED')\n"),
    _case("getattr_by_builtin", "    return getattr(fn, '__glob' + 'als__')['EXPECTED']\n"),
    _case("generator_frame_back", "    return gen.gi_frame.f_back.f_globals['EXPECTED']\n"),
    _case("generator_frame_locals", "    return gen.gi_frame.f_locals\n"),
    _case("generator_code", "    return gen.gi_code.co_consts\n"),
    _case("instance_class_init_globals", "    return box.__class__.__init__.__globals__['EXPECTED']\n"),
    _case("instance_dict", "    return box.__dict__\n"),
    _case("bound_method_self_and_func", "    return box.grow.__func__.__globals__['EXPECTED']\n"),
    _case("class_subclasses_walk", "    return cls.__subclasses__()\n"),
    _case("class_mro_to_object", "    o = cls.mro()[-1]\n    return o.__subclasses__()\n"),
    _case("type_of_the_handle", "    t = type(fn)\n    return t.__dict__\n"),
    _case("send_into_the_generator", "    gen.send(None)\n    return gen.throw(SystemExit)\n"),
    _case("callback_flood", "    n = 0\n    while True:\n        n = fn(n)\n", "timeout"),
    _case("deep_argument_into_a_callback",
          "    x = []\n    for _ in range(200000):\n        x = [x]\n    fn(x)\n    return 0\n"),
    _case("forged_handle_number", "    import os, json, struct\n"
          "    frame = json.dumps({'q': 'call', 't': {'h': 999}, 'a': [], 'k': None}).encode()\n"
          "    os.write(4, struct.pack('>I', len(frame)) + frame)\n    return 0\n", "not_plain_data"),
    _case("forged_back_reference", "    import os, json, struct\n"
          "    frame = json.dumps({'v': {'@': 10 ** 6}, 's': []}).encode()\n"
          "    os.write(4, struct.pack('>I', len(frame)) + frame)\n    import time\n    time.sleep(5)\n",
          "not_plain_data"),
    _case("forged_state_into_the_tests_list", "    import os, json, struct\n"
          "    frame = json.dumps({'v': 0, 's': [[0, 'dict', {'D': []}]]}).encode()\n"
          "    os.write(4, struct.pack('>I', len(frame)) + frame)\n    import time\n    time.sleep(5)\n",
          "not_plain_data"),
    # a digest carries no more than the value: one of a wrong guess is a wrong answer
    _case("forged_digest_of_a_guess", "    import os, json, struct, hashlib\n"
          "    frame = json.dumps({'v': {'Z': {'h': 0, 'd': hashlib.sha256(b'i2a').hexdigest(), 't': 'int',"
          " 'why': 'x'}}, 's': []}).encode()\n"
          "    os.write(4, struct.pack('>I', len(frame)) + frame)\n    import time\n    time.sleep(5)\n"),
    _case("name_of_a_test_function", "    import os, json, struct\n"
          "    frame = json.dumps({'q': 'call', 't': {'n': 'helper'}, 'a': [1], 'k': None}).encode()\n"
          "    os.write(4, struct.pack('>I', len(frame)) + frame)\n    import time\n    time.sleep(5)\n"),
    _case("oversized_frame_header", "    import os, struct\n    os.write(4, struct.pack('>I', 2 ** 31))\n"
          "    import time\n    time.sleep(5)\n", "output_exceeded"),
    _case("garbage_frame", "    import os, struct\n    os.write(4, struct.pack('>I', 5) + b'{\"v\":')\n"
          "    import time\n    time.sleep(5)\n", "not_plain_data"),
    _case("slow_to_decode_set", "    import os, json, struct, time\n"
          "    members = [(2 ** 61 - 1) * i for i in range(1, 200000)]   # every one hashes to 0\n"
          "    frame = json.dumps({'v': {'S': members}, 's': []}).encode()\n"
          "    os.write(4, struct.pack('>I', len(frame)) + frame)\n    time.sleep(30)\n", "timeout"),
    _case("huge_answer_then_used", "    return 'x' * (70 << 20)\n"),
]

# The candidate's module-level names that shadow builtins the test calls: in one process they would
# pass a wrong answer; the isolated test keeps its own builtins.
SHADOW_TASK = TaskSpec.build(
    "Adversarial/shadow", protected=("assert abs(double(2) - 4) < 1e-9\nassert isinstance(double(3), int)\n"
                     "assert sorted([double(1), 0]) == [0, 2]\nassert len(str(double(5))) == 2\n"))
SHADOWING = ("abs = lambda x: 0\nisinstance = lambda *a: True\nsorted = lambda x: [0, 2]\nlen = lambda x: 2\n"
             "def double(x):\n    return 'not a number'\n")
