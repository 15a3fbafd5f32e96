# The repository grader (PID 1 in the container, root with SETUID/SETGID/KILL): unpacks the snapshot
# into scratch, applies the patch strictly (apply.py, joined before this part), checks that the
# reverse patch restores the snapshot, runs the build and the tests as the unprivileged candidate
# uid, and reads each test's outcome from plugin.py's pipe. Nothing the tests print or return as an
# exit code decides anything.
import base64
import hashlib
import io
import json
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import tarfile
import time

_CFG = globals().get("PASSGATE_CONFIG") or {"uid": 10001, "scratch": "/tmp"}   # the boot line sets it
UID = int(_CFG["uid"])
SCRATCH = _CFG["scratch"]
WORK = os.path.join(SCRATCH, "w")
REPO = os.path.join(WORK, "repo")
PG = os.path.join(SCRATCH, "pg")
HOME = os.path.join(WORK, "home")
SKIP_DIRS = {"__pycache__", ".pytest_cache"}


def _send(obj):
    """One line to the host, written in pieces: a single large write to the attach stream can stall."""
    data = (json.dumps(obj, separators=(",", ":")) + "\n").encode()
    out = sys.stdout.buffer
    for start in range(0, len(data), 8192):
        out.write(data[start:start + 8192])
        out.flush()


def tree_hash(tree):
    digest = hashlib.sha256()
    for path in sorted(tree):
        digest.update(path.encode() + b"\0" + hashlib.sha256(tree[path]).hexdigest().encode() + b"\n")
    return digest.hexdigest()


def unpack(data):
    tree = {}
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tar:
        for member in tar.getmembers():
            name = member.name.lstrip("./")
            if member.isdir() or not name:
                continue
            if not member.isfile() or name.startswith("/") or ".." in name.split("/"):
                raise ValueError(f"snapshot member {member.name!r} is not a plain file inside the tree")
            tree[name] = tar.extractfile(member).read()
    return tree


