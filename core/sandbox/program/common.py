"""Shared by every role in the sandbox: configuration, limits and length-prefixed JSON frames.

Part of the sandbox worker program (see worker.py): the parts in core/sandbox/program/ are sent into
the container as one source text, in the order docker_runner.PROGRAM_PARTS gives, and share one
namespace there. Standard library only.
"""

import errno
import gc
import json
import os
import resource
import select
import signal
import socket
import struct
import sys
import time

import builtins as _builtins
import fcntl
import random as _random

CONFIG = globals().get("PASSGATE_CONFIG") or {}
CAND_UID = int(CONFIG.get("uid", 10001))
SCRATCH_ROOT = CONFIG.get("scratch", "/tmp")
SCRATCH = os.path.join(SCRATCH_ROOT, "pg-run")
SHARED_DIRS = ("/tmp", "/dev/shm")
MAX_MSG = 64 << 20
GRADER_BUDGET_S = 600.0
SIGNALS_IGNORED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2, signal.SIGPIPE)
CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _send_frame(fd, obj):
    data = json.dumps(obj, separators=(",", ":")).encode()
    payload = struct.pack(">I", len(data)) + data
    view = memoryview(payload)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _recv_exact(fd, n):
    chunks = []
    while n:
        b = os.read(fd, min(n, 1 << 20))
        if not b:
            raise EOFError
        chunks.append(b)
        n -= len(b)
    return b"".join(chunks)


def _recv_frame(fd):
    (n,) = struct.unpack(">I", _recv_exact(fd, 4))
    if n > MAX_MSG:
        raise ValueError("message too large")
    return json.loads(_recv_exact(fd, n))


def _reap_children():
    """Collect every exited child (orphans are re-parented to PID 1 and to the zygote) without waiting."""
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                return
        except ChildProcessError:
            return
