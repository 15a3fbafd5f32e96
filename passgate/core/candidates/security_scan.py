"""Static security scan of candidate programs: bandit and detect-secrets on the program text only.

Nothing here executes a candidate: bandit parses the program's AST, detect-secrets reads its lines.
The programs are written to a private temporary directory (both scanners read files) and scanned
in one pass per batch. Every finding names its scanner and version, so a record says what found it.
"""

from __future__ import annotations

import logging
import tempfile
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import Iterable, Mapping

from passgate.core.errors import ConfigError
from passgate.core.manifest import SecurityScanSpec

SEVERITIES = ("low", "medium", "high")
# detect-secrets plugins that match a token's format are high; the heuristics (a keyword next to a
# string, entropy, an IP address) are low, because generated code holds test strings and constants
_SECRET_HEURISTICS = {"Secret Keyword", "Base64 High Entropy String", "Hex High Entropy String",
                      "Public IP (ipv4)"}


@dataclass(frozen=True)
class SecurityFinding:
    """One finding in one program."""
    scanner: str          # "bandit 1.9.4" | "detect-secrets 1.5.0"
    rule_id: str          # bandit test id (B324) or DS- plus the secret type
    rule: str             # the rule's name
    severity: str         # low | medium | high
    confidence: str       # low | medium | high
    line: int
    text: str             # the scanner's sentence

    def as_dict(self) -> dict:
        return asdict(self)


def severity_rank(severity: str) -> int:
    """0 low, 1 medium, 2 high (raises ConfigError on another word)."""
    try:
        return SEVERITIES.index(severity.lower())
    except ValueError:
        raise ConfigError(f"severity must be one of {', '.join(SEVERITIES)}, got {severity!r}",
                          field="severity") from None


def installed_versions() -> dict[str, str | None]:
    """The scanners' installed versions (None when absent)."""
    out: dict[str, str | None] = {}
    for name in ("bandit", "detect-secrets"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def check_pins(spec: SecurityScanSpec) -> dict[str, str]:
    """The pinned versions, after checking the installed ones match; ConfigError names the field."""
    have = installed_versions()
    pins = {"bandit": spec.bandit, "detect-secrets": spec.detect_secrets}
    for name, pin in pins.items():
        if have[name] != pin:
            field = "scoring.security." + name.replace("-", "_")
            raise ConfigError(f"{name} {pin} is pinned but {have[name] or 'nothing'} is installed; "
                              f"install {name}=={pin} or change the pin (the manifest id changes)", field=field)
    return pins


@dataclass(frozen=True)
class ProgramScan:
    """A program's findings; `parsed` is False when bandit could not read it (a syntax error)."""
    findings: tuple[SecurityFinding, ...]
    parsed: bool = True


def scan_programs(programs: Mapping[str, str], spec: SecurityScanSpec,
                  skip_lines: Mapping[str, int] | None = None) -> dict[str, ProgramScan]:
    """Each program's scan by key. `skip_lines[key]` lines at the top are the task's own code (its
    preamble): findings there are not the candidate's and are dropped."""
    pins = check_pins(spec)
    skip_lines = skip_lines or {}
    with tempfile.TemporaryDirectory(prefix="passgate-scan-") as tmp:
        paths = {}
        for i, (key, text) in enumerate(programs.items()):
            path = Path(tmp) / f"p{i}.py"
            path.write_text(text, encoding="utf-8")
            paths[str(path)] = key
        found: dict[str, list[SecurityFinding]] = {key: [] for key in programs}
        unparsed = set()
        for path, finding in _bandit(list(paths), spec, pins["bandit"]):
            if finding is None:
                unparsed.add(paths[path])
            else:
                found[paths[path]].append(finding)
        for path, finding in _secrets(list(paths), pins["detect-secrets"]):
            found[paths[path]].append(finding)
    return {key: ProgramScan(tuple(sorted((f for f in items if f.line > skip_lines.get(key, 0)),
                                          key=lambda f: (f.line, f.rule_id))), key not in unparsed)
            for key, items in found.items()}


def _bandit(paths: list[str], spec: SecurityScanSpec, version: str) -> Iterable[tuple[str, SecurityFinding | None]]:
    """(path, finding) for each issue, and (path, None) for each program bandit could not parse."""
    from bandit.core import config as bandit_config
    from bandit.core import manager as bandit_manager
    # bandit logs a line per file it cannot name as a module: the files are programs, not a package
    logging.getLogger("bandit").setLevel(logging.ERROR)
    # bandit's optional SARIF formatter needs a package passgate does not use; its plugin loader
    # reports that at ERROR on every scan, on the user's terminal
    logging.getLogger("stevedore.extension").setLevel(logging.CRITICAL)
    conf = bandit_config.BanditConfig()
    mgr = bandit_manager.BanditManager(conf, "file", quiet=True, profile={"exclude": list(spec.skip)},
                                       ignore_nosec=True)   # a candidate's `# nosec` comment must not hide a finding
    mgr.discover_files(paths)
    mgr.run_tests()
    for issue in mgr.get_issue_list():
        d = issue.as_dict(with_code=False)
        yield d["filename"], SecurityFinding(
            f"bandit {version}", d["test_id"], d["test_name"], d["issue_severity"].lower(),
            d["issue_confidence"].lower(), int(d["line_number"]), d["issue_text"])
    for path, _reason in mgr.skipped:
        yield path, None


def _secrets(paths: list[str], version: str) -> Iterable[tuple[str, SecurityFinding]]:
    from detect_secrets import SecretsCollection
    from detect_secrets.settings import default_settings
    with default_settings():
        for path in paths:
            collection = SecretsCollection()
            collection.scan_file(path)
            for _name, secret in collection:
                heuristic = secret.type in _SECRET_HEURISTICS
                yield path, SecurityFinding(
                    f"detect-secrets {version}", "DS-" + secret.type.lower().replace(" ", "-"), secret.type,
                    "low" if heuristic else "high", "low" if heuristic else "high", int(secret.line_number or 0),
                    f"possible hard-coded secret: {secret.type}")