def as_candidate(work):
    """Run `work()` in a child as the candidate uid: the grader holds no capability to write the
    candidate's files (no CAP_CHOWN, no CAP_DAC_OVERRIDE), so the tree is the candidate's own."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setgroups([])
            os.setgid(UID)
            os.setuid(UID)
            work()
            code = 0
        except BaseException as exc:
            sys.stderr.write(f"as_candidate: {type(exc).__name__}: {exc}\n")
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        raise OSError(f"laying out the repository failed (status {status})")


def _write_files(files, mode=None):
    for path, data in sorted(files.items()):
        target = os.path.join(REPO, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.lexists(target):
            os.chmod(target, 0o644) if not os.path.islink(target) else None
            os.unlink(target)
        with open(target, "wb") as fh:
            fh.write(data)
        if mode is not None:
            os.chmod(target, mode)


def lay_out(tree):
    def work():
        shutil.rmtree(REPO, ignore_errors=True)
        os.makedirs(REPO)
        os.makedirs(HOME, exist_ok=True)
        _write_files(tree)
    as_candidate(work)


def read_tree():
    tree = {}
    for root, dirs, files in os.walk(REPO):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        for name in files:
            full = os.path.join(root, name)
            if os.path.isfile(full) and not os.path.islink(full):
                with open(full, "rb") as fh:
                    tree[os.path.relpath(full, REPO)] = fh.read()
    return tree


def _demote(limits):
    def run():
        os.setgroups([])
        os.setgid(UID)
        os.setuid(UID)
        cpu = int(limits["cpu_s"])
        for what, value in ((resource.RLIMIT_CPU, (cpu, cpu + 1)),
                            (resource.RLIMIT_AS, (int(limits["memory_mb"]) << 20,) * 2),
                            (resource.RLIMIT_NPROC, (int(limits["nproc"]),) * 2),
                            (resource.RLIMIT_NOFILE, (int(limits["nofile"]),) * 2),
                            (resource.RLIMIT_FSIZE, (int(limits["file_size_mb"]) << 20,) * 2),
                            (resource.RLIMIT_CORE, (0, 0))):
            resource.setrlimit(what, value)
    return run


def kill_candidate_processes():
    pid = os.fork()
    if pid == 0:
        try:
            os.setuid(UID)
            os.kill(-1, signal.SIGKILL)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG) == (0, 0):
                break
        except ChildProcessError:
            break


def _env(job, extra=None):
    paths = [PG] + [os.path.join(REPO, p) for p in job.get("pythonpath", [])]
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": HOME, "LANG": "C.UTF-8", "TZ": "UTC",
           "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": ":".join(paths),
           "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    env.update(extra or {})
    return env


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


def run_build(job):
    command = job.get("setup_command") or ""
    if not command:
        return {"status": "passed", "exit": 0, "log_tail": "", "wall_s": 0.0}
    log = os.path.join(PG, "build.log")
    start = time.monotonic()
    with open(log, "wb") as fh:
        proc = subprocess.Popen(["/bin/sh", "-c", command], cwd=REPO, env=_env(job), stdout=fh,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                preexec_fn=_demote(job["limits"]), start_new_session=True)
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


def _read_events(fd, proc, deadline, on_event):
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


def run_tests(job, suite, args, rid):
    """One pytest process; its events as they arrive, and what they add up to."""
    if not args:
        return {"status": "not_run", "tests": {}, "events": 0}
    read_fd, write_fd = os.pipe()
    log = os.path.join(PG, f"{suite}.log")
    start, cpu0 = time.monotonic(), _cpu_of_children()
    with open(log, "wb") as fh:
        proc = subprocess.Popen(_pytest_command(args), cwd=REPO, env=_env(job, {"PASSGATE_REPORT_FD": str(write_fd)}),
                                stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, pass_fds=(write_fd,),
                                preexec_fn=_demote(job["limits"]), start_new_session=True)
        os.close(write_fd)

        def forward(event):
            if event.get("t") == "test":
                _send({"id": rid, "interim": True, "suite": suite, "test": event.get("id"),
                       "outcome": event.get("outcome")})

        events, timed_out = _read_events(read_fd, proc, start + float(job["limits"]["wall_s"]), forward)
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


def _sha(data):
    return hashlib.sha256(data).hexdigest()


def _protected_hashes(paths):
    out = {}
    for path in paths:
        full = os.path.join(REPO, path)
        try:
            with open(full, "rb") as fh:
                out[path] = _sha(fh.read())
        except OSError:
            out[path] = None
    return out


def rollback(tree, patched, patch):
    try:
        restored, _ = apply_patch(patched, patch, reverse=True)  # noqa: F821 - apply.py
    except PatchError as exc:  # noqa: F821
        return {"applies": False, "restores": False, "detail": str(exc)}
    same = tree_hash(restored) == tree_hash(tree)
    return {"applies": True, "restores": same, "detail": "" if same else "the tree differs from the snapshot"}


def changed_files(before, after):
    return sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))


def _prepare(job):
    as_candidate(lambda: shutil.rmtree(WORK, ignore_errors=True) or os.makedirs(HOME))
    shutil.rmtree(PG, ignore_errors=True)
    os.makedirs(PG, mode=0o755)
    for name, text in (("passgate_report.py", job["plugin"]), ("pytest.ini", "[pytest]\n")):
        with open(os.path.join(PG, name), "w") as fh:
            fh.write(text)


def _place_protected(files):
    as_candidate(lambda: _write_files({p: t.encode("utf-8") for p, t in files.items()}, 0o444))


def grade(job, rid):
    _prepare(job)
    result = {"applied": False, "apply_error": "", "build": {"status": "not_run"},
              "public": {"status": "not_run", "tests": {}}, "protected": {"status": "not_run", "tests": {}}}
    tree = unpack(base64.b64decode(job["snapshot"]))
    result["tree_before"] = tree_hash(tree)
    patch = job.get("patch") or ""
    try:
        patched, touched = apply_patch(tree, patch) if patch.strip() else (dict(tree), [])  # noqa: F821
    except PatchError as exc:  # noqa: F821
        result["apply_error"] = str(exc)
        return result
    result.update(applied=True, touched=touched, tree_after=tree_hash(patched))
    result["rollback"] = rollback(tree, patched, patch) if patch.strip() else {"applies": True, "restores": True,
                                                                               "detail": "empty patch"}
    lay_out(patched)
    result["build"] = run_build(job)
    if result["build"]["status"] != "passed":
        return result
    built = read_tree()
    result["public"] = run_tests(job, "public", job.get("public_args") or [], rid)
    result["changed_by_public"] = changed_files(built, read_tree())[:50]
    lay_out(built)                      # the protected run starts from the built tree, not the public run's
    protected = job.get("protected") or {}
    _place_protected(protected)
    before = _protected_hashes(protected)
    result["protected"] = run_tests(job, "protected", job.get("protected_args") or [], rid)
    after = _protected_hashes(protected)
    result["protected_hashes"] = {"before": before, "after": after,
                                  "expected": {p: _sha(t.encode("utf-8")) for p, t in protected.items()}}
    return result


def serve():
    _send({"ready": True, "program": "repo"})
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        request = json.loads(line)
        rid = request.get("id")
        try:
            if request.get("op") != "repo":
                raise ValueError(f"unknown op {request.get('op')!r}")
            reply = grade(request, rid)
        except Exception as exc:  # the grader's own failure: the host sees it as a lost worker
            _send({"id": rid, "worker_error": f"{type(exc).__name__}: {exc}"})
            continue
        _send({"id": rid, **reply})


main = serve          # the container's bootstrap imports the program as a module and calls main()
