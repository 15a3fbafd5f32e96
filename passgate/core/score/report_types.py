"""The run report's layout as types: `Report` and every section `build_report` puts in it.

The report stays a plain dict (JSON-ready, read by key by every renderer, the gate and the console),
so its types are TypedDicts: they add names and value types without changing one byte of the JSON or
one `report["x"]` of a consumer. Keys are declared in the order the builders write them, which is the
order of the JSON; tests/core/test_report_types.py walks real reports against these declarations and
docs/report-schema.md against `Report`. The sections use the functional form, several keys a line, so
the whole layout reads on a few screens and keys that are Python keywords (`class`, `in`) are spelled
as the JSON spells them.

Values typed `Any` (`Recorded`, `FrozenValue`) are what the record or the frozen manifest holds as its
own JSON (the probe, the preflight, the self-check, a manifest section), passed through as written.

This module imports nothing from its siblings, so every section module can import it.
"""

from typing import Any, Literal, NotRequired, TypedDict

Recorded = Any   # a JSON column as recorded: an object, its text when it is not JSON, None when NULL
FrozenValue = Any   # a value of the frozen manifest as written there (None when the manifest omits it)


# ---- shared pieces ---------------------------------------------------------------------------

Interval = TypedDict("Interval", {"ci_low": float | None, "ci_high": float | None, "se": float | None})

# A figure with its bootstrap interval and standard error.
Estimate = TypedDict("Estimate", {
    "value": float | None, "ci_low": float | None, "ci_high": float | None, "se": float | None})

Spread = TypedDict("Spread", {"min": int | None, "median": float | None, "max": int | None})

# What a pass@k figure averages over, and what it leaves out (n < k).
Denominator = TypedDict("Denominator", {
    "k": int, "tasks": int, "not_estimable_tasks": int, "no_counted_candidates": int,
    "candidates_per_task": Spread, "candidates": int})

# The interval specification recorded beside the figures (intervals.interval_dict).
IntervalRecord = TypedDict("IntervalRecord", {
    "method": str, "level": float, "resamples": int, "seed": int, "resampled": str, "interval": str,
    "candidate_level": NotRequired[str]})


# ---- run, config, counts (context.py) ---------------------------------------------------------

RunSection = TypedDict("RunSection", {
    "run_id": str, "name": str | None, "status": str | None, "manifest_id": str | None, "model": str | None,
    "operator": str | None, "policy": str | None, "runtime": str | None, "image": str | None,
    "image_digest": str | None, "worker_sha256": str | None, "created_at": str | None,
    "started_at": str | None, "finished_at": str | None, "passgate_version": str | None, "error": str | None,
    "seeds": Recorded, "host": Recorded})

BenchmarkRow = TypedDict("BenchmarkRow", {
    "set_id": str, "revision": str | None, "sha256": str | None, "tasks": int | None})

SuitesPolicy = TypedDict("SuitesPolicy", {
    "headline_suite": str, "verifier": str, "tasks_with_public_tests": int, "tasks_without_public_tests": int,
    "rule": str})

TaskCpuLimits = TypedDict("TaskCpuLimits", {
    "calibrated_tasks": int, "min": float | None, "median": float | None, "max": float | None})

TimeoutPolicy = TypedDict("TimeoutPolicy", {
    "timeout": FrozenValue, "cpu_limit_s": FrozenValue, "wall_factor": FrozenValue, "reruns": FrozenValue,
    "task_cpu_limit_s": TaskCpuLimits, "runner_limits": Recorded})

ImportPolicyRow = TypedDict("ImportPolicyRow", {
    "set": str, "kind": str, "declared": bool, "allowed_imports": str})

PackagePolicy = TypedDict("PackagePolicy", {"packages": list[str], "rule": str})

SandboxConfig = TypedDict("SandboxConfig", {
    "runtime": str | None, "image": str | None, "image_digest": str | None, "network": FrozenValue,
    "filesystem": FrozenValue, "isolation": FrozenValue})

