"""Build one pinned image per toolchain, locally and reproducibly, the way the Python image is built.

debootstrap (minbase plus the toolchain's Debian packages) from the machine's Debian mirror, the
root filesystem normalised like the Python image's and then of what a toolchain's own install
scripts leave behind that differs from build to build, packed into one deterministic layer and
loaded with a fixed config: building twice from the same mirror gives one image id.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from ..errors import SandboxUnavailable
from ..sandbox.image import SUITE, apt_mirror, load_layers, normalise_rootfs, write_layer
from .toolchain import IMAGE_REPO, SUPERVISOR_PACKAGES, Toolchain  # noqa: F401 (the builder's vocabulary)

PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def image_config(toolchain: Toolchain, layer_sha: str) -> bytes:
    config = {
        "architecture": "amd64", "os": "linux", "created": "1970-01-01T00:00:00Z",
        "config": {"Env": [f"PATH={PATH}", *toolchain.env], "Cmd": ["/bin/sh"], "WorkingDir": "/"},
        "rootfs": {"type": "layers", "diff_ids": [f"sha256:{layer_sha}"]},
        "history": [{"created": "1970-01-01T00:00:00Z",
                     "created_by": f"passgate language image {toolchain.name}: "
                                   f"debootstrap minbase + {' '.join(toolchain.all_packages)}"
                                   + (f", apt {' '.join(toolchain.apt_packages)}" if toolchain.apt_packages else "")}],
    }
    return json.dumps(config, sort_keys=True, separators=(",", ":")).encode()


def debootstrap_with(target: Path, mirror: str, packages: tuple[str, ...]) -> None:
    if shutil.which("debootstrap") is None:
        raise SandboxUnavailable("debootstrap is not installed: apt-get install -y debootstrap")
    include = ["--include=" + ",".join(packages)] if packages else []
    done = subprocess.run(["debootstrap", "--variant=minbase", *include, SUITE, str(target), mirror],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    if done.returncode:
        log = target / "debootstrap" / "debootstrap.log"
        text = done.stdout + (log.read_text(errors="replace") if log.exists() else "")
        tail = "\n".join(text.strip().splitlines()[-8:])
        raise SandboxUnavailable(f"debootstrap of {', '.join(packages) or 'minbase'} failed: {tail}")


def prepare_root(root: Path, toolchain: Toolchain) -> None:
    """Install the apt packages and run the preparation script inside the new root, /proc mounted
    for them only; the package lists apt fetched are dropped with the rest of var/lib/apt/lists."""
    script = ""
    if toolchain.apt_packages:
        script += ("apt-get update -qq\nDEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "
                   + " ".join(toolchain.apt_packages) + " >/dev/null\napt-get clean\n")
    script += toolchain.prepare
    if not script:
        return
    (root / "proc").mkdir(exist_ok=True)
    subprocess.run(["mount", "-t", "proc", "proc", str(root / "proc")], check=True)
    try:
        done = subprocess.run(["chroot", str(root), "/bin/sh", "-ec", script], capture_output=True,
                              text=True, errors="replace", env={"PATH": PATH, "HOME": "/root", "LANG": "C.UTF-8"})
    finally:
        subprocess.run(["umount", str(root / "proc")], check=False)
    if done.returncode:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-8:])
        raise SandboxUnavailable(f"preparing the {toolchain.name} image failed: {tail}")


def drop_build_dependent(root: Path, toolchain: Toolchain) -> None:
    """Remove what install scripts write with the time or randomness of the build."""
    for rel in toolchain.drop:
        path = root / rel
        if path.is_symlink() or path.is_file():
            path.unlink()
        elif path.is_dir():
            shutil.rmtree(path)


def build_image(client, toolchain: Toolchain, *, mirror: str | None = None, workdir: str | None = None,
                log=print) -> str:
    """Build and load the toolchain's image; returns its id (the digest a manifest pins)."""
    mirror = mirror or apt_mirror()
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        root = Path(tmp) / "rootfs"
        log(f"debootstrap {SUITE} + {', '.join(toolchain.all_packages)} from {mirror} ...")
        debootstrap_with(root, mirror, toolchain.all_packages)
        prepare_root(root, toolchain)
        normalise_rootfs(root)
        drop_build_dependent(root, toolchain)
        layer = Path(tmp) / "layer.tar"
        layer_sha = write_layer(root, layer)
        image_id = _load(client, image_config(toolchain, layer_sha), layer, layer_sha, toolchain.tag, log)
        log(f"loaded {toolchain.tag} as {image_id}")
        return image_id


def _load(client, config: bytes, layer: Path, layer_sha: str, tag: str, log, patience_s: float = 180.0) -> str:
    """`docker load` the built layer, waiting out an engine that is restarting (minutes of
    debootstrap are not thrown away for a daemon that is back a minute later)."""
    import requests.exceptions
    deadline = time.monotonic() + patience_s
    while True:
        try:
            return load_layers(client, config, [(f"{layer_sha}/layer.tar", layer)], tag)
        except requests.exceptions.ConnectionError:
            if time.monotonic() > deadline:
                raise
            log("the Docker engine is not answering; waiting to load the image ...")
            time.sleep(5)


def ensure_image(client, toolchain: Toolchain, **build_options) -> str:
    """The toolchain's image id: the loaded one when its tag exists, else a fresh build."""
    import docker.errors
    try:
        return client.images.get(toolchain.tag).id
    except docker.errors.ImageNotFound:
        return build_image(client, toolchain, **build_options)
