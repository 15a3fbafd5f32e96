"""Hostile candidates for each tamper tripwire, and honest ones that use `sys` and `gc` as programs do.

Each hostile candidate answers `add` correctly while it tampers, so the test can check both that
the tripwire fired and that the verdict did not move (tripwires are telemetry, never a verdict);
the exits are the exception, failing `premature_exit` as they always did.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tamper:
    name: str
    kind: str                    # the TAMPER_KINDS word that must be recorded
    program: str
    verdict: str = "passed"      # the verdict the program gets anyway


def _in_add(body: str, head: str = "") -> str:
    return f"{head}def add(a, b):\n" + "".join(f"    {line}\n" for line in body.splitlines()) + "    return a + b\n"


TAMPERING = [
    Tamper("settrace", "settrace", _in_add("sys.settrace(lambda *args: None)\nsys.settrace(None)", "import sys\n")),
    Tamper("setprofile", "setprofile", _in_add("sys.setprofile(lambda *args: None)\nsys.setprofile(None)",
                                               "import sys\n")),
    Tamper("getframe_walk", "getframe", _in_add("f = sys._getframe(0)\nwhile f.f_back is not None:\n    f = f.f_back",
                                                "import sys\n")),
    Tamper("inspect_stack", "getframe", _in_add("inspect.stack()", "import inspect\n")),
    Tamper("current_frames", "current_frames", _in_add("sys._current_frames()", "import sys\n")),
    Tamper("gc_get_objects", "gc_objects", _in_add("gc.get_objects()", "import gc\n")),
    Tamper("gc_get_referrers", "gc_objects", _in_add("gc.get_referrers(a)", "import gc\n")),
    Tamper("code_swap", "code_replace", "def add(a, b):\n    return a - b\n\n\ndef _right(a, b):\n    return a + b\n\n\n"
                                        "add.__code__ = _right.__code__\n"),
    Tamper("code_replace_method", "code_replace", "def add(a, b):\n    return a + b\n\n\n"
                                                  "add.__code__ = add.__code__.replace(co_name='add')\n"),
    Tamper("ctypes_peek", "ctypes", _in_add("ctypes.string_at(id(a), 8)", "import ctypes\n")),
    Tamper("open_grader_channel", "channel_write", _in_add("open(4, 'wb', closefd=False)")),
    Tamper("proc_self_mem", "proc_mem", _in_add("try:\n    open('/proc/self/mem', 'rb').close()\nexcept OSError:\n"
                                                "    pass")),
    Tamper("parent_process_files", "other_process_files",
           _in_add("try:\n    open('/proc/%d/status' % os.getppid()).read()\nexcept OSError:\n    pass",
                   "import os\n")),
    Tamper("os_exit_in_test", "exit_in_test", _in_add("os._exit(3)", "import os\n"), "premature_exit"),
    Tamper("sys_exit_in_test", "exit_in_test", _in_add("sys.exit(0)", "import sys\n"), "premature_exit"),
]

# programs that use sys, gc and the standard library's own frame users legitimately: no tripwire
HONEST = [
    ("sys_and_gc", _in_add("sys.setrecursionlimit(5000)\ngc.collect()\nsys.getsizeof(a)\nsys.maxsize",
                           "import gc\nimport sys\n")),
    ("namedtuple_and_typing", "import collections\nimport typing\n\nPair = collections.namedtuple('Pair', 'x y')\n"
                              "class P(typing.NamedTuple):\n    x: int\n\n\ndef add(a, b):\n"
                              "    return Pair(a, b).x + P(b).x\n"),
    ("dataclass_enum_logging", "import dataclasses\nimport enum\nimport logging\n\n\n@dataclasses.dataclass\n"
                               "class Box:\n    v: int\n\n\nclass Op(enum.Enum):\n    ADD = 1\n\n\ndef add(a, b):\n"
                               "    logging.getLogger('x').debug('adding')\n    return Box(a).v + b\n"),
    ("warnings_and_recursion", _in_add("warnings.warn('old', DeprecationWarning)", "import warnings\n")),
]