ConfigSection = TypedDict("ConfigSection", {
    "model": str | None, "candidates_source": str | None, "decoding": FrozenValue,
    "benchmarks": list[BenchmarkRow], "tasks_contract": FrozenValue, "test_policy": SuitesPolicy,
    "timeout_policy": TimeoutPolicy, "import_policy": list[ImportPolicyRow], "package_policy": PackagePolicy,
    "sandbox": SandboxConfig, "scoring": FrozenValue})

CountsSection = TypedDict("CountsSection", {
    "tasks": int, "candidates": int, "outcomes": int, "counted": int, "passed": int, "flaky": int,
    "failed": int, "infra_error": int, "excluded": int, "pending": int})


# ---- scores and the pass@1 variants (report.py) ----------------------------------------------

Headline = TypedDict("Headline", {
    "k": int, "aggregation": str, "value": float | None, "ci_low": float | None, "ci_high": float | None,
    "se": float | None, "denominator": Denominator})

PassAtKRow = TypedDict("PassAtKRow", {
    "k": int, "micro": Estimate, "macro": Estimate, "denominator": Denominator})

GroupEntry = TypedDict("GroupEntry", {
    "k": int, "value": float | None, "ci_low": float | None, "ci_high": float | None, "se": float | None,
    "denominator": Denominator})

# weight: slices only
ScoreGroup = TypedDict("ScoreGroup", {
    "kind": Literal["slice", "set", "tag"], "name": str, "tasks": int, "pass_at_k": list[GroupEntry],
    "weight": NotRequired[float]})

ScoresSection = TypedDict("ScoresSection", {
    "verifier": str, "aggregation": str, "k": list[int], "weights": dict[str, float],
    "weights_for_absent_slices": dict[str, float], "interval": IntervalRecord, "headline": Headline,
    "pass_at_k": list[PassAtKRow], "groups": list[ScoreGroup]})

PublicProtectedRow = TypedDict("PublicProtectedRow", {
    "k": int, "public": Estimate, "protected": Estimate, "gap": Estimate, "denominator": Denominator})

PublicProtectedSection = TypedDict("PublicProtectedSection", {
    "aggregation": str, "tasks": int, "tasks_without_public_tests": int, "pass_at_k": list[PublicProtectedRow],
    "note": str})

FilteredSection = TypedDict("FilteredSection", {
    "value": float | None, "ci_low": float | None, "ci_high": float | None, "se": float | None, "tasks": int,
    "no_public_pass_tasks": int, "no_public_pass_share": float | None, "tasks_without_public_tests": int,
    "rule": str})

RankedSection = TypedDict("RankedSection", {
    "available": Literal[True], "tasks": int, "value": float, "ci_low": float | None, "ci_high": float | None,
    "se": float | None, "random_pass_at_1": float | None, "difference": float | None, "rule": str})

RankedUnavailable = TypedDict("RankedUnavailable", {
    "available": Literal[False], "tasks": int, "value": None, "random_pass_at_1": None, "reason": str})


# ---- execution, cost, flaky, omissions (context.py) ------------------------------------------

AttemptCount = TypedDict("AttemptCount", {
    "purpose": str, "status": str, "failure_class": str | None, "count": int})

CpuSeconds = TypedDict("CpuSeconds", {
    "sum": float, "median": float | None, "p95": float | None, "max": float | None})

WallSeconds = TypedDict("WallSeconds", {"sum": float})

Histogram = TypedDict("Histogram", {"scale": str, "unit": str, "edges": list[float], "counts": list[int]})

InfraErrors = TypedDict("InfraErrors", {"candidates": int, "attempts": int})

# failure_categories: category -> its classes' counts and "total"
ExecutionSection = TypedDict("ExecutionSection", {
    "attempts": int, "attempts_by_purpose": dict[str, int], "attempts_not_plain": list[AttemptCount],
    "cpu_s": CpuSeconds, "wall_s": WallSeconds, "histogram": Histogram, "timeouts": int,
    "timeout_rate": float | None, "failure_classes": dict[str, int],
    "failure_categories": dict[str, dict[str, int]], "infra_errors": InfraErrors, "rescored_by_limit": int})

