"""A derived sandbox image holding a pinned package allowlist (`execution.packages`).

Each entry is `name==version --hash=sha256:HEX`. The wheels are fetched from the package registry
at build time only (pip, `--require-hashes`, no dependencies resolved: the list is the whole set),
for the sandbox's interpreter whatever the host's (pure Python, or CPython 3.11 on manylinux
x86_64: numpy's wheel carries its compiled code and libraries), and are unpacked into one
deterministic layer on top of the pinned base image's own layer. Same base and same list give the same image id on any machine, so
a manifest pins it like the base; nothing is fetched when a run starts.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError, SandboxUnavailable
from .image import FIXED_MTIME, load_layers, write_layer

SITE = "usr/local/lib/python3.11/dist-packages"
# the sandbox's interpreter (the base image's python3, Debian bookworm: glibc 2.36) as wheel tags
SANDBOX_WHEEL_TARGET = ["--python-version", "3.11", "--implementation", "cp", "--abi", "cp311", "--abi", "abi3",
                        "--abi", "none", "--platform", "manylinux2014_x86_64", "--platform", "manylinux_2_28_x86_64",
                        "--platform", "manylinux_2_17_x86_64", "--platform", "any"]
_SANDBOX_WHEEL = re.compile(r"-(py3|cp311)-(none|abi3|cp311)-(any|(manylinux[0-9_]*_x86_64\.?)+)\.whl$")
_ENTRY = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([A-Za-z0-9.+!_-]+)\s+--hash=sha256:([0-9a-f]{64})$")


@dataclass(frozen=True)
class PinnedPackage:
    name: str
    version: str
    sha256: str

    @property
    def requirement(self) -> str:
        return f"{self.name}=={self.version} --hash=sha256:{self.sha256}"

    @property
    def import_key(self) -> str:
        return re.sub(r"[-_.]+", "_", self.name).lower()


def parse_packages(entries: tuple[str, ...] | list[str]) -> list[PinnedPackage]:
    """The allowlist, checked: every entry pinned to one version and one wheel hash."""
    out, seen = [], set()
    for i, entry in enumerate(entries):
        m = _ENTRY.match(entry.strip())
        if not m:
            raise ConfigError(f"{entry!r} is not `name==version --hash=sha256:HEX`",
                              field=f"execution.packages[{i}]")
        pkg = PinnedPackage(m.group(1), m.group(2), m.group(3))
        if pkg.import_key in seen:
            raise ConfigError(f"{pkg.name} is listed twice", field=f"execution.packages[{i}]")
        seen.add(pkg.import_key)
        out.append(pkg)
    return out


def allowlist_tag(base_tag: str, packages: list[PinnedPackage]) -> str:
    """The derived image's tag: the base's name with a digest of the list."""
    key = hashlib.sha256("\n".join(sorted(p.requirement for p in packages)).encode()).hexdigest()[:12]
    repo, _, version = base_tag.partition(":")
    return f"{repo}:{version or 'latest'}-pkgs-{key}"


def fetch_wheels(packages: list[PinnedPackage], dest: Path) -> list[Path]:
    """pip download with hashes required, for the sandbox's interpreter; only wheels it can load are accepted."""
    req = dest / "requirements.txt"
    req.write_text("".join(p.requirement + "\n" for p in packages))
    cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:",
           *SANDBOX_WHEEL_TARGET, "--require-hashes", "-r", str(req), "-d", str(dest)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        tail = "\n".join(line for line in done.stderr.splitlines() if "WARNING" not in line)[-600:]
        raise SandboxUnavailable(f"cannot fetch the allowlisted packages: {tail}")
    wheels = sorted(dest.glob("*.whl"))
    for wheel in wheels:
        if not _SANDBOX_WHEEL.search(wheel.name):
            raise ConfigError(f"{wheel.name} is not a wheel the sandbox's Python loads (pure Python, or cp311 on "
                              "manylinux x86_64)", field="execution.packages")
    return wheels


def unpack_wheels(wheels: list[Path], root: Path) -> None:
    """Install as pip would for imports (no scripts): every wheel member under site-packages."""
    site = root / SITE
    site.mkdir(parents=True)
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as zf:
            for member in sorted(zf.namelist()):
                if member.endswith("/") or ".data/" in member.split("/", 1)[0] + "/":
                    continue
                target = site / member
                if not target.resolve().is_relative_to(site.resolve()):
                    raise ConfigError(f"{wheel.name} has a member outside site-packages: {member}")
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(zf.read(member))
    for path in sorted(root.rglob("*")):
        path.chmod(0o755 if path.is_dir() else 0o644)
        os.utime(path, (FIXED_MTIME, FIXED_MTIME), follow_symlinks=False)
    os.utime(root, (FIXED_MTIME, FIXED_MTIME))


