"""Remove secrets from text before it is stored: values of secret-looking variables in the
controller's environment and the planted canary never reach the record."""

from __future__ import annotations

import os
import re

_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|CANARY|AUTH)", re.I)
_PATTERNS = (re.compile(r"(?i)(bearer\s+)[a-z0-9._\-]{12,}"), re.compile(r"\bsk-[A-Za-z0-9_\-]{16,}"))


def secret_values() -> list[str]:
    return sorted({v for k, v in os.environ.items() if _SECRET_NAME.search(k) and len(v) >= 6}, key=len,
                  reverse=True)


def redact(text: str) -> str:
    if not text:
        return text
    for value in secret_values():
        if value in text:
            text = text.replace(value, "[redacted]")
    for pat in _PATTERNS:
        text = pat.sub(lambda m: (m.group(1) if m.groups() else "") + "[redacted]", text)
    return text
