"""`passgate signoff RUN --boundary B --reviewer NAME --statement TEXT [--refuse]` and `--list`.

A sign-off approves (or, with --refuse, rejects) one relaxed boundary of one run, under the exact
terms the verdict shows (`network=egress-allowlist[host:443]`). It is appended to the hash-chained
`signoffs` table with the run and manifest ids. The reviewer must not be the run's operator.
Exit codes: 0 recorded or listed, 2 refused or usage error.
"""

from __future__ import annotations

import sys

from passgate.core.gate.vocab import BOUNDARIES


def register(sub) -> None:
    p = sub.add_parser("signoff", help="sign off (or refuse) a relaxed boundary of a run; --list shows them",
                       description="Record a reviewer's decision on a relaxed boundary. The reviewer must not be "
                                   "the run's operator. Exit 0 recorded, 2 refused or usage error.")
    p.add_argument("run", metavar="RUN", help="run id (or unique prefix)")
    p.add_argument("--boundary", choices=BOUNDARIES, help="the relaxed boundary to decide on")
    p.add_argument("--reviewer", help="who reviews (not the operator)")
    p.add_argument("--statement", help="the reviewer's statement, stored in the record")
    p.add_argument("--refuse", action="store_true", help="record a refusal instead of an approval")
    p.add_argument("--policy", metavar="NAME", help="policy name or YAML path (default: the one the manifest names)")
    p.add_argument("--list", action="store_true", help="list the run's relaxations and sign-offs")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from passgate.core.gate import GateUsage, gather_facts
    from passgate.core.gate.policy import load_policy
    from passgate.core.gate.relaxations import boundary_states, same_person
    from passgate.core.record.store import Store, default_db_path, utcnow
    store = Store(args.db or default_db_path(), create=False)
    run = store.run(args.run)
    policy = load_policy(args.policy or run.get("policy") or "secure-default")
    facts = gather_facts(store, run["run_id"], policy, check_contamination=False)
    states = {s.boundary: s for s in boundary_states(facts, policy)}
    if args.list:
        _list(facts, policy, states)
        return 0
    missing = [f"--{n}" for n in ("boundary", "reviewer", "statement") if not (getattr(args, n) or "").strip()]
    if missing:
        raise GateUsage(f"give {', '.join(missing)} (or --list)")
    state = states[args.boundary]
    if not state.relaxed:
        relaxed = [b for b, s in states.items() if s.relaxed]
        raise GateUsage(f"{args.boundary} is at the secure default for run {facts.run_id} under policy {policy.name}: "
                        f"nothing to sign (relaxed: {', '.join(relaxed) or 'none'})")
    if state.status == "exceeds_policy":
        raise GateUsage(f"{state.sentence} A sign-off cannot approve what the policy does not allow.",
                        title="sign-off refused")
    if same_person(args.reviewer, facts.operator):
        raise GateUsage(f"{args.reviewer} is the operator of run {facts.run_id}: a relaxation must be reviewed by "
                        "someone else", title="sign-off refused")
    decision = "refused" if args.refuse else "approved"
    store.append("signoffs", [{"run_id": facts.run_id, "manifest_id": facts.manifest_id, "boundary": state.key,
                               "reviewer": args.reviewer.strip(), "decision": decision,
                               "statement": args.statement.strip(), "at": utcnow()}])
    print(f"{decision}: {state.key} for run {facts.run_id} by {args.reviewer.strip()}")
    return 0


def _list(facts, policy, states) -> None:
    from passgate.core.record.times import local_time

    from ..text import wrap
    out = sys.stdout
    out.write(wrap(f"run {facts.run_id}  operator {facts.operator or '?'}  policy {policy.name}") + "\n")
    relaxed = [s for s in states.values() if s.relaxed or s.status == "exceeds_policy"]
    if not relaxed:
        out.write("no relaxed boundaries: nothing needs a sign-off\n")
    for s in relaxed:
        out.write(wrap(f"{s.boundary:<16}{s.key}  [{s.status}]", "  ", " " * 18) + "\n")
        if s.justification:
            out.write(wrap(f"justification ({s.justified_by}): {s.justification}", "      ") + "\n")
    if facts.signoffs:
        out.write("sign-offs in the record:\n")
    for r in facts.signoffs:
        out.write(wrap(f"{local_time(r.at)}  {r.decision} {r.boundary} by {r.reviewer}: \"{r.statement}\"",
                       "  ", "      ") + "\n")
