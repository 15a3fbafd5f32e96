"""`passgate tasks chained`: write a generated task set to a file, to pin by sha256 like any dataset."""

from __future__ import annotations

import hashlib
from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser("tasks", help="generate a synthetic task set (chained string operations) into a file")
    kinds = p.add_subparsers(dest="tasks_kind", metavar="KIND")
    c = kinds.add_parser("chained", help="chains of 1..N of 13 one-line string operations (Codex paper §6)")
    c.add_argument("-o", "--output", required=True, help="the JSONL file to write (product format, depth tags)")
    c.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    c.add_argument("--max-depth", type=int, default=6, help="longest chain (1..13, default 6)")
    c.add_argument("--per-depth", type=int, default=10, help="tasks per depth (default 10)")
    c.set_defaults(func=_chained)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _chained(args) -> int:
    from passgate.core.errors import ConfigError
    from passgate.core.tasks.chained import BLOCKS, dumps, generate
    if not 1 <= args.max_depth <= len(BLOCKS):
        raise ConfigError(f"must be between 1 and {len(BLOCKS)} (the building blocks)", field="--max-depth")
    if args.per_depth < 1:
        raise ConfigError("must be at least 1", field="--per-depth")
    text = dumps(generate(args.seed, args.max_depth, args.per_depth))
    Path(args.output).write_text(text, encoding="utf-8")
    print(f"{hashlib.sha256(text.encode()).hexdigest()}  {args.output}  "
          f"({args.max_depth * args.per_depth} tasks, seed {args.seed})")
    return 0