SliceCost = TypedDict("SliceCost", {"sandbox_cpu_s": float, "attempts": int})

CostSection = TypedDict("CostSection", {
    "sandbox_cpu_s": float, "sandbox_wall_s": float, "attempts": int, "prompt_tokens": int,
    "completion_tokens": int, "by_slice": dict[str, SliceCost]})

FlakyTask = TypedDict("FlakyTask", {"task_id": str, "flaky": int, "counted": int})

FlakySection = TypedDict("FlakySection", {
    "total": int, "tasks_with_flaky": int, "tasks": list[FlakyTask], "rule": str})

OmittedCandidate = TypedDict("OmittedCandidate", {
    "task_id": str, "candidate_index": int, "outcome": str, "failure_class": str | None, "reason": str})

OmittedTask = TypedDict("OmittedTask", {"task_id": str, "reason": str})

NotEstimable = TypedDict("NotEstimable", {"k": int, "tasks": int, "task_ids": list[str]})

OutcomeOmissionCounts = TypedDict("OutcomeOmissionCounts", {
    "excluded": int, "infra_error": int, "pending": int, "tasks_without_counted_candidates": int})

OmissionCounts = TypedDict("OmissionCounts", {
    "excluded": int, "infra_error": int, "pending": int, "tasks_without_counted_candidates": int,
    "not_imported": int})

# What the outcomes leave out, before the samples lines that never became candidates join it.
OutcomeOmissions = TypedDict("OutcomeOmissions", {
    "candidates": list[OmittedCandidate], "tasks": list[OmittedTask], "not_estimable": list[NotEstimable],
    "counts": OutcomeOmissionCounts})

# not_imported: each line as the run's evidence recorded it (file, line, reason, ...)
OmissionsSection = TypedDict("OmissionsSection", {
    "candidates": list[OmittedCandidate], "tasks": list[OmittedTask], "not_estimable": list[NotEstimable],
    "counts": OmissionCounts, "not_imported": list[dict[str, Any]]})


# ---- what the record says beside the scores (fidelity, integrity, ... modules) ----------------

FidelityVerdict = TypedDict("FidelityVerdict", {"status": str, "class": str | None, "detail": str})

Disagreement = TypedDict("Disagreement", {
    "task_id": str, "candidate_index": int, "attempt": int | None, "purpose": str | None,
    "isolated": FidelityVerdict, "classic": FidelityVerdict, "explained": str | None})

FidelitySummary = TypedDict("FidelitySummary", {
    "checked": int, "agreed": int, "rate": float | None, "disagreements": list[Disagreement],
    "unexplained": int})

GraderNotes = TypedDict("GraderNotes", {"task_id": str, "candidate_index": int, "notes": list[str]})

FidelitySection = TypedDict("FidelitySection", {
    "grading_protocol": int, "checked": int, "agreed": int, "rate": float | None,
    "disagreements": list[Disagreement], "unexplained": int, "notes": list[GraderNotes]})

IntegrityBlock = TypedDict("IntegrityBlock", {
    "candidates": int, "with_record": int, "outside": int, "visible": int, "in_process": int,
    "process_control": int, "decided": int, "in_process_share": float | None})

IntegritySlice = TypedDict("IntegritySlice", {
    "slice": str, "candidates": int, "with_record": int, "outside": int, "visible": int, "in_process": int,
    "process_control": int, "decided": int, "in_process_share": float | None})

IntegritySection = TypedDict("IntegritySection", {
    "recorded": Literal[True], "grading_protocol": int, "reason": str, "headline": IntegrityBlock,
    "slices": list[IntegritySlice]})

# slices is always empty: nothing recorded is never shown as zeros
IntegrityNotRecorded = TypedDict("IntegrityNotRecorded", {
    "recorded": Literal[False], "grading_protocol": int | None, "headline": None,
    "slices": list[IntegritySlice], "reason": str})

