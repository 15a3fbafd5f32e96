"""`passgate` command line: one subcommand module each, exit codes for release pipelines.

Exit codes: 0 success / release, 1 run failed, 2 usage or input error, 3 canary only, 4 blocked.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from passgate.core.errors import PassgateError

# Each module exposes `register(subparsers)`; its parser sets `func(args) -> int`.
COMMAND_MODULES = (
    "run", "freeze", "report", "compare", "gate", "signoff", "verify", "rerun", "setup", "tasks", "acceptance",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="passgate", description="Release gate for code-generation evaluation.")
    parser.add_argument("--db", default=None, help="SQLite record file (default: $PASSGATE_DB or ./passgate.db)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"passgate.cli.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"passgate.cli.commands.{name}":
                continue
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        # no command: the console, on the record file given by --db (or $PASSGATE_DB)
        from passgate.tui.app import main as tui_main  # the console is the only UI entry point
        return tui_main(["--db", args.db] if args.db else [])
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except PassgateError as exc:
        print(f"passgate: {exc.title}: {exc.message}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("passgate: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
