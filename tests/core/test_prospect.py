"""What the gate will decide before a run (issue 24, item 3): the verdict on the best record a manifest
can write, under its own policy and the others."""

from pathlib import Path

from passgate.core.gate.policy import available_policies
from passgate.core.gate.prospect import prospects, task_stats
from passgate.core.manifest import load_manifest

REPO = Path(__file__).resolve().parents[2]


def test_a_humaneval_run_is_blocked_under_secure_default_and_a_canary_at_best_under_public_benchmark():
    path = REPO / "examples" / "humaneval-gpt35.yaml"
    manifest, _ = load_manifest(path)
    stats = task_stats(manifest, path)
    assert stats.tasks == 164 and stats.with_protected == 164
    by_name = {p.policy: p for p in prospects(manifest, stats, available_policies(), "alice")}
    secure = by_name["secure-default"]
    assert secure.best == "blocked"
    assert any("Holdout: this run uses public-only, which policy secure-default does not allow" in b
               for b in secure.blockers)
    public = by_name["public-benchmark"]
    assert public.at_launch.consequence == "blocked" and public.best == "canary"
    assert public.signoffs == ("holdout=public-only",)


def test_a_few_tasks_cannot_give_adequate_evidence_whatever_they_measure():
    path = REPO / "examples" / "security-choices-secure.yaml"
    manifest, _ = load_manifest(path)
    p = prospects(manifest, task_stats(manifest, path), [], "alice")[0]
    assert p.best == "blocked" and any(b.startswith("sample size is weak even at best") for b in p.blockers)
