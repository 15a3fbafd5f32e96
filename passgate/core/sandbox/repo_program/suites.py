"""The build and the pytest runs, each a process of the candidate uid under the job's limits. A
test's outcome is what plugin.py wrote to the pipe as it happened; the process's exit code and
output are kept for the record and decide nothing."""

import json
import os
import resource
import select
import subprocess
import time

from .candidate import candidate_env, demote, kill_candidate_processes
from .settings import PG, REPO


def _tail(path, size=4000):
    try:
        with open(path, "rb") as fh:
            fh.seek(0, 2)
            fh.seek(max(0, fh.tell() - size))
            return fh.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _cpu_of_children():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _spawn(command, job, out, **extra):
    """A process of the candidate uid in its own session. preexec_fn is safe here: the grader has
    one thread."""
    return subprocess.Popen(command, cwd=REPO, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            preexec_fn=demote(job["limits"]), start_new_session=True, **extra)  # noqa: PLW1509


def run_build(job):
    command = job.get("setup_command") or ""
    if not command:
        return {"status": "passed", "exit": 0, "log_tail": "", "wall_s": 0.0}
    log = os.path.join(PG, "build.log")
    start = time.monotonic()
    with open(log, "wb") as fh:
        proc = _spawn(["/bin/sh", "-c", command], job, fh, env=candidate_env(job))
        try:
            code = proc.wait(timeout=float(job["limits"]["wall_s"]))
            status = "passed" if code == 0 else "failed"
        except subprocess.TimeoutExpired:
            code, status = None, "timeout"
    kill_candidate_processes()
    return {"status": status, "exit": code, "log_tail": _tail(log, 2000), "wall_s": round(time.monotonic() - start, 3)}


def _pytest_command(args):
    return ["/usr/bin/python3", "-B", "-m", "pytest", "-c", os.path.join(PG, "pytest.ini"), "--rootdir", REPO,
            "-p", "passgate_report", "-p", "no:cacheprovider", "-q", "--color=no", "-o", "console_output_style=classic",
            *args]


def _read_events(fd, deadline, on_event):
    """The plugin's events until the pipe closes (False) or the deadline passes (True)."""
    buf, events = b"", []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return events, True
        ready, _, _ = select.select([fd], [], [], min(left, 1.0))
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            return events, False
        buf += chunk
        *lines, buf = buf.split(b"\n")
        for line in lines:
            try:
                event = json.loads(line)
            except ValueError:
                event = {"t": "garbled", "text": line[:200].decode("utf-8", "replace")}
            events.append(event)
            on_event(event)


def run_tests(job, suite, args, on_test):
    """One pytest process; `on_test(suite, event)` for each test as it is reported, and what the
    events add up to."""
    if not args:
        return {"status": "not_run", "tests": {}, "events": 0}
    read_fd, write_fd = os.pipe()
    log = os.path.join(PG, f"{suite}.log")
    start, cpu0 = time.monotonic(), _cpu_of_children()
    with open(log, "wb") as fh:
        proc = _spawn(_pytest_command(args), job, fh, env=candidate_env(job, {"PASSGATE_REPORT_FD": str(write_fd)}),
                      pass_fds=(write_fd,))
        os.close(write_fd)

        def forward(event):
            if event.get("t") == "test":
                on_test(suite, event)

        events, timed_out = _read_events(read_fd, start + float(job["limits"]["wall_s"]), forward)
        os.close(read_fd)
        kill_candidate_processes()
        try:
            code = proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            code = None
    return summarise(events, timed_out, code, _tail(log), time.monotonic() - start, _cpu_of_children() - cpu0)


def summarise(events, timed_out, code, log_tail, wall, cpu):
    tests, duplicates, collected, errors, finished, garbled = {}, [], None, [], None, 0
    for event in events:
        kind = event.get("t")
        if kind == "test":
            if event.get("id") in tests:
                duplicates.append(event.get("id"))
            tests[event.get("id")] = {"outcome": event.get("outcome"), "text": (event.get("text") or "")[-800:]}
        elif kind == "collected":
            collected = len(event.get("ids") or [])
        elif kind == "collect_error":
            errors.append({"id": event.get("id"), "text": (event.get("text") or "")[-1200:]})
        elif kind == "finish":
            finished = event.get("exitstatus")
        else:
            garbled += 1
    return {"status": "ran", "tests": tests, "duplicates": duplicates, "collected": collected,
            "collect_errors": errors, "finished": finished is not None, "pytest_exit": finished,
            "process_exit": code, "timed_out": timed_out, "garbled": garbled, "log_tail": log_tail[-3000:],
            "wall_s": round(wall, 3), "cpu_s": round(cpu, 3)}
