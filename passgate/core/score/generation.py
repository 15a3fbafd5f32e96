"""The generation part of a report: the contract as frozen, and what generating cost.

Read from the record alone through its aggregating queries (core/record/queries/generation.py), so
a report over a million candidates scans the table once and loops over no rows in Python. `generation_section`
gives plain data for the JSON report, and `generation_lines` gives the text lines.
"""

from __future__ import annotations

import json

from passgate.core.manifest import Manifest, frozen_form
from passgate.core.record.queries import generation as queries

from .report_types import GenerationSection

# Contract keys shown in the report, in this order (the API key's variable name, never its value).
CONTRACT_KEYS = ("endpoint", "api", "model", "model_revision", "api_key_env", "system_prompt", "temperature",
                 "top_p", "max_tokens", "stop", "n_per_task", "seed_base", "logprobs", "concurrency",
                 "request_timeout_s", "retries", "streaming", "repair", "fim")
ERRORS_LISTED = 50


def generation_section(store, run_id: str, manifest: Manifest | None) -> GenerationSection | None:
    """Contract, outcome counts and token/time cost of a generated run; None for other sources.
    `store` is the Store, or a sqlite3 connection to its file; `manifest` the run's frozen one."""
    gen = manifest.generation if manifest is not None and manifest.candidates.source == "generate" else None
    if gen is None:
        return None
    (total, ok, prompt_tokens, completion_tokens, no_counts, latency, stop, length, model_lo, model_hi,
     model_missing, entries, request_s, wall_s) = queries.generation_totals(store, run_id)
    ok, entries = int(ok), int(entries)
    if gen.repair.enabled:
        requests, retries, failed, repair_rounds, request_s = queries.attempt_totals(store, run_id)
    else:
        requests, retries, failed, repair_rounds = entries, entries - total, entries - ok, 0
    if stop + length == ok:             # the usual vocabulary: no second scan
        finish = {k: int(v) for k, v in (("length", length), ("stop", stop)) if v}
    else:
        finish = queries.finish_reasons(store, run_id)
    if model_lo == model_hi and not model_missing:
        models = {model_lo: ok} if ok else {}
    else:
        models = queries.served_models(store, run_id)
    tasks = queries.task_count(store, run_id)
    errors = [{"task_id": e.task_id, "candidate_index": e.candidate_index, "error": e.error}
              for e in queries.generation_errors(store, run_id, ERRORS_LISTED)]
    return {
        "contract": {k: frozen_form(getattr(gen, k)) for k in CONTRACT_KEYS},   # as frozen
        "prompt_template": manifest.tasks.prompt_template,
        "postprocess": frozen_form(manifest.candidates.postprocess),
        "expected": tasks * (gen.n_per_task or 1),
        "candidates": total,
        "ok": ok,
        "generation_error_count": total - ok,
        "generation_errors": errors,           # the first ERRORS_LISTED, by task and index
        "finish_reasons": finish,
        "truncated": int(length),
        "served_models": models,
        "requests": int(requests),
        "retries": int(retries),
        "failed_requests": int(failed),
        "repair_rounds": int(repair_rounds),
        "prompt_tokens": int(prompt_tokens),
        "completion_tokens": int(completion_tokens),
        "candidates_without_token_counts": int(no_counts),
        "request_s": round(request_s, 3),
        "wall_s": round(max(wall_s or 0.0, 0.0), 3),
        "mean_latency_ms": round(latency, 1) if latency is not None else None,
        "completion_tokens_per_s": round(completion_tokens / request_s, 1) if request_s else None,
    }


def generation_lines(section: GenerationSection) -> list[str]:
    """Plain-text report lines for a generation section."""
    c = section["contract"]
    repair = c.get("repair") or {}
    lines = [
        f"generation: {c['api']} API at {c['endpoint']}, model {c['model']}"
        + (f" (pinned revision {c['model_revision']})" if c.get("model_revision") else ""),
        f"  sampling: temperature {c['temperature']}, top_p {c['top_p']}, max_tokens {c['max_tokens']}, "
        f"stop {json.dumps(c['stop'])}, n_per_task {c['n_per_task']}, seed {_seed_policy(c['seed_base'])}",
        f"  requests: concurrency {c['concurrency']}, timeout {c['request_timeout_s']}s, retries {c['retries']}, "
        f"streaming {c['streaming']}, logprobs {c['logprobs']}, repair "
        + (f"on, {repair.get('rounds')} rounds ({section['repair_rounds']} used)" if repair.get("enabled") else "off"),
        f"  prompt template: {json.dumps(section['prompt_template'])}",
        "  served model: " + (", ".join(f"{m} ({n})" for m, n in section["served_models"].items()) or "none"),
        f"  candidates: {section['ok']} answered, {section['generation_error_count']} generation errors, "
        f"{section['expected'] - section['candidates']} not generated; finish reasons "
        + (", ".join(f"{k} {v}" for k, v in section["finish_reasons"].items()) or "none")
        + (f" ({section['truncated']} truncated at max_tokens, graded as answered)" if section["truncated"] else ""),
        f"  cost: {section['prompt_tokens']} prompt + {section['completion_tokens']} completion tokens"
        + (f" ({section['candidates_without_token_counts']} answers without counts)"
           if section["candidates_without_token_counts"] else "")
        + f"; {section['requests']} requests ({section['retries']} retries, {section['failed_requests']} failed); "
        f"{section['request_s']:.1f}s of requests in {section['wall_s']:.1f}s wall",
    ]
    fim = c.get("fim")
    if fim:
        lines.append("  local edits: " + ("the completions API's suffix parameter" if fim.get("mode") == "suffix" else
                                          f"{fim.get('template')} template {json.dumps(fim.get('format'))}, sentinels "
                                          f"{json.dumps(fim.get('sentinels'))}")
                     + f", stopped at {json.dumps(fim.get('end_tokens') or [])}")
    for err in section["generation_errors"]:
        lines.append(f"  generation error {err['task_id']} #{err['candidate_index']}: {err['error']}")
    if section["generation_error_count"] > len(section["generation_errors"]):
        lines.append(f"  … and {section['generation_error_count'] - len(section['generation_errors'])} more")
    return lines


def _seed_policy(seed_base) -> str:
    return "not sent" if seed_base is None else f"{seed_base} + candidate index"
