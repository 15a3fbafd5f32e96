"""Run-time boundary evidence: the self-probe's findings and the container's configuration.

Each check is recorded pass/fail with what it saw. A failed check whose boundary the manifest
and policy say is closed refuses the run before any candidate executes.
"""

from __future__ import annotations

import errno
import hashlib
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    saw: str
    boundary: str               # network | mounts | credentials | filesystem | processes | memory | runtime | image

    def as_dict(self) -> dict:
        return asdict(self)


def _items(values) -> str:
    """A list as words: `lo`, `SETUID, SETGID`, or `none`."""
    return ", ".join(str(v) for v in values) if values else "none"


def _yes(value) -> str:
    return "yes" if value else "no"


def _err(entry) -> str:
    if not isinstance(entry, dict):
        return repr(entry)
    return entry.get("error") or f"succeeded: {entry.get('value')!r}"


def probe_checks(probe: dict, *, canary: str | None, expected_nproc: int, expected_uid: int = 10001) -> list[Check]:
    """Judge what the self-probe found inside the sandbox, running as a candidate runs."""
    if "error" in probe and len(probe) <= 3:
        return [Check("self_probe_ran", False, str(probe.get("error")), "runtime")]
    checks = []
    ifaces = (probe.get("interfaces") or {}).get("value") or []
    checks.append(Check("only_loopback_interface", set(ifaces) <= {"lo"}, f"interfaces: {_items(ifaces)}", "network"))
    for key, label in (("route_public", "route to a public address"), ("route_gateway", "route to the Docker bridge gateway")):
        entry = probe.get(key) or {}
        checks.append(Check(f"no_{key}", not entry.get("ok", True), f"{label}: {_err(entry)}", "network"))
    resolvers = (probe.get("resolvers") or {}).get("value") or []
    routes = probe.get("resolver_routes") or {}
    open_routes = [ns for ns, r in routes.items() if r.get("ok")]
    checks.append(Check("no_resolver_route", not open_routes,
                        f"resolvers: {_items(resolvers)}; reachable: {_items(open_routes)}", "network"))
    sockets = probe.get("docker_socket") or []
    checks.append(Check("docker_socket_absent", not sockets, f"docker sockets present: {_items(sockets)}", "mounts"))
    shadow = probe.get("shadow_read") or {}
    checks.append(Check("shadow_unreadable", not shadow.get("ok", False), f"/etc/shadow: {_err(shadow)}", "filesystem"))
    writes = probe.get("writes") or {}
    written = [d for d, r in writes.items() if r.get("ok")]
    checks.append(Check("system_paths_read_only", bool(writes) and not written,
                        f"writable: {_items(written)} of {_items(sorted(writes))}", "filesystem"))
    scratch = probe.get("scratch_write") or {}
    checks.append(Check("scratch_writable", bool(scratch.get("ok")), f"scratch: {_err(scratch)}", "filesystem"))
    uid = probe.get("uid")
    checks.append(Check("unprivileged_uid", uid == expected_uid, f"uid {uid}", "credentials"))
    caps = (probe.get("cap_eff") or {}).get("value")
    checks.append(Check("no_capabilities", caps is not None and int(caps, 16) == 0, f"CapEff {caps}", "credentials"))
    for key in ("mount", "ptrace_pid1"):
        entry = probe.get(key) or {}
        value = entry.get("value") or {}
        refused = isinstance(value, dict) and value.get("rc", 0) != 0
        ok = (not entry.get("ok")) or refused
        saw = (f"refused with {errno.errorcode.get(value.get('errno'), value.get('errno'))}" if refused
               else _err(entry))
        checks.append(Check(f"{key}_denied", ok, f"{key}: {saw}", "credentials"))
    kill = probe.get("kill_pid1") or {}
    checks.append(Check("cannot_signal_worker", not kill.get("ok", True), f"kill(1, 0): {_err(kill)}", "processes"))
    procs = (probe.get("processes") or {}).get("value") or {}
    forked = procs.get("forked")
    checks.append(Check("process_limit_enforced", forked is not None and forked <= expected_nproc,
                        f"forked {forked} with RLIMIT_NPROC {procs.get('nproc_limit')} (errno {procs.get('errno')})",
                        "processes"))
    mem = (probe.get("memory") or {}).get("value") or {}
    checks.append(Check("memory_limit_enforced", mem.get("allocated_over_limit") is False,
                        f"allocation past RLIMIT_AS {mem.get('limit')}: "
                        f"{'refused' if mem.get('allocated_over_limit') is False else 'allowed or unknown'}", "memory"))
    hashes = set((probe.get("environ_value_sha256") or {}).get("value") or [])
    if canary is not None:
        leaked = hashlib.sha256(canary.encode()).hexdigest() in hashes
        checks.append(Check("canary_not_visible", not leaked and bool(hashes),
                            f"planted canary {'FOUND' if leaked else 'absent'} in {len(hashes)} environment values "
                            f"of every visible process", "credentials"))
    return checks


