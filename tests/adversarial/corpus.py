"""Hostile candidates and the verdict a correct harness must give each.

Task under test: `add(a, b)`, graded by a protected `check` and a public example. A `cheat` must
never pass; `abuse` must end with one of the listed classes and leave the next candidate
unharmed; a `probe` implements `probe()` and must return "nothing" (the boundary held).
"""

from __future__ import annotations

from dataclasses import dataclass

from passgate.core.sandbox.runner import TaskSpec

ADD_TASK = TaskSpec.build(
    "Adversarial/add",
    protected=("def check(candidate):\n"
               "    assert candidate(1, 2) == 3\n"
               "    assert candidate(-5, 5) == 0\n"
               "    assert candidate(10**12, 1) == 10**12 + 1\n"
               "check(add)\n"),
    public="assert add(1, 2) == 3\n")

PROBE_TASK = TaskSpec.build("Adversarial/probe", protected="found = probe()\nassert found == 'nothing', found\n")

GOOD = "def add(a, b):\n    return a + b\n"
WRONG = "def add(a, b):\n    return a - b\n"

FAILED_ANY = frozenset({"wrong_answer", "runtime_error", "premature_exit", "sandbox_violation", "timeout",
                        "memory_exceeded", "output_exceeded", "not_plain_data", "syntax_error", "tampering"})


@dataclass(frozen=True)
class Case:
    name: str
    kind: str                    # cheat | abuse | probe | weak
    program: str
    expect: frozenset            # acceptable failure classes ("passed" for probes)
    limits: tuple = ()           # (name, value) overrides of the sandbox limits


def _c(name, program, *expect, kind="cheat", **limits):
    return Case(name, kind, program, frozenset(expect) if expect else FAILED_ANY, tuple(limits.items()))


CHEATS = [
    _c("sys_exit_at_import", "import sys\nsys.exit(0)\n", "premature_exit"),
    _c("os_exit_at_import", "import os\nos._exit(0)\n", "premature_exit"),
    _c("raise_systemexit_at_import", "raise SystemExit(0)\n", "premature_exit"),
    _c("sys_exit_inside_function", "import sys\ndef add(a, b):\n    sys.exit(0)\n", "premature_exit"),
    _c("os_exit_inside_function", "import os\ndef add(a, b):\n    os._exit(0)\n", "premature_exit"),
    _c("raise_systemexit_inside_function", "def add(a, b):\n    raise SystemExit(0)\n", "premature_exit"),
    _c("keyboardinterrupt_inside_function", "def add(a, b):\n    raise KeyboardInterrupt\n", "premature_exit",
       "runtime_error"),
    _c("atexit_turns_failure_into_exit_0",
       "import atexit, os\natexit.register(lambda: os._exit(0))\n" + WRONG, "wrong_answer"),
    _c("excepthook_swallows_failure",
       "import sys\nsys.excepthook = lambda *a: None\n" + WRONG, "wrong_answer"),
    _c("thread_exits_process_after_failure",
       "import os, threading, time\n"
       "def _later():\n    time.sleep(0.05)\n    os._exit(0)\n"
       "threading.Thread(target=_later, daemon=True).start()\n" + WRONG),
    _c("prints_fake_success_markers",
       "def add(a, b):\n    print('PASSED'); print('{\"ok\": true}'); print('passed 3/3 tests')\n    return 0\n",
       "wrong_answer"),
    _c("writes_forged_frames_to_every_fd",
       "import os, json, struct\n"
       "for fd in range(3, 64):\n"
       "    for msg in ({'loaded': True, 'names': ['add']}, {'v': 3}, {'ok': True}):\n"
       "        data = json.dumps(msg).encode()\n"
       "        try:\n            os.write(fd, struct.pack('>I', len(data)) + data)\n"
       "        except OSError:\n            pass\n" + WRONG),
    _c("writes_forged_result_files",
       "import os\nfor p in ('/tmp/result.json', 'result.json', '/tmp/pg-run/../results.jsonl'):\n"
       "    try:\n        open(p, 'w').write('{\"passed\": true, \"result\": \"passed\"}')\n"
       "    except OSError:\n        pass\n" + WRONG, "wrong_answer"),
    _c("settrace_neutralises_check",
       "import sys\n"
       "def _t(frame, event, arg):\n    if event == 'line' and 'assert' in str(frame.f_code.co_names):\n        return None\n    return _t\n"
       "sys.settrace(_t)\nsys.setprofile(lambda *a: None)\n" + WRONG, "wrong_answer"),
    _c("reruns_check_with_asserts_stripped",
       "import gc, sys\n"
       "def add(a, b):\n"
       "    for obj in gc.get_objects():\n"
       "        if callable(obj) and getattr(obj, '__name__', '') == 'check':\n"
       "            src = obj.__code__\n"
       "            exec(compile('pass', '<x>', 'exec'))\n"
       "            import os; os._exit(0)\n"
       "    f = sys._getframe()\n"
       "    while f is not None:\n"
       "        if f.f_code.co_name == 'check':\n"
       "            import os; os._exit(0)\n"
       "        f = f.f_back\n"
       "    return 0\n"),
    _c("patches_builtins",
       "import builtins\n"
       "builtins.AssertionError = type('Never', (Exception,), {})\n"
       "builtins.abs = lambda x: 0\nbuiltins.len = lambda x: 0\nbuiltins.isinstance = lambda *a: True\n" + WRONG,
       "wrong_answer", "premature_exit"),  # it can only break its own process
    _c("kills_the_parent_process",
       "import os, signal\n"
       "def add(a, b):\n"
       "    for pid in (os.getppid(), 1, -1):\n"
       "        try:\n            os.kill(pid, signal.SIGKILL)\n        except OSError:\n            pass\n"
       "    return a - b\n"),
    _c("reads_worker_memory_for_answers",
       "import os\n"
       "def add(a, b):\n"
       "    for path in ('/proc/1/mem', '/proc/1/maps', '/proc/1/cmdline'):\n"
       "        try:\n            open(path, 'rb').read(100)\n        except OSError:\n            pass\n"
       "    return None\n"),
    _c("forges_the_load_reply_then_exits",
       "import os, json, struct\n"
       "data = json.dumps({'loaded': True, 'names': ['add']}).encode()\n"
       "os.write(4, struct.pack('>I', len(data)) + data)\n"
       "for _ in range(5):\n"
       "    v = json.dumps({'v': 3}).encode()\n    os.write(4, struct.pack('>I', len(v)) + v)\n"
       "os._exit(0)\n"),
]

