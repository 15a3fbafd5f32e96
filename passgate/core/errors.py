"""One error family for the engine: every error carries a title and a sentence a user can act on."""

from __future__ import annotations


class PassgateError(Exception):
    """Base error. `title` is a short heading; the message says what to do."""

    title = "passgate error"
    exit_code = 2

    def __init__(self, message: str, title: str | None = None):
        super().__init__(message)
        if title:
            self.title = title

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""


class ConfigError(PassgateError):
    """Bad manifest, policy or input file: names the file, line and field."""

    title = "invalid configuration"

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None, field: str | None = None):
        where = ""
        if path:
            where = str(path)
            if line:
                where += f":{line}"
            where += ": "
        if field:
            where += f"{field}: "
        super().__init__(where + message)
        self.path, self.line, self.field = path, line, field


class DriftError(PassgateError):
    """A pinned input (dataset, samples file, image) differs from the frozen manifest."""

    title = "input drift"


class SandboxUnavailable(PassgateError):
    """Docker or the gVisor runtime is missing or not running."""

    title = "sandbox unavailable"


class EngineLost(SandboxUnavailable):
    """The engine went away mid-run and stayed away: the run failed, and its record resumes."""

    title = "sandbox engine unreachable"
    exit_code = 1


class BoundaryOpen(PassgateError):
    """The self-probe or preflight found a boundary open that the manifest says is closed."""

    title = "sandbox boundary open"


class StoreError(PassgateError):
    """The SQLite record is missing, from a newer schema, or inconsistent."""

    title = "record error"


class RunNotFound(StoreError):
    title = "run not found"
