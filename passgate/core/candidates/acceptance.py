"""A product's suggestion log joined to a run: which candidates were shown, accepted, edited after.

One JSON object per line: `task_id` and `candidate_index` (the candidate's id in the run; or
`candidate_id` as `TASK_ID#INDEX`), `shown`, `accepted` and optionally `edited_after` (booleans).
Every line must name a candidate of the run; an accepted suggestion must have been shown, and only
an accepted one can be edited after. The rows are appended to the run's hash-chained `acceptance`
table with the log's sha256; a candidate is logged once. Reports show acceptance beside pass@1
(core/score/edits.py); a run without a log shows none.
"""

from __future__ import annotations

import re
from pathlib import Path

from passgate.core.errors import ConfigError
from passgate.core.record.queries import runs
from passgate.core.record.store import Store, utcnow
from passgate.core.tasks.io import file_sha256, iter_json_lines, optional, require

_ID = re.compile(r"^(?P<task>.+)#(?P<index>\d+)$")


def read_log(path: str | Path, candidates: set[tuple[str, int]]) -> list[dict]:
    """The log's rows, each checked against the run's candidates.

    Raises:
        ConfigError: a bad line, field or combination, or a candidate not in the run (naming file, line, field).
    """
    path = Path(path)
    rows, seen = [], {}
    for line, record in iter_json_lines(path):
        key = _candidate(record, path, line)
        if key not in candidates:
            raise ConfigError(f"candidate {key[0]}#{key[1]} is not in the run", path=str(path), line=line,
                              field="candidate_id" if "candidate_id" in record else "task_id")
        if key in seen:
            raise ConfigError(f"candidate {key[0]}#{key[1]} is logged twice (first on line {seen[key]})",
                              path=str(path), line=line, field="task_id")
        seen[key] = line
        shown = require(record, "shown", bool, path, line)
        accepted = require(record, "accepted", bool, path, line)
        edited = optional(record, "edited_after", bool, None, path, line)
        if accepted and not shown:
            raise ConfigError("a suggestion never shown cannot be accepted", path=str(path), line=line,
                              field="accepted")
        if edited and not accepted:
            raise ConfigError("only an accepted suggestion can be edited after", path=str(path), line=line,
                              field="edited_after")
        rows.append({"task_id": key[0], "candidate_index": key[1], "shown": int(shown), "accepted": int(accepted),
                     "edited_after": None if edited is None else int(edited), "source_ref": f"{path.name}:{line}"})
    if not rows:
        raise ConfigError("the suggestion log has no records", path=str(path))
    return rows


def _candidate(record: dict, path: Path, line: int) -> tuple[str, int]:
    if "candidate_id" in record:
        match = _ID.match(require(record, "candidate_id", str, path, line))
        if not match:
            raise ConfigError("must be TASK_ID#INDEX", path=str(path), line=line, field="candidate_id")
        return match.group("task"), int(match.group("index"))
    return require(record, "task_id", str, path, line), require(record, "candidate_index", int, path, line)


def import_log(store: Store, run_id: str, path: str | Path) -> dict:
    """Check the log against the run and append it; returns what was recorded."""
    run = store.run(run_id)
    rid = run["run_id"]
    candidates = runs.candidate_keys(store, rid)
    rows = read_log(path, candidates)
    logged = runs.acceptance_keys(store, rid)
    again = [r for r in rows if (r["task_id"], r["candidate_index"]) in logged]
    if again:
        raise ConfigError(f"{len(again)} candidates are already in this run's suggestion log (e.g. "
                          f"{again[0]['task_id']}#{again[0]['candidate_index']}); the log is append-only",
                          path=str(path), field="task_id")
    digest, now = file_sha256(path), utcnow()
    store.append("acceptance", [{"run_id": rid, **r, "log_sha256": digest, "at": now} for r in rows])
    shown, accepted = sum(r["shown"] for r in rows), sum(r["accepted"] for r in rows)
    store.event(rid, "acceptance", f"suggestion log {Path(path).name} (sha256 {digest[:12]}): {len(rows)} candidates, "
                                   f"{shown} shown, {accepted} accepted")
    return {"run_id": rid, "rows": len(rows), "shown": shown, "accepted": accepted, "sha256": digest}
