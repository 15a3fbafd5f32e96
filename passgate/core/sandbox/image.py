"""Build the sandbox image locally and reproducibly (no registry exists here).

debootstrap (minbase + python3) from the Debian mirror in the machine's apt sources, then a
normalised root filesystem (no docs, caches or logs; fixed dates and host files) packed
into a deterministic layer and loaded with a fixed image config. The same mirror snapshot gives
the same image id on any machine, so a manifest can pin it.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from ..errors import SandboxUnavailable

DEFAULT_IMAGE = "passgate-sandbox:bookworm-py311"
SUITE = "bookworm"
FIXED_MTIME = 1_700_000_000
REMOVE = ("var/log", "var/cache", "var/lib/apt/lists", "usr/share/doc", "usr/share/man", "usr/share/locale",
          "usr/share/info", "usr/share/lintian", "usr/share/common-licenses", "var/lib/dpkg/available-old",
          "var/lib/dpkg/status-old", "var/lib/dpkg/diversions-old", "etc/passwd-", "etc/group-", "etc/shadow-",
          "etc/gshadow-", "var/lib/systemd", "etc/machine-id", "var/lib/dbus/machine-id", "etc/ld.so.cache",
          "etc/apt/apt.conf.d/01autoremove-kernels")
KEEP_EMPTY = ("var/log", "var/cache", "var/lib/apt/lists")


def apt_mirror(sources_dir: str = "/etc/apt") -> str:
    """The Debian archive URI this machine's apt uses (deb822 .sources or sources.list)."""
    candidates: list[str] = []
    root = Path(sources_dir)
    for path in sorted((root / "sources.list.d").glob("*.sources")) if (root / "sources.list.d").exists() else []:
        block_uris: list[str] = []
        suites = ""
        for line in path.read_text().splitlines() + [""]:
            if not line.strip():
                if block_uris and SUITE in suites.split():
                    candidates += block_uris
                block_uris, suites = [], ""
            elif line.startswith("URIs:"):
                block_uris = line.split(":", 1)[1].split()
            elif line.startswith("Suites:"):
                suites = line.split(":", 1)[1]
    lst = root / "sources.list"
    if lst.exists():
        for line in lst.read_text().splitlines():
            m = re.match(r"\s*deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)", line)
            if m and m.group(2) == SUITE:
                candidates.append(m.group(1))
    debian = [u for u in candidates if "security" not in u]
    if not debian:
        raise SandboxUnavailable(f"no Debian {SUITE} mirror found in {root}/sources.list(.d); "
                                 "add one or pass --mirror")
    return debian[0]


