"""Plain-data building blocks for the gate tests: a healthy run's facts, policies, a recorded run."""

from __future__ import annotations

import dataclasses
import json

from passgate.core.gate.facts import (CheckFact, Contamination, Counts, GateFacts, IntegrityFacts, Score, SignoffFact,
                                      SliceFact, SliceIntegrity)
from passgate.core.gate.policy import load_policy
from passgate.core.manifest import Manifest, parse_manifest
from passgate.core.record.store import Store

DIGEST = "sha256:" + "ab" * 32

PROBE = (("only_loopback_interface", "network", "interfaces ['lo']"),
         ("no_route_public", "network", "route to a public address: [Errno 101] Network is unreachable"),
         ("no_route_gateway", "network", "route to the Docker bridge gateway: [Errno 101] Network is unreachable"),
         ("no_resolver_route", "network", "resolvers []; reachable: none"),
         ("docker_socket_absent", "mounts", "docker sockets present: none"),
         ("shadow_unreadable", "filesystem", "/etc/shadow: [Errno 13] Permission denied"),
         ("system_paths_read_only", "filesystem", "writable: none of ['/etc', '/usr']"),
         ("scratch_writable", "filesystem", "scratch: succeeded: 'ok'"),
         ("unprivileged_uid", "credentials", "uid 10001"),
         ("no_capabilities", "credentials", "CapEff 0000000000000000"),
         ("mount_denied", "credentials", "mount: [Errno 1] Operation not permitted"),
         ("ptrace_pid1_denied", "credentials", "ptrace_pid1: [Errno 1] Operation not permitted"),
         ("cannot_signal_worker", "processes", "kill(1, 0): [Errno 1] Operation not permitted"),
         ("process_limit_enforced", "processes", "forked 31 with RLIMIT_NPROC 32 (errno 11)"),
         ("memory_limit_enforced", "memory", "allocation past RLIMIT_AS 1073741824: refused"),
         ("canary_not_visible", "credentials", "planted canary absent in 14 environment values of every visible process"))
PREFLIGHT = (("runtime", "runtime", "runtime 'runsc' (manifest: 'runsc')"),
             ("network_none", "network", "network mode 'none'"),
             ("no_host_mounts", "mounts", "mounts none"),
             ("read_only_root", "filesystem", "ReadonlyRootfs=True"),
             ("capabilities_dropped", "credentials", "drop ['ALL'] add ['SETUID', 'SETGID', 'KILL']"),
             ("no_new_privileges", "credentials", "security options ['no-new-privileges']"),
             ("not_privileged", "credentials", "Privileged=False"),
             ("image_pinned", "image", f"container image {DIGEST} (pinned {DIGEST})"),
             ("memory_limited", "memory", "memory 1879048192 bytes"),
             ("pids_limited", "processes", "pids limit 1024"),
             ("environment_scrubbed", "credentials", "environment keys ['HOSTNAME', 'LANG', 'PATH', 'PYTHONHASHSEED', 'TZ']"),
             ("canary_not_in_config", "credentials", "planted canary absent from the container environment"))


def secure():
    return load_policy("secure-default")


def egress():
    return load_policy("product-egress-mirror")


def checks(rows, source, fail: dict | None = None) -> tuple[CheckFact, ...]:
    """Check facts; `fail` maps a check name to what it saw when failing."""
    fail = fail or {}
    return tuple(CheckFact(n, n not in fail, fail.get(n, saw), b, source) for n, b, saw in rows)


def per_task(n_tasks: int, passed: int, slice_name: str = "product", n: int = 1) -> dict:
    return {f"P/{i}": (n, n if i < passed else 0, slice_name, f"h{i}") for i in range(n_tasks)}


def facts(**over) -> GateFacts:
    """A healthy run: 120 product holdout tasks, clean, gVisor, reruns, every check passing."""
    base = GateFacts(
        run_id="r-good", status="completed", operator="alice", manifest_id="m-1", manifest_policy="secure-default",
        model="acme-coder-7b", candidate_source="import", runtime="runsc", image="passgate-sandbox:bookworm-py311",
        image_digest=DIGEST, pinned_digest=DIGEST,
        limits={"cpu_s": 3.0, "memory_mb": 1024, "nproc": 32, "output_cap_kb": 8192},
        probe=checks(PROBE, "probe"), preflight=checks(PREFLIGHT, "preflight"),
        selfcheck={"ran": True, "references": 120, "passed": 120, "failed": []},
        fidelity={"checked": 126, "agreed": 126, "rate": 1.0, "disagreements": [], "unexplained": 0},
        crosscheck="sample", rerun_policy="failures", rerun_count=2,
        slices=(SliceFact("product", "acme-tasks", "product", "holdout", 120),),
        tasks=120, tasks_with_protected=120,
        counts=Counts(candidates=120, passed=84, failed=36, public_graded=120, public_passed=90,
                      protected_passed_of_public=84),
        score=Score(pass_at_1=0.70, ci_low=0.66, ci_high=0.74, level=0.95, tasks=120),
        per_task=per_task(120, 84),
        contamination=Contamination(corpus_checked=True, corpus="corpus/ (3 files, sha256 0123)",
                                    references_checked=True),
        integrity=IntegrityFacts(True, 3, (SliceIntegrity("product", 120, outside=480),)),
        interval={"method": "bootstrap", "level": 0.95, "resamples": 500, "seed": 0, "aggregation": "micro"})
    return dataclasses.replace(base, **over)


