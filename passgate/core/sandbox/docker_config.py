"""Docker's description of a container, read into passgate's `SandboxConfig`.

Only the Docker runners read Docker's inspect format; the engine judges the `SandboxConfig`.
"""

from __future__ import annotations

from .boundary import SandboxConfig


def sandbox_config(client, container_id: str) -> SandboxConfig:
    """The container's configuration as the Docker engine reports it."""
    return from_inspect(client.api.inspect_container(container_id))


def from_inspect(data: dict) -> SandboxConfig:
    hc = data.get("HostConfig") or {}
    cfg = data.get("Config") or {}
    return SandboxConfig(
        runtime=hc.get("Runtime"),
        network=hc.get("NetworkMode"),
        mounts=tuple(m.get("Source") for m in data.get("Mounts") or []),
        bind_mounts=tuple(hc.get("Binds") or ()),
        read_only_root=bool(hc.get("ReadonlyRootfs")),
        capabilities_dropped=tuple(hc.get("CapDrop") or ()),
        capabilities_added=tuple(hc.get("CapAdd") or ()),
        security_options=tuple(hc.get("SecurityOpt") or ()),
        privileged=bool(hc.get("Privileged")),
        image=data.get("Image"),
        memory_bytes=hc.get("Memory"),
        pids_limit=hc.get("PidsLimit"),
        environment=tuple(cfg.get("Env") or ()),
    )
