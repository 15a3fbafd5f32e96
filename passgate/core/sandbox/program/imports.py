"""The task contract's allowed imports, enforced in the candidate's process and judged by the grader.

In the candidate's process (`guard`): an import the program's own code makes of a module the task
does not allow fails there as it would where the module is absent (ModuleNotFoundError), and the
attempt is reported with the module and the program's line. The test's code and passgate's own
import freely, and so does a module's own code (a module loading what it needs, an allowed
package's internals). Three layers see an import:

* the `import` audit event, raised whenever a module is loaded, however it was asked for
  (`import`, `__import__`, `importlib.import_module`, a thread, code the program exec'd);
* `builtins.__import__`, for every import statement, so a module already loaded (one the test
  imported, one the program put in `sys.modules`) is refused to the program too;
* `importlib.import_module`, for the same reason.

Whose code asked is read from the frames (`whose`): the program is `<candidate>`, the test `<test>`,
passgate's modules `<pgw/...>`; code the program compiled at run time (exec, eval, compile,
CodeType) counts as the program's; the standard library's functions that import a module by a
name their caller gives (importlib, pkgutil, runpy, pickle, ...) act for their caller.

This is a contract check, not a barrier: the program runs in this process and a candidate that
knows of the check can evade it (C code, reading `sys.modules` directly). What the image holds is
the barrier; the grader's static scan of the program text records what a program names.

In the grader (`judge`): a suite whose process reported an attempt fails as `disallowed_import`,
naming the module and the line. Standard library only; everything here is bound when the module is
imported, before any program runs.
"""

import builtins
import importlib
import sys
import sysconfig
import threading

ATTEMPTS = []                         # what the program tried, as sent: {"m", "top", "line", "how", "in"}
_MAX = 20
_STDLIB = frozenset(sys.stdlib_module_names)
_ALWAYS = frozenset({"__main__"})
_MACHINERY = ("<frozen importlib.", "<frozen zipimport>")
# standard-library modules that import a module named by their caller: they act for the caller
_FORWARDERS = ("importlib/", "pkgutil.py", "runpy.py", "pydoc.py", "unittest/mock.py", "logging/config.py",
               "pickle.py", "zipimport.py", "warnings.py")
_FROZEN_FORWARDERS = frozenset({"<frozen runpy>"})
_STDLIB_DIRS = tuple({p.rstrip("/") + "/" for p in (sysconfig.get_paths()["stdlib"],
                                                       sysconfig.get_paths()["platstdlib"])})
_getframe = sys._getframe
_current_thread, _main_thread = threading.current_thread, threading.main_thread
_real_import = builtins.__import__
_real_import_module = importlib.import_module


class _State:
    """The policy of this process and what the program compiled: set once by `guard`."""
    allowed = frozenset()
    stdlib = True
    made = set()                      # file names of code the program compiled or built at run time
    forged = False                    # it built code claiming to be the test's or passgate's
    notify = None                     # sends one attempt to the grader as soon as it is made


def allows(policy, top):
    """Whether a top-level module name is allowed by a policy as sent to the worker (None: any)."""
    if policy is None or top in _ALWAYS:
        return True
    return top in policy.get("allowed", ()) or (bool(policy.get("stdlib")) and top in _STDLIB)


def policy_words(policy):
    """The policy as the manifest writes it: `any`, `stdlib`, or the list."""
    if policy is None:
        return "any"
    names = (["stdlib"] if policy.get("stdlib") else []) + sorted(policy.get("allowed", ()))
    return ", ".join(names) or "nothing"


# ---- whose code asked -------------------------------------------------------------------------
def _forwards(name):
    """Whether a standard-library file is one that imports a module its caller names."""
    for root in _STDLIB_DIRS:
        if name.startswith(root) and "-packages/" not in name:
            return name[len(root):].startswith(_FORWARDERS)
    return False


def whose(frame):
    """("candidate" | "test" | "passgate" | "module", the program's line or None, where) for the code
    that asked for an import, walking out from `frame`. `where` is "" for the program's own text and
    "exec" for code it compiled at run time (whoever calls that code later)."""
    exec_line = None
    while frame is not None:
        code = frame.f_code
        name = code.co_filename
        if name == "<candidate>":
            return "candidate", frame.f_lineno, "exec" if exec_line is not None else ""
        if name in _State.made:
            exec_line = frame.f_lineno if exec_line is None else exec_line
        elif exec_line is not None:
            pass                      # the program's run-time code was asked: only its line is left to find
        elif name == "<test>":
            if not _State.forged:
                return "test", None, ""
        elif name.startswith("<pgw/"):
            if not _State.forged:
                return "passgate", None, ""
        elif name.startswith(_MACHINERY):
            pass
        elif name.startswith("<frozen "):
            if code.co_name == "<module>" or name not in _FROZEN_FORWARDERS:
                return "module", None, ""
        elif name.startswith("<"):
            pass                      # code someone else compiled at run time: its caller decides
        elif code.co_name == "<module>" or not _forwards(name):
            return "module", None, ""  # a module loading what it needs, or its own lazy import
        frame = frame.f_back
    if exec_line is not None:
        return "candidate", None, "exec"
    return "passgate", None, ""


