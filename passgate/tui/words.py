"""The gate's sentences as the console says them: keys where the command line names a command."""

from __future__ import annotations

import re

# what the console's keys are for each kind of need (the command line prints the command instead)
NEED_KEYS = {"signoff": "b, then s on {subject}", "manifest": "n: a new run whose manifest justifies it",
             "rerun": "n: a new run", "evidence": "", "alert": ""}
_COMMAND = re.compile(r"; sign it with `passgate signoff [^`]*`")


def for_console(text: str) -> str:
    """A gate sentence with the sign-off command replaced by the console's keys."""
    return _COMMAND.sub("; sign it off here: b, then s on that boundary", text)