def base_layer(client, base_tag: str, dest: Path) -> tuple[Path, list[str], dict]:
    """The base image's layers (from `docker save`), their diff ids and its config."""
    archive = dest / "base.tar"
    with open(archive, "wb") as fh:
        for chunk in client.images.get(base_tag).save(named=False):
            fh.write(chunk)
    out = dest / "base"
    with tarfile.open(archive) as tar:
        tar.extractall(out, filter="data")
    manifest = json.loads((out / "manifest.json").read_text())[0]
    config = json.loads((out / manifest["Config"]).read_text())
    return out, manifest["Layers"], config


def derived_config(base_config: dict, layer_sha: str, packages: list[PinnedPackage]) -> bytes:
    diff_ids = list(base_config["rootfs"]["diff_ids"]) + [f"sha256:{layer_sha}"]
    history = list(base_config.get("history") or []) + [{
        "created": "1970-01-01T00:00:00Z",
        "created_by": "passgate package allowlist: " + ", ".join(f"{p.name}=={p.version}" for p in packages)}]
    config = {"architecture": base_config.get("architecture", "amd64"), "os": "linux",
              "created": "1970-01-01T00:00:00Z", "config": base_config["config"],
              "rootfs": {"type": "layers", "diff_ids": diff_ids}, "history": history}
    return json.dumps(config, sort_keys=True, separators=(",", ":")).encode()


def build_allowlist_image(client, base_tag: str, entries, *, expected_base: str | None = None,
                          tag: str | None = None, log=print) -> tuple[str, str]:
    """Build and load the derived image; returns (tag, image id)."""
    packages = parse_packages(entries)
    if not packages:
        raise ConfigError("execution.packages is empty: the base image needs no derived image",
                          field="execution.packages")
    base_id = client.images.get(base_tag).id
    if expected_base and base_id != expected_base:
        raise SandboxUnavailable(f"{base_tag} is {base_id}, not the pinned base {expected_base}")
    tag = tag or allowlist_tag(base_tag, packages)
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        wheels_dir = tmp_path / "wheels"
        wheels_dir.mkdir()
        wheels = fetch_wheels(packages, wheels_dir)
        root = tmp_path / "root"
        root.mkdir()
        unpack_wheels(wheels, root)
        layer = tmp_path / "layer.tar"
        layer_sha = write_layer(root, layer)
        base_dir, base_layers, base_config = base_layer(client, base_tag, tmp_path)
        image_id = _load(client, base_dir, base_layers, layer, derived_config(base_config, layer_sha, packages), tag)
    log(f"loaded {tag} as {image_id} ({len(packages)} packages on {base_id[:19]})")
    return tag, image_id


def _load(client, base_dir: Path, base_layers: list[str], layer: Path, config: bytes, tag: str) -> str:
    """The base image's own layer tars, then the packages' layer, under the derived config."""
    layer_sha = json.loads(config)["rootfs"]["diff_ids"][-1].split(":", 1)[1]
    layers = [(rel, base_dir / rel) for rel in base_layers] + [(f"{layer_sha}/layer.tar", layer)]
    return load_layers(client, config, layers, tag)


def image_packages(client, tag: str) -> str:
    """The allowlist line a derived image's history records ("" for a base image)."""
    try:
        history = client.images.get(tag).history()
    except Exception:
        return ""
    for entry in history:
        text = entry.get("CreatedBy") or ""
        if text.startswith("passgate package allowlist: "):
            return text.split(": ", 1)[1]
    return ""


def check_allowlist_image(client, image: str, entries, base_digest: str | None) -> str:
    """At run start: the image holds exactly the manifest's allowlist (its history says so) and the
    base it derives from is pinned. Returns a sentence for the record; DriftError otherwise."""
    from ..errors import DriftError
    packages = parse_packages(entries)
    if not packages:
        return "no package allowlist: the pinned base image only"
    if not base_digest:
        raise DriftError("execution.packages needs execution.base_image_digest: the base the allowlist image "
                         "derives from must be pinned too")
    recorded = image_packages(client, image)
    wanted = ", ".join(f"{p.name}=={p.version}" for p in packages)
    if recorded != wanted:
        raise DriftError(f"image {image} holds the allowlist [{recorded or 'none'}], the manifest lists [{wanted}]; "
                         "run `passgate setup --manifest MANIFEST` to build it")
    return f"allowlist image with {wanted} on base {base_digest[:19]}"
