"""The grader (PID 1 of the worker): each suite of a task split once, then, per candidate, a fresh
process runs `program + test` while the grader follows the plan and decides (grading protocol 3).

The protected suite runs first, in a fresh process. The public suite runs on in the same process when
the protected one passed and the process is alone (one thread), as the rest of one program; otherwise
in a fresh process. A `classic` program (the reference harness's, whole) runs in a process of its own
afterwards, for the cross-check. Standard library only.
"""

import base64
import json
import marshal
import os
import socket
import sys
import time

from .channel import CandidateGone, Channel
from .facts import program_facts
from .frames import CAND_UID
from .imports import judge as judge_imports
from .oracles import EvalPlusOracle
from .protocol import PROTOCOL, REFERENCE_BUDGET_S
from .shadow import Shadow, SuiteFailed
from .split import split_test
from .zygote import zygote_main

SUITES = ("protected", "public")


class Grader:
    def __init__(self):
        self.tasks = {}
        self.splits = {}
        self.zsock = None
        self.zpid = None

    def start_zygote(self):
        # one message per send: spawn requests, candidates handed over with their pipes, exit records
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            parent.close()
            os.closerange(3, child.fileno())
            os.closerange(child.fileno() + 1, 65536)
            zygote_main(child)
            os._exit(0)
        child.close()
        self.zsock, self.zpid = parent, pid

    def add_task(self, req):
        """A task's suites (their source: what runs after the program), split on first use."""
        suites = {name: req.get(name) or "" for name in SUITES}
        for name, source in suites.items():
            if source.strip():
                compile(source, "<test>", "exec")        # a task that does not compile is refused here
        oracle = json.loads(req["oracle"]) if req.get("oracle") else None
        oracle = EvalPlusOracle(oracle) if oracle and oracle.get("kind") == "evalplus" else None
        if oracle is not None:
            oracle.compute(REFERENCE_BUDGET_S, CAND_UID)
        self.tasks[req["key"]] = {"task_id": req["task_id"], "suites": suites,
                                  "lines": {n: s.splitlines() for n, s in suites.items()}, "oracle": oracle,
                                  "imports": req.get("imports")}

    # ---- splitting -------------------------------------------------------------------
    def split_for(self, key, name, program):
        """The split of a task's suite for this program (a program that rebinds a builtin the test's
        static parts use, or names a test's module-level name, gets its own split)."""
        base = self.splits.get((key, name, None))
        if base is None:
            base = self.splits[(key, name, None)] = _Compiled(split_test(self.tasks[key]["suites"][name]), 0)
        if not (base.split.builtins_used or base.split.module_statics) and "from __future__" not in program:
            return base
        facts = program_facts(program)
        variant = (frozenset(facts.shadowed & base.split.builtins_used), facts.star,
                   frozenset(facts.names & base.split.module_statics), facts.future_flags)
        if variant == (frozenset(), False, frozenset(), 0):
            return base
        split = self.splits.get((key, name, variant))
        if split is None:
            source = self.tasks[key]["suites"][name]
            split = self.splits[(key, name, variant)] = _Compiled(split_test(
                source, shadowed=variant[0], star=variant[1], program_names=variant[2]), facts.future_flags)
        return split

    # ---- one candidate ---------------------------------------------------------------
    def evaluate(self, req, say=None):
        """Grade one program: the protected suite (the headline), then the public one.

        `say(note)` sends a line ahead of the result: after a protected timeout, so the controller can
        read how much real CPU the host gave that suite. When a run alone will re-check a protected
        timeout (`public_after_protected_timeout` false), that run replaces this attempt, so the public
        suite is left to it."""
        task = self.tasks[req["task"]]
        t0 = time.monotonic()
        acc = _Accumulated()
        ch = None
        oracle = task["oracle"]
        if oracle is not None and oracle.failure is not None:
            acc.load_failure = {"status": "failed", "class": "infra_error", "detail": oracle.failure}
        for name in SUITES:
            verdict, ch = self._suite_in_turn(name, task, req, ch, acc)
            acc.suites[name] = verdict
            if name == "protected" and verdict.get("class") == "timeout" and say is not None:
                say({"suite": "protected", "class": "timeout"})
        acc.t_suites = time.monotonic() - t0
        if ch is not None:
            acc.finish(ch)
        if req.get("classic"):
            acc.classic = self._classic(req["classic"], req["limits"], acc)
        return acc.result(time.monotonic() - t0)

    def _suite_in_turn(self, name, task, req, ch, acc):
        if not task["suites"][name].strip():
            return {"status": "not_run", "class": None, "detail": "no tests"}, ch
        if acc.load_failure is not None:
            return dict(acc.load_failure), ch
        if name == "public" and not req.get("public_after_protected_timeout", True) \
                and acc.suites["protected"].get("class") == "timeout":
            return {"status": "not_run", "class": None, "detail": "left to the re-check of the timeout, run alone"}, ch
        split = self.split_for(req["task"], name, req["program"])
        job = {"suite": {"code": split.code_b64}, "imports": task["imports"]}
        if ch is not None and ch.gone is None and ch.suite_passed and ch.threads == 1:
            ch.begin_suite()
            ch.reused = True
            try:
                ch.send(job)
            except CandidateGone as gone:
                return _from_gone(gone, ch, None), ch
        else:
            if ch is not None:
                acc.finish(ch)
            ch = Channel(self.zsock, req["limits"])
            ch.begin_suite()
            if not ch.load({"program": req["program"], **job}):
                acc.load_failure = judge_imports(_from_gone(ch.gone, ch, None), ch.imports, task["imports"])
                acc.load_failure["cpu_s"] = round(ch.suite_cpu(), 4)
                return dict(acc.load_failure), ch
        functions = task["oracle"].functions() if task["oracle"] is not None else None
        verdict = judge_imports(self._follow(ch, split, task["lines"][name], functions), ch.imports, task["imports"])
        acc.notes += ["%s suite, %s" % (name, note) for note in verdict.pop("notes", [])]
        verdict["cpu_s"] = round(ch.suite_cpu(), 4)
        if getattr(ch, "reused", False):
            verdict["process"] = "after the protected suite"
        return verdict, ch

    def _follow(self, ch, split, lines, functions=None):
        shadow = Shadow(split.split, ch.recv, ch.charged, lines, functions)
        try:
            integrity = shadow.run()
            _confirm_end(ch)
            ch.suite_passed = True
            return {"status": "passed", "class": None, "detail": "", "integrity": integrity, "notes": shadow.notes}
        except SuiteFailed as failed:
            ch.end(failed.cls, failed.detail)
            ch.suite_passed = False
            out = _suite_fail(failed.cls, failed.detail, failed.fields.get("exc_type"), ch, failed.fields, lines)
        except CandidateGone as gone:
            ch.suite_passed = False
            out = _from_gone(gone, ch, lines)
        out["integrity"] = shadow.integrity()
        out["notes"] = shadow.notes
        return out

    def _classic(self, program, limits, acc):
        """The reference harness's program (prompt + completion + test + check) run whole in one process."""
        ch = Channel(self.zsock, limits)
        ch.begin_suite()
        ok = ch.load({"program": program, "suite": None})      # passes when the whole program ran
        cpu = ch.suite_cpu()
        acc.finish(ch, keep_output=False)
        if ok:
            return {"status": "passed", "class": None, "detail": "", "cpu_s": round(cpu, 4)}
        gone = ch.gone or CandidateGone("runtime_error", "the one-process program did not finish")
        cls = "wrong_answer" if gone.exc_type == "AssertionError" else gone.reason
        return {"status": "failed", "class": cls, "detail": gone.detail[:500], "exc_type": gone.exc_type,
                "cpu_s": round(cpu, 4)}


