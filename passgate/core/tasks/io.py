"""Reading task and sample files: hashing, JSON lines, and errors that name file, line and field."""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from passgate.core.errors import ConfigError


def file_sha256(path: str | Path) -> str:
    """sha256 (hex) of the file's bytes, as stored on disk (a .gz is hashed compressed)."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
    except FileNotFoundError:
        raise ConfigError("file not found", path=str(path)) from None
    except OSError as error:
        raise ConfigError(f"cannot read file ({error.strerror})", path=str(path)) from None
    return digest.hexdigest()


def path_sha256(path: str | Path) -> str:
    """A file's sha256; a directory's is the sha256 of its files' sorted relative names and sha256s."""
    path = Path(path)
    if not path.is_dir():
        return file_sha256(path)
    listing = hashlib.sha256()
    for p in sorted(q for q in path.rglob("*") if q.is_file()):
        listing.update(f"{p.relative_to(path).as_posix()}\0{file_sha256(p)}\n".encode())
    return listing.hexdigest()


def read_text(path: str | Path) -> str:
    """Whole file as text; `.gz` files are decompressed. Missing or undecodable files raise ConfigError."""
    path = Path(path)
    try:
        if path.name.endswith(".gz"):
            with gzip.open(path, "rt", encoding="utf-8") as handle:
                return handle.read()
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError("file not found", path=str(path)) from None
    except (OSError, EOFError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read file ({error})", path=str(path)) from None


def iter_json_lines(path: str | Path, text: str | None = None) -> Iterator[tuple[int, Any]]:
    """(line number, parsed object) for every non-blank line; a bad line raises ConfigError."""
    text = read_text(path) if text is None else text
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise ConfigError(f"not valid JSON ({error.msg}, column {error.colno})", path=str(path), line=number) from None
        if not isinstance(record, dict):
            raise ConfigError("each line must be a JSON object", path=str(path), line=number)
        yield number, record


def require(record: dict, name: str, kind: type | tuple[type, ...], path: str | Path, line: int | None) -> Any:
    """The field's value, or ConfigError naming file, line and field when missing or of the wrong type."""
    if name not in record:
        raise ConfigError("missing required field", path=str(path), line=line, field=name)
    value = record[name]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        expected = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise ConfigError(f"must be {expected}, got {type(value).__name__}", path=str(path), line=line, field=name)
    return value


def optional(record: dict, name: str, kind: type | tuple[type, ...], default: Any, path: str | Path, line: int | None) -> Any:
    """Like `require`, but a missing (or null) field gives `default`."""
    if record.get(name) is None:
        return default
    return require(record, name, kind, path, line)
