"""The repository grader's host protocol (PID 1 in the container): a ready line, then one job per
line on stdin and one reply per line on stdout, each with the job's `id`; each test's outcome goes
out as an interim line as it happens. The boot line imports this module and calls `main()`."""

import json
import sys

from .grader import grade


def send(obj):
    """One line to the host, written in pieces: a single large write to the attach stream can stall."""
    data = (json.dumps(obj, separators=(",", ":")) + "\n").encode()
    out = sys.stdout.buffer
    for start in range(0, len(data), 8192):
        out.write(data[start:start + 8192])
        out.flush()


def _reply(request):
    rid = request.get("id")
    if request.get("op") != "repo":
        raise ValueError(f"unknown op {request.get('op')!r}")

    def on_test(suite, event):
        send({"id": rid, "interim": True, "suite": suite, "test": event.get("id"), "outcome": event.get("outcome")})

    return grade(request, on_test)


def main():
    send({"ready": True, "program": "repo"})
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        request = json.loads(line)
        rid = request.get("id")
        try:
            reply = _reply(request)
        except Exception as exc:  # noqa: BLE001 - the grader's own failure: the host sees it as a lost worker
            send({"id": rid, "worker_error": f"{type(exc).__name__}: {exc}"})
            continue
        send({"id": rid, **reply})