# the only variables a sandbox container may carry: fixed values set by passgate, none from the host
ALLOWED_ENV = frozenset({"HOSTNAME", "LANG", "PATH", "PYTHONHASHSEED", "TZ"})


def container_checks(inspect: dict, *, runtime: str, image_digest: str, canary: str | None) -> list[Check]:
    """Judge the container's configuration as the engine reports it."""
    hc = inspect.get("HostConfig") or {}
    cfg = inspect.get("Config") or {}
    mounts = inspect.get("Mounts") or []
    env = cfg.get("Env") or []
    checks = [
        Check("runtime", hc.get("Runtime") == runtime, f"runtime {hc.get('Runtime')} (the manifest names {runtime})", "runtime"),
        Check("network_none", hc.get("NetworkMode") == "none", f"network mode {hc.get('NetworkMode')}", "network"),
        Check("no_host_mounts", not mounts and not hc.get("Binds"),
              f"mounts: {_items([m.get('Source') for m in mounts])}", "mounts"),
        Check("read_only_root", bool(hc.get("ReadonlyRootfs")), f"read-only root filesystem: {_yes(hc.get('ReadonlyRootfs'))}", "filesystem"),
        Check("capabilities_dropped", "ALL" in (hc.get("CapDrop") or []) and
              set(hc.get("CapAdd") or []) <= {"SETUID", "SETGID", "KILL", "CAP_SETUID", "CAP_SETGID", "CAP_KILL"},
              f"capabilities dropped: {_items(hc.get('CapDrop'))}; added: {_items(hc.get('CapAdd'))}", "credentials"),
        Check("no_new_privileges", any("no-new-privileges" in s for s in (hc.get("SecurityOpt") or [])),
              f"security options: {_items(hc.get('SecurityOpt'))}", "credentials"),
        Check("not_privileged", not hc.get("Privileged"), f"privileged: {_yes(hc.get('Privileged'))}", "credentials"),
        Check("image_pinned", inspect.get("Image") == image_digest,
              f"container image {inspect.get('Image')} (pinned {image_digest})", "image"),
        Check("memory_limited", bool(hc.get("Memory")), f"memory {hc.get('Memory')} bytes", "memory"),
        Check("pids_limited", bool(hc.get("PidsLimit")), f"pids limit {hc.get('PidsLimit')}", "processes"),
        Check("environment_scrubbed", {e.split("=", 1)[0] for e in env} <= ALLOWED_ENV,
              f"environment keys: {_items(sorted(e.split('=', 1)[0] for e in env))} (allowed: {_items(sorted(ALLOWED_ENV))})",
              "credentials"),
    ]
    if canary is not None:
        checks.append(Check("canary_not_in_config", not any(canary in e for e in env),
                            "planted canary absent from the container environment"
                            if not any(canary in e for e in env) else "planted canary FOUND in the container environment",
                            "credentials"))
    return checks


def failed(checks: list[Check]) -> list[Check]:
    return [c for c in checks if not c.ok]
