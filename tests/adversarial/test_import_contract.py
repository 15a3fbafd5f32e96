"""Hostile ways to import what a task's `allowed_imports` does not allow, each graded by the real worker
program: every one is failed as `disallowed_import` under `stdlib`, naming the module and the line,
and none blocks the test's own imports. `requests` and `numpy` are installed where these run, so a
refusal is the contract's, not a missing module's."""

from __future__ import annotations

import pytest

from passgate.core.model import Task
from tests.local_worker import grade, shared_worker

SUITE = "assert f(3) == 3\n"

# name: (program, module the record must name, line of the program it must name or None)
HOSTILE = {
    "dunder_import_of_a_built_string": ("def f(x):\n    m = __import__('re' + 'quests')\n    return x\n",
                                        "requests", 2),
    "importlib_import_module": ("import importlib\ndef f(x):\n    importlib.import_module('nump' + 'y')\n"
                                "    return x\n", "numpy", 3),
    "import_inside_the_function_the_test_calls": ("def f(x):\n    import requests\n    return x\n", "requests", 2),
    "import_in_a_thread": ("import threading\ndef f(x):\n    def g():\n        import requests\n"
                           "    t = threading.Thread(target=g)\n    t.start()\n    t.join()\n    return x\n",
                           "requests", 4),
    "sys_modules_planted_then_imported": ("import sys, types\nsys.modules['requests'] = types.ModuleType('requests')\n"
                                          "def f(x):\n    import requests\n    return x\n", "requests", 4),
    "exec_of_a_string_that_imports": ("def f(x):\n    exec('import requests')\n    return x\n", "requests", 2),
    "exec_defines_a_function_the_test_calls": ("exec('def f(x):\\n    import requests\\n    return x\\n')\n",
                                               "requests", None),
    "compiled_under_the_tests_file_name": ("def f(x):\n    exec(compile('import requests', '<test>', 'exec'))\n"
                                           "    return x\n", "requests", 2),
    "refusal_caught_and_ignored": ("def f(x):\n    try:\n        import numpy\n    except ImportError:\n"
                                   "        pass\n    return x\n", "numpy", 3),
    "pkgutil_resolve_name": ("import pkgutil\ndef f(x):\n    pkgutil.resolve_name('requests:get')\n    return x\n",
                             "requests", 3),
    "a_module_the_test_already_loaded": ("def f(x):\n    import numpy\n    return x\n", "numpy", 2),
}
TEST_LOADS_NUMPY = {"a_module_the_test_already_loaded"}


def task(suite: str = SUITE, allowed=("stdlib",)) -> Task:
    return Task(task_id="contract/0", slice="contract", prompt="", entry_point="f", classic_suffix=suite,
                allowed_imports=tuple(allowed))


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_each_hostile_import_is_a_disallowed_import_naming_module_and_line(name):
    program, module, line = HOSTILE[name]
    suite = ("import numpy\n" + SUITE) if name in TEST_LOADS_NUMPY else SUITE
    res = grade(task(suite), program, worker=shared_worker())
    assert res.protected.status == "failed"
    assert res.protected.failure_class == "disallowed_import", res.protected.detail
    assert res.imports[0]["top"] == module
    assert res.imports[0]["line"] == line
    assert module in res.protected.detail and "stdlib" in res.protected.detail


def test_the_tests_own_imports_are_never_blocked():
    suite = "import numpy, requests\nassert f(3) == int(numpy.int64(3))\nassert requests.__name__ == 'requests'\n"
    res = grade(task(suite), "import math\ndef f(x):\n    return math.isqrt(x * x)\n", worker=shared_worker())
    assert res.protected.status == "passed", res.protected.detail
    assert res.imports == ()


def test_the_standard_library_and_its_own_optional_imports_are_allowed_under_stdlib():
    # pickle imports a Jython module at load, zoneinfo may look for tzdata: the library's own business
    program = ("import pickle, zoneinfo, json, collections, importlib\n"
               "def f(x):\n    return pickle.loads(pickle.dumps(importlib.import_module('math').floor(x)))\n")
    res = grade(task(), program, worker=shared_worker())
    assert res.protected.status == "passed", res.protected.detail


def test_a_listed_package_is_allowed_and_any_allows_everything():
    numpy_program = "import numpy\ndef f(x):\n    return int(numpy.int64(x))\n"
    allowed = grade(task(allowed=("stdlib", "numpy")), numpy_program, worker=shared_worker())
    assert allowed.protected.status == "passed", allowed.protected.detail
    refused = grade(task(allowed=("stdlib", "numpy")), "import requests\ndef f(x):\n    return x\n",
                    worker=shared_worker())
    assert refused.protected.failure_class == "disallowed_import"
    anything = grade(task(allowed=("any",)), "import requests\ndef f(x):\n    return x\n", worker=shared_worker())
    assert anything.protected.status == "passed"


def test_a_wrong_answer_after_a_refused_import_is_recorded_as_the_import():
    program = "def f(x):\n    try:\n        import numpy\n    except ImportError:\n        return 0\n    return x\n"
    res = grade(task(), program, worker=shared_worker())
    assert res.protected.failure_class == "disallowed_import"
    assert "wrong_answer" in res.protected.detail          # what the suite did then is kept in the detail
