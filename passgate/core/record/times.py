"""Record timestamps (ISO 8601 in UTC, as stored) as a person reads them."""

from __future__ import annotations

import datetime as _dt


def _parse(iso: str | None) -> _dt.datetime | None:
    if not iso:
        return None
    try:
        moment = _dt.datetime.fromisoformat(str(iso))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=_dt.timezone.utc)


def local_time(iso: str | None) -> str:
    """`2026-12-02T16:38:54.859+00:00` → `2026-12-02 17:38 CET` in this machine's time zone."""
    moment = _parse(iso)
    if moment is None:
        return str(iso or "—")
    return moment.astimezone().strftime("%Y-%m-%d %H:%M %Z").strip()


def utc_time(iso: str | None) -> str:
    """The same instant in UTC, for text that must not depend on the reader's machine (the verdict)."""
    moment = _parse(iso)
    if moment is None:
        return str(iso or "unknown time")
    return moment.astimezone(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
