"""What the host's cgroups say about a sandbox: its host tasks (the pids limit gVisor needs, and
when a container should be replaced) and the real CPU it used (to confirm a timeout).

Under gVisor's ptrace platform every guest address space is a host stub process, and each sentry
OS thread that ever ran code of that address space keeps a traced thread in it: host tasks grow
with the processes a candidate runs at once times the sentry's threads, and gVisor keeps them until
the container ends. Measured here (runsc 20221219, 2 cores): 32 guest processes spinning for 3 s
of CPU left 1,000-1,200 host tasks, 10 s 2,000, 20 s 2,600. A container pids limit under that kills
the whole sandbox, a verdict the machine's load would decide; so under runsc the limit is at least
`TASKS_PER_PROCESS x nproc`, and a container that holds more than a quarter of it after a candidate
is replaced before the next one, so nothing one candidate left behind counts against another.
"""

from __future__ import annotations

from pathlib import Path

TASKS_PER_PROCESS = 256      # host tasks allowed per guest process the candidate may run at once
WORN_FRACTION = 0.25         # a container holding more than this share of its limit is replaced

_CGROUP_PATTERNS = ("/sys/fs/cgroup/pids/docker/{id}/pids.current",             # cgroup v1
                    "/sys/fs/cgroup/system.slice/docker-{id}.scope/pids.current",  # v2, systemd driver
                    "/sys/fs/cgroup/docker/{id}/pids.current")                      # v2, cgroupfs driver


def container_pids_limit(limits: dict, runtime: str) -> int:
    """The pids limit a container gets: the manifest's, raised under runsc to what gVisor itself needs."""
    asked = int(limits["pids"])
    if runtime != "runsc":
        return asked
    return max(asked, TASKS_PER_PROCESS * int(limits["nproc"]))


_CPU_PATTERNS = (("/sys/fs/cgroup/cpuacct/docker/{id}/cpuacct.usage", 1e-9),                # cgroup v1, ns
                 ("/sys/fs/cgroup/cpu,cpuacct/docker/{id}/cpuacct.usage", 1e-9),
                 ("/sys/fs/cgroup/system.slice/docker-{id}.scope/cpu.stat", 1e-6),        # v2, usage_usec
                 ("/sys/fs/cgroup/docker/{id}/cpu.stat", 1e-6))




def cpu_readable() -> bool:
    """Can this controller read its containers' CPU time from the host's cgroups?"""
    return any(Path(p.split("{id}")[0]).is_dir() for p, _ in _CPU_PATTERNS)


def confirms_timeout(host_cpu_s: float | None, suite_cpu_s: float, cpu_limit_s: float) -> bool:
    """A suite that used up its CPU budget while the host gave its sandbox at least that much real
    CPU lost no time waiting for a core: the candidate's clock (which under gVisor also counts time
    spent runnable but not running) was not inflated, so a re-check alone would time out the same."""
    return host_cpu_s is not None and suite_cpu_s >= cpu_limit_s and host_cpu_s >= suite_cpu_s


def pids_file(container_id: str) -> Path | None:
    """Where this host keeps the container's task count, when the controller can read it."""
    for pattern in _CGROUP_PATTERNS:
        path = Path(pattern.format(id=container_id))
        if path.exists():
            return path
    return None


def cpu_file(container_id: str) -> tuple[Path, float] | None:
    """Where this host counts the container's CPU time, and the unit (seconds per count)."""
    for pattern, unit in _CPU_PATTERNS:
        path = Path(pattern.format(id=container_id))
        if path.exists():
            return path, unit
    return None


def cpu_seconds(found: tuple[Path, float] | None) -> float | None:
    """Real CPU the container's processes (the sandbox's kernel, its stubs) have used so far."""
    if not found:
        return None
    path, unit = found
    try:
        text = path.read_text()
    except OSError:
        return None
    if path.name == "cpu.stat":
        fields = dict(line.split() for line in text.splitlines() if line.strip())
        return int(fields.get("usage_usec", 0)) * unit
    return int(text) * unit


def host_tasks(path: Path | None) -> int | None:
    if path is None:
        return None
    try:
        return int(path.read_text())
    except (OSError, ValueError):
        return None


def worn(path: Path | None, pids_limit: int) -> bool:
    """True when the container holds so many host tasks that the next candidate should get a new one."""
    count = host_tasks(path)
    return count is not None and count > WORN_FRACTION * pids_limit
