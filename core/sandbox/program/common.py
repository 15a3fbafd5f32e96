"""Shared by every role in the sandbox: configuration, limits and length-prefixed JSON frames.

Part of the sandbox worker program (see worker.py): the parts in core/sandbox/program/ are sent into
the container as one source text, in the order docker_runner.PROGRAM_PARTS gives, and share one
namespace there, whose builtins are a copy taken before any candidate ran. Standard library only.
The JSON encoder and scanner are the C ones, taken here, so a candidate that patches `json`,
`builtins` or `struct` in its own process cannot break its side of the channel.
"""

import errno
import gc
import json
import json.decoder
import json.encoder
import json.scanner
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
LOCAL = bool(CONFIG.get("local"))           # trusted code outside a container (tests): no uid, no kill(-1)
CAND_UID = None if LOCAL else int(CONFIG.get("uid", 10001))
SCRATCH_ROOT = CONFIG.get("scratch", "/tmp")
SCRATCH = os.path.join(SCRATCH_ROOT, "pg-run")
SHARED_DIRS = () if LOCAL else ("/tmp", "/dev/shm")
MAX_FRAME = 64 << 20                        # bytes in one frame on the call pipe
GRADER_BUDGET_S = 600.0
MAX_DEPTH = 32                              # calls nested across the pipe (callbacks calling back)
MAX_CALLBACKS = 1_000_000                   # callbacks served within one top-level call
MAX_HANDLES = 100_000                       # objects one end may hand the other as handles
SIGNALS_IGNORED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2, signal.SIGPIPE)
CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

_json_encode = json.encoder.c_make_encoder(None, None, json.encoder.encode_basestring_ascii, None, ":", ",",
                                           False, False, True)
_json_scan = json.scanner.c_make_scanner(json.JSONDecoder())
_pack_len = struct.Struct(">I").pack
_unpack_len = struct.Struct(">I").unpack
_os_read, _os_write = os.read, os.write


class BadFrame(BaseException):
    """A frame that is too large or not JSON: the sender's failure (BaseException: tests never catch it)."""


def dumps(obj):
    return "".join(_json_encode(obj, 0))


def loads(data):
    """JSON text (or UTF-8 bytes) to plain data; ValueError when it is not exactly one JSON value."""
    text = data.decode("utf-8") if type(data) is bytes else data
    try:
        value, end = _json_scan(text, 0)
    except StopIteration:             # what the C scanner raises on text that is not a JSON value
        raise ValueError("not a JSON value") from None
    if end != len(text):
        raise ValueError("extra data")
    return value


def frame_bytes(obj):
    data = dumps(obj).encode()
    if len(data) > MAX_FRAME:
        raise BadFrame("a frame of %d bytes (the cap is %d)" % (len(data), MAX_FRAME))
    return _pack_len(len(data)) + data


def _send_frame(fd, obj):
    view = memoryview(frame_bytes(obj))
    while view:
        n = _os_write(fd, view)
        view = view[n:]


class FrameReader:
    """Length-prefixed frames from one descriptor, read in large chunks: a frame that fits costs one
    read, not two (a system call is dear under gVisor)."""

    def __init__(self, fd):
        self.fd = fd
        self.buf = bytearray()

    def _fill(self, need):
        while len(self.buf) < need:
            b = _os_read(self.fd, max(1 << 16, min(need - len(self.buf), 1 << 20)))
            if not b:
                raise EOFError
            self.buf += b

    def recv(self):
        self._fill(4)
        (n,) = _unpack_len(bytes(self.buf[:4]))
        if n > MAX_FRAME:
            raise BadFrame("a frame of %d bytes (the cap is %d)" % (n, MAX_FRAME))
        self._fill(4 + n)
        data = bytes(self.buf[4:4 + n])
        del self.buf[:4 + n]
        try:
            return loads(data)
        except (ValueError, UnicodeDecodeError, RecursionError):
            raise BadFrame("a frame that is not valid JSON") from None


def _reap_children():
    """Collect every exited child (orphans are re-parented to PID 1 and to the zygote) without waiting."""
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                return
        except ChildProcessError:
            return