# A section the record cannot fill (it predates it, or it does not apply), and why.
NotRecorded = TypedDict("NotRecorded", {"recorded": Literal[False], "reason": str})

NotScanned = TypedDict("NotScanned", {"scanned": Literal[False], "reason": str})

# with_findings: severity -> candidates with a finding at or above it
SeverityRates = TypedDict("SeverityRates", {
    "candidates": int, "with_findings": dict[str, int], "rate": dict[str, float | None]})

PassingFailing = TypedDict("PassingFailing", {"passing": SeverityRates, "failing": SeverityRates})

SecurityGroup = TypedDict("SecurityGroup", {
    "slice": str, "model": str, "passing": SeverityRates, "failing": SeverityRates})

TopRule = TypedDict("TopRule", {
    "rule_id": str, "rule": str, "severity": str, "scanner": str, "candidates": int, "passing": int})

SecurityExample = TypedDict("SecurityExample", {
    "task_id": str, "candidate_index": int, "outcome": str, "rule_id": str, "rule": str, "severity": str,
    "confidence": str, "line": int, "code": str, "text": str})

SecurityRulesAndExamples = TypedDict("SecurityRulesAndExamples", {
    "top_rules": list[TopRule], "examples": list[SecurityExample]})

# scanners: scanner -> version, as recorded
SecuritySection = TypedDict("SecuritySection", {
    "scanned": Literal[True], "scanners": dict[str, str], "candidates_scanned": int, "distinct_programs": int,
    "unparsed": int, "severities": list[str], "overall": PassingFailing, "groups": list[SecurityGroup],
    "top_rules": list[TopRule], "examples": list[SecurityExample]})

CanaryTask = TypedDict("CanaryTask", {
    "task_id": str, "impossible_because": str, "candidates": int, "passed": int})

CanaryFinding = TypedDict("CanaryFinding", {
    "task_id": str, "candidate_index": int, "impossible_because": str, "completion": str})

CanariesSection = TypedDict("CanariesSection", {
    "enabled": bool, "tasks": int, "candidates": int, "passed": int, "rate": float | None,
    "per_task": list[CanaryTask], "findings": list[CanaryFinding]})

TamperGroup = TypedDict("TamperGroup", {
    "slice": str, "model": str, "candidates": int, "with_events": int, "rate": float | None})

TamperKind = TypedDict("TamperKind", {"kind": str, "candidates": int})

TamperExample = TypedDict("TamperExample", {
    "task_id": str, "candidate_index": int, "slice": str, "outcome": str, "events": list[str]})

TamperSection = TypedDict("TamperSection", {
    "recorded": Literal[True], "candidates": int, "with_events": int, "rate": float | None,
    "groups": list[TamperGroup], "kinds": list[TamperKind], "examples": list[TamperExample]})

# modules: module -> candidates the sandbox refused it to
ContractCounts = TypedDict("ContractCounts", {
    "candidates": int, "disallowed_import": int, "modules": dict[str, int], "named": int,
    "named_modules": dict[str, int], "named_not_run": int, "dynamic": int, "signature_changed": int,
    "signature_unknown": int})

ContractGroup = TypedDict("ContractGroup", {
    "slice": str, "model": str, "allowed_imports": str, "candidates": int, "disallowed_import": int,
    "modules": dict[str, int], "named": int, "named_modules": dict[str, int], "named_not_run": int,
    "dynamic": int, "signature_changed": int, "signature_unknown": int})

# `in` is a keyword: the functional form spells the key as the JSON does
RefusedImport = TypedDict("RefusedImport", {
    "task_id": str, "candidate_index": int, "slice": str, "outcome": str, "module": str | None,
    "line": int | None, "how": str | None, "in": str, "code": str})

SignatureExample = TypedDict("SignatureExample", {
    "task_id": str, "candidate_index": int, "outcome": str, "changes": list[str]})