def signed(f: GateFacts, *keys: str, reviewer: str = "bob", decision: str = "approved") -> GateFacts:
    extra = tuple(SignoffFact(k, reviewer, decision, f"reviewed {k}", "2026-11-30T10:00:00+00:00") for k in keys)
    return dataclasses.replace(f, signoffs=f.signoffs + extra)


EGRESS_KEYS = ("network=egress-allowlist[pypi-mirror.internal.example:443]",
               "dependencies=allowlist[pandas==2.2.2,requests==2.32.3]")

# ---- a recorded run in a real SQLite file ---------------------------------------------------------------
MANIFEST = """
name: gate-test
operator: alice
tasks:
  sets:
    - kind: product
      path: product.jsonl
      sha256: "00"
      slice: product
      exposure: holdout
candidates:
  source: import
  model: {{name: acme-coder-7b}}
  import: {{path: samples.jsonl, sha256: "00"}}
execution:
  image_digest: "{digest}"
  reruns: {{policy: failures, count: 2}}
scoring:
  interval: {{resamples: 300}}
gate:
  policy: {policy}
{extra}
"""


def record_run(store: Store, run_id: str = "r-test", *, policy: str = "secure-default", tasks: int = 6,
               passed: int = 4, extra: str = "", prompts=None, references=None, programs=None,
               runtime: str = "runsc", status: str = "completed", manifest: Manifest | None = None) -> str:
    """Write a small completed run through the real Store, as the engine would record it; `manifest`
    replaces the kit's own (parsed from MANIFEST with `policy` and `extra`)."""
    m = manifest or parse_manifest(MANIFEST.format(digest=DIGEST, policy=policy, extra=extra),
                                   "/tmp/gate-test/manifest.yaml")
    store.save_manifest(m.manifest_id, m.name, m.canonical_json(), "", "/tmp/gate-test/manifest.yaml")
    probe = [{"name": n, "ok": True, "saw": s, "boundary": b} for n, b, s in PROBE]
    pre = [{"name": n, "ok": True, "saw": s, "boundary": b} for n, b, s in PREFLIGHT]
    store.create_run({"run_id": run_id, "manifest_id": m.manifest_id, "name": m.name, "status": status,
                      "operator": "alice", "policy": policy, "model": "acme-coder-7b", "runtime": runtime,
                      "image": "passgate-sandbox:bookworm-py311", "image_digest": DIGEST,
                      "limits_json": json.dumps({"cpu_s": 3.0, "memory_mb": 1024, "nproc": 32}),
                      "probe_json": json.dumps({"checks": probe}),
                      "preflight_json": json.dumps({"checks": pre, "runtime": runtime, "image_digest": DIGEST}),
                      "selfcheck_json": json.dumps({"ran": True, "references": tasks, "passed": tasks, "failed": []})})
    prompts = prompts or [f"def f{i}(x):\n    \"\"\"Return x plus {i}.\"\"\"\n" for i in range(tasks)]
    references = references or [p + f"    return x + {i}\n" for i, p in enumerate(prompts)]
    programs = programs or [p + f"    return {i} + x\n" for i, p in enumerate(prompts)]
    store.save_tasks(run_id, [{"task_id": f"P/{i}", "position": i, "slice": "product", "set_id": "acme",
                               "exposure": "holdout", "prompt": prompts[i], "entry_point": f"f{i}",
                               "public_tests": f"assert f{i}(0) == {i}", "protected_tests": f"assert f{i}(1) == {i + 1}",
                               "reference_solution": references[i], "completion_style": "body"}
                              for i in range(tasks)])
    store.append("candidates", [{"run_id": run_id, "task_id": f"P/{i}", "candidate_index": 0, "raw_text": programs[i],
                                 "processed_text": programs[i], "program": programs[i], "program_sha256": f"s{i}",
                                 "source": "import", "gen_status": "ok"} for i in range(tasks)])
    store.append("executions", [{"run_id": run_id, "task_id": f"P/{i}", "candidate_index": 0, "attempt": a,
                                 "purpose": "grade" if a == 1 else "rerun", "program_sha256": f"s{i}", "status": "ok",
                                 "public_status": "passed", "protected_status": "passed" if i < passed else "failed",
                                 "failure_class": None if i < passed else "wrong_answer", "violations_json": "[]"}
                                for i in range(tasks) for a in ((1,) if i < passed else (1, 2))])
    store.append("outcomes", [{"run_id": run_id, "task_id": f"P/{i}", "candidate_index": 0,
                               "outcome": "passed" if i < passed else "failed",
                               "failure_class": None if i < passed else "wrong_answer", "public_passed": 1,
                               "protected_passed": int(i < passed), "attempts": 1 if i < passed else 2}
                              for i in range(tasks)])
    return run_id