def installed_package_asked(frame):
    """Whether the nearest code outside the standard library, walking out, is an installed package's."""
    while frame is not None:
        name = frame.f_code.co_filename
        if "-packages/" in name:
            return True
        if not (name.startswith(("<frozen ", "<pgw/imports.py>")) or name.startswith(_STDLIB_DIRS)):
            return False
        frame = frame.f_back
    return False


# ---- the guard in the candidate's process -------------------------------------------------------
def _refuse(name, how, frame):
    """Raise ModuleNotFoundError for a program's import of a module its task does not allow; others pass."""
    top = name.partition(".")[0]
    if top in _State.allowed or (_State.stdlib and top in _STDLIB) or top in _ALWAYS:
        return
    who, line, where = whose(frame)
    if who != "candidate":
        return
    if _current_thread() is not _main_thread():
        where = (where + ", thread").lstrip(", ")
    attempt = {"m": name[:100], "top": top[:100], "line": line, "how": how, "in": where}
    if attempt not in ATTEMPTS and len(ATTEMPTS) < _MAX:
        ATTEMPTS.append(attempt)
        if _State.notify is not None:
            _State.notify(attempt)
    raise ModuleNotFoundError("No module named %r (the task's allowed imports: %s)" % (top, _words()), name=name)


def _words():
    return policy_words({"allowed": _State.allowed, "stdlib": _State.stdlib})


def _guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
    if level == 0 and type(name) is str:
        _refuse(name, "import", _getframe(1))
    return _real_import(name, globals, locals, fromlist, level)


def _guarded_import_module(name, package=None):
    if type(name) is str and not name.startswith("."):
        _refuse(name, "importlib", _getframe(1))
    return _real_import_module(name, package)


def _hook(event, args):
    if event == "import":
        if type(args[0]) is str:
            _refuse(args[0], "load", _getframe(1))
    elif event == "compile":
        filename = args[1] if len(args) > 1 else None
        if type(filename) is str and filename != "<candidate>" and whose(_getframe(1))[0] == "candidate":
            _made(filename)
    elif event == "code.__new__":
        filename = args[1] if len(args) > 1 else None
        if type(filename) is str and whose(_getframe(1))[0] == "candidate":
            _made(filename)
    elif event == "marshal.loads" or event == "marshal.load":
        if whose(_getframe(1))[0] == "candidate":
            _State.forged = True


def _made(filename):
    if filename == "<test>" or filename.startswith("<pgw/"):
        _State.forged = True          # code that claims to be the test's or passgate's
    elif len(_State.made) < 1000:
        _State.made.add(filename)


def guard(policy, notify=None):
    """Enforce `policy` (None: any import) in this process from now on; `notify(attempt)` is called
    with each attempt as it is made."""
    if policy is None:
        return
    _State.allowed = frozenset(str(m) for m in policy.get("allowed", ()))
    _State.stdlib = bool(policy.get("stdlib"))
    _State.notify = notify
    builtins.__import__ = _guarded_import
    importlib.import_module = _guarded_import_module
    sys.addaudithook(_hook)


def set_notify(notify):
    _State.notify = notify


def attempts():
    return [dict(a) for a in ATTEMPTS]


# ---- the grader's side -------------------------------------------------------------------------
def clean(reported):
    """A process's report of its attempts, as plain, bounded data (the process may send anything)."""
    out = []
    for a in reported if type(reported) is list else ():
        if type(a) is not dict or type(a.get("m")) is not str:
            continue
        line = a.get("line")
        item = {"module": a["m"][:100], "top": str(a.get("top") or a["m"].partition(".")[0])[:100],
                "line": line if type(line) is int else None, "how": str(a.get("how") or "")[:20],
                "in": str(a.get("in") or "")[:40]}
        if item not in out:
            out.append(item)
    return out[:_MAX]


def judge(verdict, found, policy):
    """A suite's verdict given the attempts its process reported: a disallowed import fails it."""
    if not found or verdict.get("status") == "not_run" or verdict.get("class") == "infra_error":
        return verdict
    first = found[0]
    where = " at line %d of the program" % first["line"] if first["line"] else ""
    if first["in"]:
        where += " (%s)" % first["in"]
    others = sorted({a["top"] for a in found[1:]} - {first["top"]})
    detail = "imports %s%s; the task allows %s" % (first["module"], where, policy_words(policy))
    if others:
        detail += "; also %s" % ", ".join(others)
    if verdict.get("status") == "failed":
        detail += " (then: %s: %s)" % (verdict.get("class"), str(verdict.get("detail") or "")[:200])
    out = dict(verdict, status="failed", detail=detail[:500], imports=found)
    out["class"] = "disallowed_import"
    return out