# allowed_imports: slice -> allowed imports in words
ContractSection = TypedDict("ContractSection", {
    "recorded": Literal[True], "scanned": int, "model": str, "allowed_imports": dict[str, str],
    "overall": ContractCounts, "groups": list[ContractGroup], "examples": list[RefusedImport],
    "signature_examples": list[SignatureExample]})


# ---- task families: chained, languages, repository --------------------------------------------

DepthRow = TypedDict("DepthRow", {
    "depth": int, "tasks": int, "candidates": int, "passed": int, "pass_rate": float, "ci_low": float,
    "ci_high": float})

Decay = TypedDict("Decay", {
    "model": str, "a": float, "factor": float | None, "ci_low": float | None, "ci_high": float | None,
    "depths": int})

ChainedSection = TypedDict("ChainedSection", {
    "per_depth": list[DepthRow], "level": float, "resamples": int, "decay": Decay})

LanguageRate = TypedDict("LanguageRate", {
    "tasks": int, "counted_tasks": int, "candidates": int, "passed": int, "pass_at_1": float | None,
    "ci_low": float | None, "ci_high": float | None})

LanguageIntegrity = TypedDict("LanguageIntegrity", {"outside": LanguageRate, "in_process": LanguageRate})

StepTime = TypedDict("StepTime", {"total": float, "median": float, "p95": float})

# the four step times are absent when no attempt was timed
LanguageTiming = TypedDict("LanguageTiming", {
    "attempts": int, "compile_s": NotRequired[StepTime], "run_s": NotRequired[StepTime],
    "compile_cpu_s": NotRequired[StepTime], "run_cpu_s": NotRequired[StepTime]})

LanguageRow = TypedDict("LanguageRow", {
    "language": str, "title": str, "datasets": list[str], "tasks": int, "counted_tasks": int,
    "candidates": int, "passed": int, "pass_at_1": float | None, "ci_low": float | None,
    "ci_high": float | None, "integrity": LanguageIntegrity, "with_reference": int, "classes": dict[str, int],
    "timing": LanguageTiming, "in_process_fraction": float | None})

IntegrityWords = TypedDict("IntegrityWords", {"outside": str, "in_process": str})

LanguagesSection = TypedDict("LanguagesSection", {
    "per_language": list[LanguageRow], "level": float, "integrity_words": IntegrityWords})

RepositoryTotals = TypedDict("RepositoryTotals", {
    "candidates": int, "passed": int, "applies": int, "build_passed": int, "rollback_restores": int,
    "test_edits": int, "refused": int, "dependency_changes": int, "secrets": int, "tampering": int,
    "failure_classes": dict[str, int]})

RepositoryTask = TypedDict("RepositoryTask", {
    "task_id": str, "slice": str, "candidates": int, "passed": int, "applies": int,
    "median_files_changed": float | None, "median_lines_added": float | None,
    "median_lines_removed": float | None, "median_reviewer_burden": float | None, "rollback_restores": int})

SuiteTests = TypedDict("SuiteTests", {"status": str | None, "passed": int, "total": int})

Rollback = TypedDict("Rollback", {"applies": bool | None, "restores": bool | None})

# One graded patch; `refused`, `secrets` and `tampering` are the patch scan's own JSON; `label` is the
# candidate's source_ref, None when its source named none.
PatchEntry = TypedDict("PatchEntry", {
    "task_id": str, "candidate_index": int, "label": str | None, "passed": bool, "failure_class": str | None,
    "detail": str | None, "applies": bool, "apply_error": str | None, "files_changed": int | None,
    "lines_added": int | None, "lines_removed": int | None, "reviewer_burden": float | None,
    "files": list[str], "test_files_touched": list[str], "refused": list[Any], "dependency_files": list[str],
    "secrets": list[dict[str, Any]], "build": str | None, "build_log_tail": str | None, "public": SuiteTests,
    "protected": SuiteTests, "rollback": Rollback, "tampering": list[Any]})

PatchTampering = TypedDict("PatchTampering", {
    "task_id": str, "candidate_index": int, "label": str | None, "failure_class": str | None,
    "findings": list[Any]})