def debootstrap(target: Path, mirror: str) -> None:
    if shutil.which("debootstrap") is None:
        raise SandboxUnavailable("debootstrap is not installed: apt-get install -y debootstrap")
    subprocess.run(["debootstrap", "--variant=minbase", "--include=python3", SUITE, str(target), mirror],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def normalise_rootfs(root: Path) -> None:
    """Drop everything that varies between builds or is not needed to run Python."""
    for rel in REMOVE:
        p = root / rel
        if p.is_symlink() or p.is_file():
            p.unlink()
        elif p.is_dir():
            shutil.rmtree(p)
    for rel in KEEP_EMPTY:
        (root / rel).mkdir(parents=True, exist_ok=True)
    for name in ("shadow", "gshadow"):
        p = root / "etc" / name
        if p.exists():
            lines = []
            for line in p.read_text().splitlines():
                parts = line.split(":")
                if name == "shadow" and len(parts) > 2:
                    parts[2] = "19000"
                lines.append(":".join(parts))
            p.write_text("\n".join(lines) + "\n")
    (root / "etc" / "resolv.conf").write_text("")
    (root / "etc" / "hostname").write_text("sandbox\n")
    (root / "etc" / "hosts").write_text("127.0.0.1\tlocalhost\n")


def write_layer(root: Path, out: Path) -> str:
    """A deterministic tar of `root` (sorted, fixed mtimes); returns its sha256."""
    digest = hashlib.sha256()

    class _Hashing(io.RawIOBase):
        def __init__(self, fh):
            self.fh = fh

        def writable(self):
            return True

        def write(self, b):
            digest.update(b)
            return self.fh.write(b)

    with open(out, "wb") as raw:
        with tarfile.open(fileobj=_Hashing(raw), mode="w|", format=tarfile.PAX_FORMAT) as tar:
            for path in _walk_sorted(root):
                rel = os.path.relpath(path, root)
                info = tar.gettarinfo(str(path), arcname=rel)
                if info is None:
                    continue
                # .py files keep their packaged mtime: the stdlib bytecode (identical across builds)
                # records it, and a mismatch would make every import recompile from source
                if not rel.endswith(".py"):
                    info.mtime = FIXED_MTIME
                info.uname = info.gname = ""
                info.pax_headers = {}
                if info.isfile():
                    with open(path, "rb") as fh:
                        tar.addfile(info, fh)
                else:
                    tar.addfile(info)
    return digest.hexdigest()


def _walk_sorted(root: Path):
    stack = [root]
    while stack:
        d = stack.pop()
        entries = sorted(os.scandir(d), key=lambda e: e.name, reverse=True)
        for e in reversed(entries):
            yield Path(e.path)
        stack.extend(Path(e.path) for e in entries if e.is_dir(follow_symlinks=False))


def image_config(layer_sha: str) -> bytes:
    config = {
        "architecture": "amd64", "os": "linux", "created": "1970-01-01T00:00:00Z",
        "config": {"Env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],
                   "Cmd": ["/usr/bin/python3"], "WorkingDir": "/"},
        "rootfs": {"type": "layers", "diff_ids": [f"sha256:{layer_sha}"]},
        "history": [{"created": "1970-01-01T00:00:00Z", "created_by": "passgate image build (debootstrap minbase)"}],
    }
    return json.dumps(config, sort_keys=True, separators=(",", ":")).encode()


def load_image(client, layer: Path, layer_sha: str, tag: str) -> str:
    """`docker load` a one-layer image; returns its id (sha256 of the config)."""
    return load_layers(client, image_config(layer_sha), [(f"{layer_sha}/layer.tar", layer)], tag)


def load_layers(client, config: bytes, layers: list[tuple[str, Path]], tag: str) -> str:
    """`docker load` an image from its config and its layer tars (archive name, file), in order;
    returns its id. The archive's own entries carry fixed times, so the same inputs load the same id."""
    config_sha = hashlib.sha256(config).hexdigest()
    manifest = json.dumps([{"Config": f"{config_sha}.json", "RepoTags": [tag],
                            "Layers": [name for name, _path in layers]}]).encode()
    with tempfile.TemporaryFile() as archive:
        with tarfile.open(fileobj=archive, mode="w") as tar:
            for name, data in ((f"{config_sha}.json", config), ("manifest.json", manifest)):
                info = tarfile.TarInfo(name)
                info.size = len(data)
                info.mtime = FIXED_MTIME
                tar.addfile(info, io.BytesIO(data))
            for name, path in layers:
                tar.add(str(path), arcname=name)
        archive.seek(0)
        client.images.load(archive.read())
    return f"sha256:{config_sha}"


def build_image(client, tag: str = DEFAULT_IMAGE, *, mirror: str | None = None, workdir: str | None = None,
                rootfs: str | None = None, log=print) -> str:
    """Build and load the sandbox image; returns its id."""
    mirror = mirror or apt_mirror()
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        root = Path(rootfs) if rootfs else Path(tmp) / "rootfs"
        if not rootfs:
            log(f"debootstrap {SUITE} from {mirror} ...")
            debootstrap(root, mirror)
        normalise_rootfs(root)
        layer = Path(tmp) / "layer.tar"
        layer_sha = write_layer(root, layer)
        image_id = load_image(client, layer, layer_sha, tag)
        log(f"loaded {tag} as {image_id}")
        return image_id
