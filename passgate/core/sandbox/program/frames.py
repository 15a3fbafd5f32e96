"""Length-prefixed JSON frames between the grader and a candidate process, and the worker's settings.

The JSON encoder and scanner are the C ones, taken when this module is imported (in the zygote,
before any program runs), so a candidate that patches `json`, `builtins` or `struct` in its own
process cannot change how its frames are written. Standard library only.
"""

import json
import json.decoder
import json.encoder
import json.scanner
import os
import struct
import sys

CONFIG = getattr(sys.modules.get(__package__), "CONFIG", None) or {}
LOCAL = bool(CONFIG.get("local"))          # trusted code outside a container (tests): no uid, no kill(-1)
CAND_UID = None if LOCAL else int(CONFIG.get("uid", 10001))
SCRATCH_ROOT = CONFIG.get("scratch", "/tmp")
SCRATCH = os.path.join(SCRATCH_ROOT, "pg-run")
SHARED_DIRS = () if LOCAL else ("/tmp", "/dev/shm")
MAX_FRAME = 64 << 20                       # bytes in one frame
GRADER_BUDGET_S = 600.0                    # the test's own computations in the grader, per suite
CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

_json_encode = json.encoder.c_make_encoder(None, None, json.encoder.encode_basestring_ascii, None, ":", ",",
                                           False, False, True)
_json_scan = json.scanner.c_make_scanner(json.JSONDecoder())
_pack_len = struct.Struct(">I").pack
_unpack_len = struct.Struct(">I").unpack
_os_read, _os_write = os.read, os.write
_bytes, _len, _memoryview, _type = bytes, len, memoryview, type


class BadFrame(Exception):
    """A frame that is too large or not JSON: the sender's failure."""


class FrameTooLarge(BadFrame, ValueError):
    """A frame over MAX_FRAME bytes."""


def dumps(obj):
    return "".join(_json_encode(obj, 0))


def loads(data):
    """JSON text (or UTF-8 bytes) to plain data; ValueError when it is not exactly one JSON value."""
    text = data.decode("utf-8") if _type(data) is _bytes else data
    try:
        value, end = _json_scan(text, 0)
    except StopIteration:             # what the C scanner raises on text that is not a JSON value
        raise ValueError("not a JSON value") from None
    if end != _len(text):
        raise ValueError("extra data")
    return value


def frame_bytes(obj):
    data = dumps(obj).encode()
    if _len(data) > MAX_FRAME:
        raise FrameTooLarge("a frame of %d bytes (the cap is %d)" % (_len(data), MAX_FRAME))
    return _pack_len(_len(data)) + data


def write_all(fd, data):
    view = _memoryview(data)
    while view:
        n = _os_write(fd, view)
        view = view[n:]


def send_frame(fd, obj):
    write_all(fd, frame_bytes(obj))


class FrameReader:
    """Length-prefixed frames from one descriptor, read in large chunks: a frame that fits costs one
    read, not two (a system call is dear under gVisor)."""

    def __init__(self, fd):
        self.fd = fd
        self.buf = bytearray()

    def _fill(self, need):
        while _len(self.buf) < need:
            b = _os_read(self.fd, max(1 << 16, min(need - _len(self.buf), 1 << 20)))
            if not b:
                raise EOFError
            self.buf += b

    def recv(self):
        self._fill(4)
        (n,) = _unpack_len(_bytes(self.buf[:4]))
        if n > MAX_FRAME:
            raise BadFrame("a frame of %d bytes (the cap is %d)" % (n, MAX_FRAME))
        self._fill(4 + n)
        data = _bytes(self.buf[4:4 + n])
        del self.buf[:4 + n]
        try:
            return loads(data)
        except (ValueError, UnicodeDecodeError, RecursionError):
            raise BadFrame("a frame that is not valid JSON") from None


def reap_children():
    """Collect every exited child (orphans are re-parented to PID 1 and to the zygote) without waiting."""
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                return
        except ChildProcessError:
            return
