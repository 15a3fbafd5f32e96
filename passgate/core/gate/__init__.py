"""The release gate: boundary policies, sign-off, evidence quality, verdict and alerts.

    facts = gather_facts(store, run_id, policy)      # the record, as plain data
    v = verdict(facts, policy, alerts)               # pure: release / canary / blocked, with reasons

`evaluate` does both (and the baseline comparison) for the CLI and the console.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import PassgateError
from .alerts import Alert, BaselineMismatch, compare
from .facts import GateFacts
from .gather import gather_facts
from .latency import latency_alerts
from .policy import Policy, available_policies, load_policy
from .verdict import EXIT_CODES, Verdict, verdict

__all__ = ["Alert", "BaselineMismatch", "EXIT_CODES", "GateFacts", "GateUsage", "Policy", "Verdict",
           "available_policies", "compare", "evaluate", "gather_facts", "load_policy", "verdict"]


class GateUsage(PassgateError):
    """A gate command was asked something it cannot do (exit 2)."""
    title = "gate usage error"


def policy_for(store, run_id: str, name: str | None) -> Policy:
    """The policy named on the command line, else the one the run's manifest names."""
    return load_policy(name or store.run(run_id).get("policy") or "secure-default")


def evaluate(store, run_id: str, *, policy: str | None = None, baseline: str | None = None,
             corpus: str | Path | None = None) -> Verdict:
    """Gather the run (and baseline) from the store and return the verdict."""
    pol = policy_for(store, run_id, policy)
    facts = gather_facts(store, run_id, pol, corpus=corpus)
    alerts: list[Alert] = []
    base_id = ""
    if baseline:
        base = gather_facts(store, baseline, pol, corpus=corpus)
        if base.run_id == facts.run_id:
            raise GateUsage(f"the baseline must be another run, not {facts.run_id} itself")
        alerts = compare(facts, base, pol) + latency_alerts(facts, base, pol)
        base_id = base.run_id
    return verdict(facts, pol, alerts, baseline=base_id)