class _Compiled:
    """A split suite with its process code compiled, marshalled and encoded once."""

    def __init__(self, split, future_flags):
        self.split = split
        code = compile(split.tree, "<test>", "exec", flags=future_flags, dont_inherit=True)
        self.code_b64 = base64.b64encode(marshal.dumps(code)).decode()


class _Accumulated:
    """What every candidate process of one evaluation adds to its result."""

    def __init__(self):
        self.suites = {}
        self.classic = None
        self.load_failure = None
        self.cpu_s = 0.0
        self.maxrss_kb = 0
        self.out_bytes = 0
        self.processes = 0
        self.kept = bytearray()
        self.violations = set()
        self.tamper = set()
        self.notes = []
        self.exit = ""
        self.timings = {}
        self.t_suites = 0.0

    def finish(self, ch, keep_output=True):
        t = time.monotonic()
        info = ch.collect()
        self.timings["t_collect"] = time.monotonic() - t
        self.cpu_s += float(info.get("cpu_s") or 0.0)
        self.maxrss_kb = max(self.maxrss_kb, int(info.get("maxrss_kb") or 0))
        self.out_bytes += ch.out_bytes
        self.processes += 1
        self.timings.setdefault("t_spawn", ch.t_spawn)
        if getattr(ch, "t_loaded", None) is not None:
            self.timings.setdefault("t_loaded", ch.t_loaded)
        if keep_output and len(self.kept) < (int(ch.limits["output_keep_kb"]) << 10):
            self.kept += ch.kept
        self.violations |= set(ch.violations)
        self.tamper |= set(ch.tamper)
        if keep_output:
            self.exit = "signal %s" % info.get("signal") if info.get("signal") else "exit %s" % info.get("exit")

    def result(self, wall_s):
        out = {"suites": self.suites, "cpu_s": self.cpu_s, "maxrss_kb": self.maxrss_kb, "out_bytes": self.out_bytes,
               "stdout": self.kept.decode("utf-8", "replace"), "violations": sorted(self.violations),
               "tamper": sorted(self.tamper), "exit": self.exit, "processes": self.processes,
               "notes": self.notes[:20], "protocol": PROTOCOL, "wall_s": wall_s, "t_suites": self.t_suites,
               **self.timings}
        if self.classic is not None:
            out["classic"] = self.classic
        return out


