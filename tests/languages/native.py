"""The dataset's own program run by the language's own toolchain outside the sandbox, and the
verdict that dataset's harness gives it: the reference side of the agreement table."""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
import io
import tempfile
import time
from pathlib import Path

from passgate.core.languages.spec import Program

from .driver import Execution

# the host command standing in for each image command (None: the host lacks the toolchain)
HOST_TOOLS = {"node": "node", "tsc": None, "g++": "g++", "javac": "javac", "java": "java", "rustc": None,
              "bash": "bash", "go": None, "./main": "./main"}
# rustc: the host's rustc (rustup) lacks the crates the image compiled (rand, regex, md5): the image under runc runs it


def host_can_run(program: Program) -> bool:
    argvs = [program.run_argv] + ([program.compile_argv] if program.compile_argv else [])
    return all(HOST_TOOLS.get(argv[0]) and shutil.which(HOST_TOOLS[argv[0]]) or argv[0].startswith("./")
               for argv in argvs)


def run_on_host(program: Program, *, support: dict[str, bytes] | None = None, compile_timeout: float = 60,
                run_timeout: float = 10) -> Execution:
    """Compile and run in a temporary directory on the host, as the reference harnesses do."""
    with tempfile.TemporaryDirectory(prefix="pg-native-") as tmp:
        for f in program.files:
            Path(tmp, f.path).parent.mkdir(parents=True, exist_ok=True)
            Path(tmp, f.path).write_text(f.text)
        for name, data in (support or {}).items():
            Path(tmp, name).write_bytes(data)
        for name, where in program.archives:
            with tarfile.open(fileobj=io.BytesIO(Path(tmp, name).read_bytes())) as tar:
                tar.extractall(Path(tmp, where))
        Path(tmp, ".tmp").mkdir()
        env = {"PATH": os.environ["PATH"], "HOME": tmp, "TMPDIR": f"{tmp}/.tmp", "LANG": "C.UTF-8",
               **{k: v.replace("{scratch}", tmp) for k, v in program.env}}
        compile_status, compile_out, compile_s = None, "", 0.0
        if program.compile_argv:
            compile_status, compile_out, _, compile_s, _ = _run(program.compile_argv, tmp, env, compile_timeout)
        if compile_status not in (None, 0):
            return Execution(compile_status, compile_out, None, "", "", b"", compile_s, 0.0, False)
        status, out, err, run_s, timed_out = _run(program.run_argv, tmp, env, run_timeout)
        return Execution(compile_status, compile_out, status, out, err, b"", compile_s, run_s, timed_out)


def _run(argv, cwd: str, env: dict, timeout: float):
    started = time.perf_counter()
    try:
        done = subprocess.run(list(argv), cwd=cwd, env=env, capture_output=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
        elapsed = time.perf_counter() - started
        text = lambda b: b[-(1 << 20):].decode("utf-8", errors="replace")  # noqa: E731
        return done.returncode, text(done.stdout) + ("" if done.stderr is None else ""), text(done.stderr), \
            elapsed, False
    except subprocess.TimeoutExpired:
        return None, "", "timeout", time.perf_counter() - started, True


def dataset_verdict(dataset: str, language: str, ex: Execution) -> bool:
    """Pass or fail as the dataset's own harness decides from one run of its program.

    HumanEval-X (CodeGeeX's execution.py): compiled languages by exit status; JavaScript passes when
    the program printed nothing at all (console.assert only prints). MultiPL-E: exit status 0.
    """
    if ex.timed_out or ex.compile_status not in (None, 0) or ex.run_status is None:
        return False
    if dataset == "humaneval-x" and language == "js":
        return not ex.stdout and not ex.stderr
    return ex.run_status == 0
