"""The boundary self-probe: a program run exactly as a candidate runs, reporting what it can reach.
Standard library only.
"""

import json
import os
import sys

from .channel import CandidateGone, Channel

PROBE_PROGRAM = r'''
import os, socket, json, sys, sysconfig
report = {}
def attempt(fn):
    try:
        return {"ok": True, "value": fn()}
    except BaseException as e:
        return {"ok": False, "error": "%s: %s" % (type(e).__name__, e)}
def udp_route(host):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect((host, 53))
        return s.getsockname()[0]
    finally:
        s.close()
def probe():
    r = {}
    r["interfaces"] = attempt(lambda: [n for _, n in socket.if_nameindex()])
    r["route_public"] = attempt(lambda: udp_route("192.0.2.1"))
    r["route_gateway"] = attempt(lambda: udp_route("172.17.0.1"))
    r["loopback_tcp"] = attempt(lambda: socket.create_connection(("127.0.0.1", 2375), timeout=0.5).close())
    def resolvers():
        try:
            lines = open("/etc/resolv.conf").read().splitlines()
        except OSError:
            return []
        return [l.split()[1] for l in lines if l.startswith("nameserver") and len(l.split()) > 1]
    r["resolvers"] = attempt(resolvers)
    r["resolver_routes"] = {ns: attempt(lambda ns=ns: udp_route(ns)) for ns in (r["resolvers"].get("value") or [])
                            if ":" not in ns}
    r["docker_socket"] = [p for p in ("/var/run/docker.sock", "/run/docker.sock") if os.path.exists(p)]
    r["shadow_read"] = attempt(lambda: len(open("/etc/shadow").read()))
    def environ_of(pid):
        data = open("/proc/%s/environ" % pid, "rb").read()
        return [kv.split(b"=", 1)[0].decode("utf-8", "replace") for kv in data.split(b"\0") if kv]
    r["pid1_environ_keys"] = attempt(lambda: environ_of(1))
    r["own_environ_keys"] = sorted(os.environ)
    import hashlib
    def env_hashes():
        out = []
        for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
            try:
                data = open("/proc/%s/environ" % pid, "rb").read()
            except OSError:
                continue
            out += [hashlib.sha256(kv.split(b"=", 1)[1]).hexdigest() for kv in data.split(b"\0") if b"=" in kv]
        out += [hashlib.sha256(v.encode()).hexdigest() for v in os.environ.values()]
        return sorted(set(out))
    r["environ_value_sha256"] = attempt(env_hashes)
    writes = {}
    for d in ("/", "/usr", "/etc", "/opt", sysconfig.get_paths()["purelib"], sysconfig.get_paths()["stdlib"]):
        def w(d=d):
            p = os.path.join(d, ".passgate-probe")
            with open(p, "w") as fh:
                fh.write("x")
            os.unlink(p)
            return "written"
        writes[d] = attempt(w)
    r["writes"] = writes
    def scratch():
        with open("probe.txt", "w") as fh:
            fh.write("x")
        return os.getcwd()
    r["scratch_write"] = attempt(scratch)
    st = os.statvfs("/")
    r["root_readonly"] = bool(st.f_flag & os.ST_RDONLY)
    tmp = os.statvfs("/tmp")
    r["tmp_bytes"] = tmp.f_blocks * tmp.f_frsize
    r["uid"] = os.getuid()
    r["gid"] = os.getgid()
    def caps():
        for line in open("/proc/self/status"):
            if line.startswith("CapEff"):
                return line.split()[1]
    r["cap_eff"] = attempt(caps)
    def libc_call(name, *args):
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        rc = getattr(libc, name)(*args)
        return {"rc": rc, "errno": ctypes.get_errno()}
    r["mount"] = attempt(lambda: libc_call("mount", b"none", b"/tmp", b"tmpfs", 0, None))
    r["ptrace_pid1"] = attempt(lambda: libc_call("ptrace", 16, 1, None, None))
    r["kill_pid1"] = attempt(lambda: os.kill(1, 0))
    def forks():
        import resource, time
        limit = resource.getrlimit(resource.RLIMIT_NPROC)[0]
        pids = []
        try:
            for _ in range(limit + 8):
                pid = os.fork()
                if pid == 0:
                    time.sleep(5)
                    os._exit(0)
                pids.append(pid)
        except OSError as e:
            err = e.errno
        else:
            err = None
        for pid in pids:
            try:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
            except OSError:
                pass
        return {"forked": len(pids), "nproc_limit": limit, "errno": err}
    r["processes"] = attempt(forks)
    def memory():
        import resource
        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
        try:
            b = bytearray(limit + (64 << 20))
            return {"allocated_over_limit": True, "limit": limit}
        except MemoryError:
            return {"allocated_over_limit": False, "limit": limit}
    r["memory"] = attempt(memory)
    r["uname"] = list(os.uname())
    def cgroup_mem():
        for p in ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory.max"):
            if os.path.exists(p):
                return open(p).read().strip()
    r["cgroup_memory"] = attempt(cgroup_mem)
    return json.dumps(r)
'''


def run_probe(grader, limits):
    ch = Channel(grader.zsock, limits)
    try:
        ch.begin_suite()
        if not ch.load({"program": PROBE_PROGRAM, "probe": True, "suite": None}):
            return {"error": "probe did not load: %s %s" % (ch.gone.reason, ch.gone.detail)}
        msg = ch.recv()
        report = json.loads(msg["report"]) if msg.get("k") == "probe" else {"error": "probe sent %r" % msg}
    except CandidateGone as gone:
        report = {"error": "probe ended: %s %s" % (gone.reason, gone.detail)}
    except (ValueError, TypeError) as exc:
        report = {"error": "probe report unreadable: %s" % exc}
    finally:
        info = ch.collect()
    report["probe_exit"] = info
    report["worker"] = {"uid": os.getuid(), "pid": os.getpid(), "python": sys.version.split()[0],
                        "environ_keys": sorted(os.environ), "stdlib_modules": sorted(sys.stdlib_module_names)}
    return report