def _confirm_end(ch):
    """The test's end is the process's loop answering once the test's code has returned: a token sent
    only now, echoed from there. A program that writes an end of its own while the test still runs is
    not there to answer (one that reads the token itself is in-process control, recorded as such)."""
    token = os.urandom(8).hex()
    ch.send({"fin": token})
    for _ in range(HELD_REPORTS_AFTER_END):
        msg = ch.recv()
        if msg.get("k") == "fin":
            if msg.get("tok") != token:
                raise SuiteFailed("tampering", "the end of the test was confirmed with a wrong token")
            return
        if msg.get("k") not in ("h", "t", "x", "imp"):
            raise SuiteFailed("tampering", "a %s report came after the end of the test" % str(msg.get("k"))[:20])
    raise SuiteFailed("tampering", "reports kept coming after the end of the test")


HELD_REPORTS_AFTER_END = 1000       # a thread of the test's may still report while the end is confirmed


def _from_gone(gone, ch, lines):
    fields = {}
    return _suite_fail(gone.reason, gone.detail, gone.exc_type, ch, fields, lines)


def _suite_fail(cls, detail, exc_type, ch, fields, lines):
    if ch is not None and ch.violations and cls in ("runtime_error", "premature_exit", "wrong_answer"):
        detail = "%s; attempted: %s" % (detail, "; ".join(ch.violations[:3]))
        cls = "sandbox_violation"
    out = {"status": "failed", "class": cls, "detail": detail[:500], "exc_type": exc_type}
    line = fields.get("line")
    if type(line) is int:
        out["line"] = line
        source = fields.get("source") or (lines[line - 1].strip() if lines and 0 < line <= len(lines) else "")
        out["source"] = str(source)[:300]
    for key in ("returned", "expected"):
        if fields.get(key) is not None:
            out[key] = str(fields[key])[:300]
    return out


_ = sys
