"""Run-time boundary evidence: the self-probe's findings and the container's configuration.

Each check is recorded pass/fail with what it saw. A failed check whose boundary the manifest
and policy say is closed refuses the run before any candidate executes.
"""

from __future__ import annotations

import errno
import hashlib
from dataclasses import asdict, dataclass, replace


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    saw: str
    boundary: str               # network | mounts | credentials | filesystem | processes | memory | runtime | image

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class SandboxConfig:
    """A sandbox's configuration as its runtime reports it, in passgate's words (each runner reads its
    runtime's own format into this; the checks below judge it)."""

    runtime: str | None
    network: str | None
    mounts: tuple[str, ...]              # sources of what is mounted into the sandbox
    bind_mounts: tuple[str, ...]         # host paths asked to be bound in
    read_only_root: bool
    capabilities_dropped: tuple[str, ...]
    capabilities_added: tuple[str, ...]
    security_options: tuple[str, ...]
    privileged: bool
    image: str | None
    memory_bytes: int | None
    pids_limit: int | None
    environment: tuple[str, ...]         # KEY=value, as the sandbox's processes start with it

    def same_host_settings(self, other: SandboxConfig) -> bool:
        """Equal apart from the image and its environment (each language has its own)."""
        return replace(self, image=None, environment=()) == replace(other, image=None, environment=())


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


def container_checks(config: SandboxConfig, *, runtime: str, image_digest: str, canary: str | None) -> list[Check]:
    """Judge the sandbox's configuration as its runtime reports it."""
    c, env = config, config.environment
    checks = [
        Check("runtime", c.runtime == runtime, f"runtime {c.runtime} (the manifest names {runtime})", "runtime"),
        Check("network_none", c.network == "none", f"network mode {c.network}", "network"),
        Check("no_host_mounts", not c.mounts and not c.bind_mounts, f"mounts: {_items(c.mounts)}", "mounts"),
        Check("read_only_root", c.read_only_root, f"read-only root filesystem: {_yes(c.read_only_root)}", "filesystem"),
        Check("capabilities_dropped", "ALL" in c.capabilities_dropped and
              set(c.capabilities_added) <= {"SETUID", "SETGID", "KILL", "CAP_SETUID", "CAP_SETGID", "CAP_KILL"},
              f"capabilities dropped: {_items(c.capabilities_dropped)}; added: {_items(c.capabilities_added)}",
              "credentials"),
        Check("no_new_privileges", any("no-new-privileges" in s for s in c.security_options),
              f"security options: {_items(c.security_options)}", "credentials"),
        Check("not_privileged", not c.privileged, f"privileged: {_yes(c.privileged)}", "credentials"),
        Check("image_pinned", c.image == image_digest, f"container image {c.image} (pinned {image_digest})", "image"),
        Check("memory_limited", bool(c.memory_bytes), f"memory {c.memory_bytes} bytes", "memory"),
        Check("pids_limited", bool(c.pids_limit), f"pids limit {c.pids_limit}", "processes"),
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
