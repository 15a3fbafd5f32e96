"""Repository trees in memory, {path: bytes}: unpacked from the snapshot, read back from scratch,
hashed and compared, so what the patch and the build changed is measured, not assumed."""

import hashlib
import io
import os
import tarfile

from .settings import REPO

SKIP_DIRS = {"__pycache__", ".pytest_cache"}


def tree_hash(tree):
    digest = hashlib.sha256()
    for path in sorted(tree):
        digest.update(path.encode() + b"\0" + hashlib.sha256(tree[path]).hexdigest().encode() + b"\n")
    return digest.hexdigest()


def unpack(data):
    """The snapshot tarball's files; anything but a plain file inside the tree is refused."""
    tree = {}
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tar:
        for member in tar.getmembers():
            name = member.name.lstrip("./")
            if member.isdir() or not name:
                continue
            if not member.isfile() or name.startswith("/") or ".." in name.split("/"):
                raise ValueError(f"snapshot member {member.name!r} is not a plain file inside the tree")
            tree[name] = tar.extractfile(member).read()
    return tree


def read_tree():
    """The repository as it is in scratch now (caches and links left out)."""
    tree = {}
    for root, dirs, files in os.walk(REPO):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        for name in files:
            full = os.path.join(root, name)
            if os.path.isfile(full) and not os.path.islink(full):
                with open(full, "rb") as fh:
                    tree[os.path.relpath(full, REPO)] = fh.read()
    return tree


def changed_files(before, after):
    return sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))