RepositorySection = TypedDict("RepositorySection", {
    "totals": RepositoryTotals, "tasks": list[RepositoryTask], "candidates": list[PatchEntry],
    "candidates_omitted": int, "references": list[PatchEntry], "tampering": list[PatchTampering]})


# ---- local edits and latency (edits.py, latency.py) -------------------------------------------

# A slice's pass@1 from `scores`; a group without one has only its own mean over tasks.
PassAt1 = TypedDict("PassAt1", {
    "value": float | None, "ci_low": NotRequired[float | None], "ci_high": NotRequired[float | None]})

Agreement = TypedDict("Agreement", {
    "exact_passed": int, "exact_failed": int, "inexact_passed": int, "inexact_failed": int})

EditGroup = TypedDict("EditGroup", {
    "slice": str, "tasks": int, "candidates": int, "pass_at_1": PassAt1, "exact_match": float | None,
    "edit_similarity": float | None, "agreement": Agreement, "similarity_of_passed": float | None,
    "similarity_of_failed": float | None, "exact": int})

EditExample = TypedDict("EditExample", {
    "task_id": str, "candidate_index": int, "outcome": str, "similarity": float, "middle": str,
    "canonical": str})

EditDisagreements = TypedDict("EditDisagreements", {
    "inexact_passed": list[EditExample], "exact_failed": list[EditExample],
    "most_similar_failed": list[EditExample]})

AcceptanceGroup = TypedDict("AcceptanceGroup", {
    "slice": str, "logged": int, "shown": int, "accepted": int, "acceptance": float | None,
    "edited_after": int, "edited_after_rate": float | None, "pass_rate_accepted": float | None,
    "pass_rate_rejected": float | None, "accepted_but_failed": int})

AcceptanceSection = TypedDict("AcceptanceSection", {
    "rule": str, "overall": AcceptanceGroup, "slices": list[AcceptanceGroup]})

EditsSection = TypedDict("EditsSection", {
    "rule": str, "overall": EditGroup, "slices": list[EditGroup], "disagreements": EditDisagreements,
    "acceptance": AcceptanceSection | None})

Quantile = TypedDict("Quantile", {"value": float | None, "ci_low": float | None, "ci_high": float | None})

MeasureSummary = TypedDict("MeasureSummary", {
    "n": int, "mean": float | None, "p50": Quantile, "p90": Quantile, "p99": Quantile})

LatencyGroup = TypedDict("LatencyGroup", {
    "slice": str, "candidates": int, "with_latency": int, "sources": dict[str, int],
    "pass_at_1": PassAt1 | None, "first_token_ms": MeasureSummary, "total_ms": MeasureSummary,
    "tokens_per_s": MeasureSummary})

LatencySection = TypedDict("LatencySection", {
    "level": float, "method": str, "rule": str, "overall": LatencyGroup, "slices": list[LatencyGroup]})

LocalEditSections = TypedDict("LocalEditSections", {
    "edits": EditsSection | None, "latency": LatencySection | None})


# ---- generation (generation.py) ---------------------------------------------------------------

# The manifest's generation settings shown in the report (generation.CONTRACT_KEYS), as frozen.
GenerationContract = TypedDict("GenerationContract", {
    "endpoint": FrozenValue, "api": FrozenValue, "model": FrozenValue, "model_revision": FrozenValue,
    "api_key_env": FrozenValue, "system_prompt": FrozenValue, "temperature": FrozenValue, "top_p": FrozenValue,
    "max_tokens": FrozenValue, "stop": FrozenValue, "n_per_task": FrozenValue, "seed_base": FrozenValue,
    "logprobs": FrozenValue, "concurrency": FrozenValue, "request_timeout_s": FrozenValue, "retries": FrozenValue,
    "streaming": FrozenValue, "repair": FrozenValue, "fim": FrozenValue})

GenerationError = TypedDict("GenerationError", {"task_id": str, "candidate_index": int, "error": str | None})

