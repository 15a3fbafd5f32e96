"""The generation part of a report: the contract as frozen, and what generating cost.

A pure function of stored rows (the manifest's canonical JSON and the run's candidate rows), so a
report, the console and tests all compute the same numbers from the record alone.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections import Counter

# Contract keys shown in the report, in this order (the API key's variable name, never its value).
CONTRACT_KEYS = ("endpoint", "api", "model", "model_revision", "api_key_env", "system_prompt", "temperature",
                 "top_p", "max_tokens", "stop", "n_per_task", "seed_base", "logprobs", "concurrency",
                 "request_timeout_s", "retries", "streaming", "repair")


def generation_summary(manifest: dict, candidate_rows: list[dict]) -> dict | None:
    """Contract, outcome counts and token/time cost of a generated run; None for other sources."""
    gen = manifest.get("generation")
    if (manifest.get("candidates") or {}).get("source") != "generate" or not gen:
        return None
    rows = [r for r in candidate_rows if r.get("source") == "generate"]
    attempts = [(r, a) for r in rows for a in json.loads(r.get("gen_attempts_json") or "[]") if "attempt" in a]
    ok = [r for r in rows if r.get("gen_status") == "ok"]
    started = [_ts(a["started_at"]) for _, a in attempts if a.get("started_at")]
    ended = [_ts(a["started_at"]) + (a.get("elapsed_ms") or 0) / 1000 for _, a in attempts if a.get("started_at")]
    prompt_tokens = [r["prompt_tokens"] for r in ok if r.get("prompt_tokens") is not None]
    completion_tokens = [r["completion_tokens"] for r in ok if r.get("completion_tokens") is not None]
    request_s = sum((a.get("elapsed_ms") or 0) for _, a in attempts) / 1000
    return {
        "contract": {k: gen.get(k) for k in CONTRACT_KEYS},
        "prompt_template": (manifest.get("tasks") or {}).get("prompt_template"),
        "postprocess": (manifest.get("candidates") or {}).get("postprocess"),
        "expected": len({r["task_id"] for r in candidate_rows}) * int(gen.get("n_per_task") or 1),
        "candidates": len(rows),
        "ok": len(ok),
        "generation_errors": [{"task_id": r["task_id"], "candidate_index": r["candidate_index"],
                               "error": r.get("gen_error")} for r in rows if r.get("gen_status") != "ok"],
        "finish_reasons": dict(Counter(r.get("finish_reason") or "unknown" for r in ok)),
        "truncated": sum(1 for r in ok if r.get("finish_reason") == "length"),
        "served_models": dict(Counter(r.get("model_id") or "unknown" for r in ok)),
        "requests": len(attempts),
        "retries": sum(1 for _, a in attempts if a["attempt"] > 1),
        "failed_requests": sum(1 for _, a in attempts if a.get("outcome") == "error"),
        "repair_rounds": sum(1 for _, a in attempts if a.get("round", 0) > 0 and a["attempt"] == 1),
        "prompt_tokens": sum(prompt_tokens),
        "completion_tokens": sum(completion_tokens),
        "candidates_without_token_counts": len(ok) - min(len(prompt_tokens), len(completion_tokens)),
        "request_s": round(request_s, 3),
        "wall_s": round(max(ended) - min(started), 3) if started else 0.0,
        "mean_latency_ms": round(sum(r.get("latency_ms") or 0 for r in ok) / len(ok), 1) if ok else None,
        "completion_tokens_per_s": round(sum(completion_tokens) / request_s, 1) if request_s else None,
    }


def generation_lines(summary: dict) -> list[str]:
    """Plain-text report lines for a generation summary."""
    c = summary["contract"]
    lines = [f"generation: {c['api']} API at {c['endpoint']}, model {c['model']}"
             + (f" (pinned revision {c['model_revision']})" if c.get("model_revision") else ""),
             f"  sampling: temperature {c['temperature']}, top_p {c['top_p']}, max_tokens {c['max_tokens']}, "
             f"stop {json.dumps(c['stop'])}, n_per_task {c['n_per_task']}, "
             f"seed {_seed_policy(c['seed_base'])}",
             f"  requests: concurrency {c['concurrency']}, timeout {c['request_timeout_s']}s, retries {c['retries']}, "
             f"streaming {c['streaming']}, logprobs {c['logprobs']}, repair "
             + (f"on, {c['repair']['rounds']} rounds" if (c.get("repair") or {}).get("enabled") else "off"),
             f"  prompt template: {json.dumps(summary['prompt_template'])}",
             f"  served model: " + ", ".join(f"{m} ({n})" for m, n in sorted(summary["served_models"].items())),
             f"  candidates: {summary['ok']} answered, {len(summary['generation_errors'])} generation errors, "
             f"{summary['expected'] - summary['candidates']} not generated; finish reasons "
             + ", ".join(f"{k} {v}" for k, v in sorted(summary["finish_reasons"].items()))
             + (f" ({summary['truncated']} truncated at max_tokens, graded as answered)" if summary["truncated"] else ""),
             f"  cost: {summary['prompt_tokens']} prompt + {summary['completion_tokens']} completion tokens; "
             f"{summary['requests']} requests ({summary['retries']} retries, {summary['failed_requests']} failed); "
             f"{summary['request_s']:.1f}s of requests in {summary['wall_s']:.1f}s wall"]
    for err in summary["generation_errors"]:
        lines.append(f"  generation error {err['task_id']} #{err['candidate_index']}: {err['error']}")
    return lines


def _seed_policy(seed_base) -> str:
    return "not sent" if seed_base is None else f"{seed_base} + candidate index"


def _ts(iso: str) -> float:
    return _dt.datetime.fromisoformat(iso).timestamp()
