"""passgate sandbox worker: PID 1 of a long-lived container, grading one candidate at a time.

Sent into the container over stdin as modules (core/sandbox/program/), imported by a small loader at
boot; standard library only. Three roles:

* grader (this process, PID 1, root with SETUID/SETGID/KILL only): holds each task's tests, split
  into the code the candidate's process runs and the plan the grader follows; decides every site.
* zygote: forked at start-up, before any task data arrives, so its memory never holds tests or
  expected answers. It forks each candidate process and reports its exit status and rusage.
* candidate: forked from the zygote, own session, rlimits, dropped to an unprivileged uid, empty
  environment, fresh scratch directory; runs the program and then the test, and reports.

Host protocol: one JSON object per line on stdin, one reply per line on stdout, each with the
request's `id`. Ops: ping, task, eval, probe.
"""

import gc
import os
import json
import signal
import sys

from .candidate import SIGNALS_IGNORED
from .frames import reap_children
from .grader import Grader
from .probe import run_probe


def _say(out, obj):
    """A line before the reply (the controller reads the host's view of the sandbox at that moment)."""
    out.write(json.dumps(obj) + "\n")
    out.flush()


def main():
    for s in SIGNALS_IGNORED:
        signal.signal(s, signal.SIG_IGN)
    grader = Grader()
    grader.start_zygote()
    gc.collect()
    gc.freeze()
    out = sys.stdout
    out.write(json.dumps({"ready": True, "pid": os.getpid(), "uid": os.getuid(),
                          "python": sys.version.split()[0]}) + "\n")
    out.flush()
    stdin = sys.stdin.buffer
    while True:
        line = stdin.readline()
        if not line:
            break
        if not line.strip():
            continue
        try:
            req = json.loads(line)
        except ValueError:
            continue
        rid = req.get("id")
        try:
            op = req.get("op")
            if op == "ping":
                res = {"pong": True}
            elif op == "task":
                grader.add_task(req)
                res = {"ok": True}
            elif op == "eval":
                res = grader.evaluate(req, lambda note, rid=rid: _say(out, {**note, "id": rid, "interim": True}))
            elif op == "probe":
                res = run_probe(grader, req["limits"])
            else:
                res = {"error": "unknown op %r" % (op,)}
        except BaseException as exc:  # the worker must answer every request
            import traceback
            res = {"worker_error": "%s: %s" % (type(exc).__name__, exc),
                   "trace": traceback.format_exc()[-2000:]}
        res["id"] = rid
        reap_children()
        out.write(json.dumps(res) + "\n")
        out.flush()
