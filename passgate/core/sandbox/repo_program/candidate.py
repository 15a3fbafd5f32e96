"""Work done as the unprivileged candidate uid: laying out the repository, the limits and the
environment of the build and the test processes, and killing whatever they leave behind. The grader
(PID 1, root with SETUID/SETGID/KILL only) holds no capability to write the candidate's files, so
the tree is the candidate's own."""

import os
import resource
import shutil
import signal
import sys

from .settings import HOME, PG, REPO, UID


def as_candidate(work):
    """Run `work()` in a forked child as the candidate uid; OSError when it fails."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setgroups([])
            os.setgid(UID)
            os.setuid(UID)
            work()
            code = 0
        except BaseException as exc:  # noqa: BLE001 - the child reports any failure and always reaches _exit
            sys.stderr.write(f"as_candidate: {type(exc).__name__}: {exc}\n")
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        raise OSError(f"laying out the repository failed (status {status})")


def write_files(files, mode=None):
    """Write {path: bytes} into the repository, replacing what is there (called as the candidate)."""
    for path, data in sorted(files.items()):
        target = os.path.join(REPO, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.lexists(target):
            if not os.path.islink(target):
                os.chmod(target, 0o644)
            os.unlink(target)
        with open(target, "wb") as fh:
            fh.write(data)
        if mode is not None:
            os.chmod(target, mode)


def lay_out(tree):
    """The repository in scratch becomes exactly `tree`."""
    def work():
        shutil.rmtree(REPO, ignore_errors=True)
        os.makedirs(REPO)
        os.makedirs(HOME, exist_ok=True)
        write_files(tree)
    as_candidate(work)


def demote(limits):
    """A child's pre-exec step: the candidate uid and the job's rlimits, before the command runs."""
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
    """Every process of the candidate uid, killed from a child holding that uid; then reap them."""
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


def candidate_env(job, extra=None):
    """The environment of the build and the tests: nothing of the grader's, plugin autoload off."""
    paths = [PG] + [os.path.join(REPO, p) for p in job.get("pythonpath", [])]
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": HOME, "LANG": "C.UTF-8", "TZ": "UTC",
           "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": ":".join(paths),
           "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    env.update(extra or {})
    return env