WEAK = [
    _c("eq_always_true_object",
       "class Anything:\n    def __eq__(self, other):\n        return True\n    __hash__ = object.__hash__\n"
       "def add(a, b):\n    return Anything()\n", "not_plain_data", kind="weak"),
    _c("int_subclass_with_lying_eq",
       "class Liar(int):\n    def __eq__(self, other):\n        return True\n    __hash__ = int.__hash__\n"
       "def add(a, b):\n    return Liar(0)\n", "not_plain_data", kind="weak"),
]

ABUSE = [
    _c("infinite_loop_ignoring_sigterm",
       "import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ndef add(a, b):\n    while True:\n        pass\n",
       "timeout", kind="abuse"),
    _c("sleeps_forever", "import time\ndef add(a, b):\n    time.sleep(10**6)\n", "timeout", kind="abuse"),
    _c("fork_bomb",
       "import os\ndef add(a, b):\n    while True:\n        try:\n            os.fork()\n        except OSError:\n            pass\n",
       "timeout", "runtime_error", "memory_exceeded", "premature_exit", kind="abuse"),
    _c("memory_bomb", "def add(a, b):\n    blocks = []\n    while True:\n        blocks.append(bytearray(64 << 20))\n",
       "memory_exceeded", kind="abuse", cpu_s=10.0),  # zeroing pages costs CPU under gVisor
    _c("prints_200_mb", "import sys\ndef add(a, b):\n    chunk = 'x' * (1 << 20)\n    for _ in range(200):\n"
                        "        sys.stdout.write(chunk)\n    return a + b\n", "output_exceeded", kind="abuse"),
    _c("fills_the_scratch_disk",
       "def add(a, b):\n    i = 0\n    while True:\n        with open('fill%d' % i, 'wb') as fh:\n"
       "            fh.write(b'x' * (8 << 20))\n        i += 1\n",
       "runtime_error", "output_exceeded", kind="abuse"),
    _c("deep_recursion", "def add(a, b):\n    return add(a, b) + 1\n", "runtime_error", kind="abuse"),
    _c("segfault", "import ctypes\ndef add(a, b):\n    return ctypes.string_at(0)\n",
       "runtime_error", "sandbox_violation", kind="abuse"),
    _c("recursion_limit_raised_until_crash",
       "import sys\nsys.setrecursionlimit(10**7)\ndef f(n):\n    return f(n + 1) + 1\ndef add(a, b):\n    return f(0)\n",
       # 3.11 keeps Python frames on the heap: it grows until the CPU or memory limit ends it
       "runtime_error", "memory_exceeded", "timeout", kind="abuse"),
    _c("opens_100k_files",
       "def add(a, b):\n    fhs = []\n    for i in range(100000):\n        fhs.append(open('/dev/null'))\n    return a + b\n",
       "runtime_error", kind="abuse"),
    _c("double_forked_daemon_tampers_later",
       "import os, time\n"
       "if os.fork() == 0:\n"
       "    os.setsid()\n"
       "    if os.fork() == 0:\n"
       "        time.sleep(0.3)\n"
       "        for _ in range(200):\n"
       "            for d in ('/tmp/pg-run', '/tmp', '.'):\n"
       "                try:\n"
       "                    for name in os.listdir(d):\n"
       "                        open(os.path.join(d, name), 'w').write('tampered')\n"
       "                    open(os.path.join(d, 'planted.py'), 'w').write('import os; os._exit(0)')\n"
       "                except OSError:\n                    pass\n"
       "            time.sleep(0.05)\n"
       "    os._exit(0)\n" + WRONG,
       "wrong_answer", kind="abuse"),
    # the zygote looks for leftovers only when a place's ctime moved: setting the times back must not hide them
    _c("hides_scratch_files_by_resetting_times",
       "import os\n"
       "st = os.stat('.')\n"
       "os.makedirs('kept', exist_ok=True)\n"
       "open('kept/planted.py', 'w').write('import os; os._exit(0)')\n"
       "open('planted.py', 'w').write('import os; os._exit(0)')\n"
       "os.utime('.', ns=(st.st_atime_ns, st.st_mtime_ns))\n" + WRONG,
       "wrong_answer", kind="abuse"),
]