GenerationSection = TypedDict("GenerationSection", {
    "contract": GenerationContract, "prompt_template": FrozenValue, "postprocess": FrozenValue, "expected": int,
    "candidates": int, "ok": int, "generation_error_count": int, "generation_errors": list[GenerationError],
    "finish_reasons": dict[str, int], "truncated": int, "served_models": dict[str, int], "requests": int,
    "retries": int, "failed_requests": int, "repair_rounds": int, "prompt_tokens": int,
    "completion_tokens": int, "candidates_without_token_counts": int, "request_s": float, "wall_s": float,
    "mean_latency_ms": float | None, "completion_tokens_per_s": float | None})


# ---- tasks and what-ifs (report.py, whatif.py) -------------------------------------------------

# pass_at_k: k as a string -> the task's pass@k, None when n < k
TaskRow = TypedDict("TaskRow", {
    "task_id": str, "slice": str, "set_id": str, "tags": list[str], "has_public_tests": bool, "n": int,
    "c": int, "candidates": int, "flaky": int, "infra_error": int, "excluded": int, "timeouts": int,
    "n_public": int, "c_public": int, "attempts": int, "filtered_pick_passed": bool | None,
    "ranked_pick_passed": bool | None, "cpu_s": float, "pass_at_k": dict[str, float | None]})

# The settings a scenario changed, in `whatif.Scenario` field order; the rest are absent.
WhatIfSettings = TypedDict("WhatIfSettings", {
    "k": list[int], "aggregation": str, "slices": dict[str, float], "cpu_limit_s": float,
    "cpu_limit_factor": float, "verifier": str, "candidates": int, "secure": str}, total=False)

WhatIfRow = TypedDict("WhatIfRow", {
    "k": int, "value": float | None, "baseline": float | None, "delta": float | None, "micro": float | None,
    "macro": float | None, "denominator": Denominator})

WhatIfCost = TypedDict("WhatIfCost", {
    "sandbox_cpu_s": float, "baseline_sandbox_cpu_s": float, "delta_cpu_s": float, "ratio": float | None,
    "attempts": int, "baseline_attempts": int, "notes": list[str]})

WhatIfTimeouts = TypedDict("WhatIfTimeouts", {
    "count": int, "rate": float | None, "passes_turned_timeouts": int})

# insecure_passes: with secure= only
WhatIf = TypedDict("WhatIf", {
    "scenario": str, "settings": WhatIfSettings, "aggregation": str, "baseline_aggregation": str, "tasks": int,
    "pass_at_k": list[WhatIfRow], "cost": WhatIfCost, "timeouts": WhatIfTimeouts,
    "insecure_passes": NotRequired[int]})


# ---- the report --------------------------------------------------------------------------------

class Report(TypedDict):
    """`passgate.report/1` (docs/report-schema.md), key for key in the JSON's order."""

    schema: str
    generated_at: str
    run: RunSection
    config: ConfigSection
    counts: CountsSection
    scores: ScoresSection
    public_vs_protected: PublicProtectedSection
    filtered_pass_at_1: FilteredSection
    ranked_pass_at_1: RankedSection | RankedUnavailable
    execution: ExecutionSection
    cost: CostSection
    flaky: FlakySection
    omissions: OmissionsSection
    probe: Recorded                 # runs.probe_json as recorded
    preflight: Recorded             # runs.preflight_json as recorded
    selfcheck: Recorded             # runs.selfcheck_json as recorded
    fidelity: FidelitySection
    integrity: IntegritySection | IntegrityNotRecorded
    security: SecuritySection | NotScanned
    canaries: CanariesSection
    tamper: TamperSection | NotRecorded
    contract: ContractSection | NotRecorded
    chained: ChainedSection | None
    languages: LanguagesSection | None
    repository: RepositorySection | None
    edits: EditsSection | None
    latency: LatencySection | None
    generation: GenerationSection | None
    tasks: list[TaskRow]
    whatif: list[WhatIf]
