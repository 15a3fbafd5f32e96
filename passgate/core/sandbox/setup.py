"""Make this machine able to run the sandbox; safe to re-run, says what to install when it cannot."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

from passgate.core.errors import SandboxUnavailable

DAEMON_JSON = Path("/etc/docker/daemon.json")
RUNSC_RUNTIME = {"path": "/usr/bin/runsc", "runtimeArgs": ["--network=none"]}


def _is_root() -> bool:
    return os.geteuid() == 0


def ensure_packages(log=print) -> None:
    missing = [p for p, exe in (("docker.io", "dockerd"), ("runsc", "runsc"), ("debootstrap", "debootstrap"))
               if shutil.which(exe) is None]
    if not missing:
        return
    if not _is_root() or shutil.which("apt-get") is None:
        raise SandboxUnavailable(f"missing {', '.join(missing)}: install them as root "
                                 f"(`apt-get install -y {' '.join(missing)}`) and re-run setup")
    log(f"installing {' '.join(missing)} ...")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", *missing], check=True, env=env, stdout=subprocess.DEVNULL)


def ensure_runtime_declared(log=print) -> bool:
    """Declare runsc (with --network=none) in daemon.json; returns True when the file changed."""
    data = {}
    if DAEMON_JSON.exists():
        text = DAEMON_JSON.read_text().strip()
        data = json.loads(text) if text else {}
    runtimes = data.setdefault("runtimes", {})
    if runtimes.get("runsc") == RUNSC_RUNTIME:
        return False
    if not _is_root():
        raise SandboxUnavailable(f"the runsc runtime is not declared in {DAEMON_JSON}; as root add "
                                 f'"runtimes": {{"runsc": {json.dumps(RUNSC_RUNTIME)}}} and reload dockerd')
    runtimes["runsc"] = RUNSC_RUNTIME
    DAEMON_JSON.parent.mkdir(parents=True, exist_ok=True)
    DAEMON_JSON.write_text(json.dumps(data, indent=2) + "\n")
    log(f"declared the runsc runtime in {DAEMON_JSON}")
    return True


def _docker_answers() -> bool:
    try:
        import docker
        docker.from_env(timeout=5).ping()
        return True
    except Exception:
        return False


def ensure_dockerd(reload: bool, log=print) -> None:
    if _docker_answers():
        if reload:
            pid = subprocess.run(["pidof", "dockerd"], capture_output=True, text=True).stdout.split()
            if pid:
                os.kill(int(pid[0]), 1)  # SIGHUP: re-read daemon.json
                time.sleep(1)
        return
    if not _is_root() or shutil.which("dockerd") is None:
        raise SandboxUnavailable("the Docker engine is not running; start `dockerd` as root")
    pidfile = Path("/var/run/docker.pid")
    if pidfile.exists() and not subprocess.run(["pidof", "dockerd"], capture_output=True).stdout.strip():
        pidfile.unlink()   # left by a dockerd that crashed; it would refuse to start
    log("starting dockerd ...")
    logf = open("/var/log/passgate-dockerd.log", "ab")
    subprocess.Popen(["dockerd"], stdout=logf, stderr=logf, start_new_session=True)
    for _ in range(60):
        if _docker_answers():
            return
        time.sleep(0.5)
    raise SandboxUnavailable("dockerd did not come up within 30 s; see /var/log/passgate-dockerd.log")


def ensure_image(tag: str, log=print, mirror: str | None = None) -> str:
    import docker

    from .docker_runner import docker_client
    from .image import build_image
    client = docker_client(timeout=600)
    try:
        return client.images.get(tag).id
    except docker.errors.ImageNotFound:
        pass
    if not _is_root():
        raise SandboxUnavailable(f"sandbox image {tag} is missing and building it needs root (debootstrap)")
    log(f"building the sandbox image {tag} (debootstrap, about a minute) ...")
    return build_image(client, tag, mirror=mirror, workdir="/var/tmp", log=log)


def setup(tag: str, *, mirror: str | None = None, log=print) -> str:
    ensure_packages(log)
    changed = ensure_runtime_declared(log)
    ensure_dockerd(reload=changed, log=log)
    digest = ensure_image(tag, log, mirror)
    log(f"sandbox ready: image {tag} = {digest}, runtime runsc")
    return digest