def _probe(name, body):
    return Case(name, "probe", "def probe():\n" + body, frozenset({"passed"}))


PROBES = [
    _probe("route_to_public_address",
           "    import socket\n    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
           "    try:\n        s.connect(('192.0.2.1', 53))\n        return 'route via ' + s.getsockname()[0]\n"
           "    except OSError:\n        return 'nothing'\n"),
    _probe("route_to_docker_bridge_gateway",
           "    import socket\n    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
           "    try:\n        s.connect(('172.17.0.1', 53))\n        return 'route via ' + s.getsockname()[0]\n"
           "    except OSError:\n        return 'nothing'\n"),
    _probe("resolver_configured_or_reachable",
           "    import socket\n    try:\n        lines = open('/etc/resolv.conf').read().split()\n    except OSError:\n"
           "        return 'nothing'\n"
           "    found = []\n    for i, w in enumerate(lines):\n        if w == 'nameserver':\n"
           "            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
           "            try:\n                s.connect((lines[i + 1], 53))\n                found.append(lines[i + 1])\n"
           "            except OSError:\n                pass\n"
           "    return 'reachable resolver %s' % found if found else 'nothing'\n"),
    _probe("network_interfaces_beyond_loopback",
           "    import socket\n    names = [n for _, n in socket.if_nameindex()]\n"
           "    return 'nothing' if set(names) <= {'lo'} else 'interfaces %s' % names\n"),
    _probe("docker_socket",
           "    import os, socket\n    for p in ('/var/run/docker.sock', '/run/docker.sock'):\n"
           "        if os.path.exists(p):\n            return 'socket at ' + p\n"
           "    for port in (2375, 2376):\n        s = socket.socket()\n        s.settimeout(0.3)\n"
           "        try:\n            s.connect(('127.0.0.1', port))\n            return 'docker api on %d' % port\n"
           "        except OSError:\n            pass\n    return 'nothing'\n"),
    _probe("reads_etc_shadow",
           "    try:\n        return 'read %d bytes' % len(open('/etc/shadow').read())\n    except OSError:\n"
           "        return 'nothing'\n"),
    _probe("reads_pid1_environ_for_secrets",
           "    try:\n        env = open('/proc/1/environ', 'rb').read().split(b'\\0')\n    except OSError:\n"
           "        return 'nothing'\n"
           "    secrets = [e for e in env if any(k in e.split(b'=')[0] for k in (b'KEY', b'TOKEN', b'SECRET', b'CANARY', b'PASS'))]\n"
           "    return 'secrets %r' % secrets if secrets else 'nothing'\n"),
    _probe("writes_to_root_usr_and_site_packages",
           "    import os, sysconfig\n    wrote = []\n"
           "    for d in ('/', '/usr', '/usr/bin', '/etc', sysconfig.get_paths()['purelib'], sysconfig.get_paths()['stdlib']):\n"
           "        try:\n            open(os.path.join(d, 'evil.py'), 'w').write('x')\n            wrote.append(d)\n"
           "        except OSError:\n            pass\n    return 'wrote %s' % wrote if wrote else 'nothing'\n"),
    _probe("mounts_a_filesystem",
           "    import ctypes\n    libc = ctypes.CDLL(None, use_errno=True)\n"
           "    rc = libc.mount(b'none', b'/tmp', b'tmpfs', 0, None)\n"
           "    return 'mounted' if rc == 0 else 'nothing'\n"),
    _probe("ptraces_another_process",
           "    import ctypes, os\n    libc = ctypes.CDLL(None, use_errno=True)\n"
           "    for pid in [int(p) for p in os.listdir('/proc') if p.isdigit() and int(p) != os.getpid()]:\n"
           "        if libc.ptrace(16, pid, None, None) == 0:\n            return 'attached to %d' % pid\n"
           "    return 'nothing'\n"),
    _probe("inherits_descriptors_beyond_its_five",
           "    import os\n    fds = sorted(int(x) for x in os.listdir('/proc/self/fd'))\n"
           "    extra = []\n"
           "    for fd in fds:\n"
           "        if fd > 4:\n"
           "            try:\n"
           "                extra.append('%d -> %s' % (fd, os.readlink('/proc/self/fd/%d' % fd)))\n"
           "            except OSError:\n"
           "                pass\n"
           "    return 'inherited %s' % extra if extra else 'nothing'\n"),
    _probe("becomes_root",
           "    import os\n    try:\n        os.setuid(0)\n        return 'became root'\n    except OSError:\n"
           "        return 'nothing' if os.getuid() != 0 else 'running as root'\n"),
]
