"""core/ never imports textual or rich: the engine runs headless and the console is one client of it.

Each module is imported in a fresh interpreter and sys.modules is checked afterwards, so an
indirect import (core → some helper → rich) fails too. One interpreter imports every module
first; only if that one is dirty does the test import module by module to name the culprit.
"""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import passgate.core

UI_PACKAGES = ("textual", "rich")
# The sandbox worker program's parts share one namespace inside the container (they are sent there
# as one source text); only the codec is also a module of the engine.
IN_CONTAINER = tuple(f"passgate.core.sandbox.program.{part}" for part in
                     ("common", "rpc", "candidate", "zygote", "channel", "grader", "probe", "worker"))
PROBE = """
import importlib, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
print(" ".join(sorted(m for m in sys.modules if m.split(".")[0] in {ui})))
""".replace("{ui}", repr(set(UI_PACKAGES)))


def core_modules() -> list[str]:
    root = Path(passgate.core.__file__).parent
    names = ["passgate.core"]
    for info in pkgutil.walk_packages([str(root)], prefix="passgate.core."):
        if not info.name.split(".")[-1].startswith("_") and info.name not in IN_CONTAINER:
            names.append(info.name)
    return sorted(names)


def ui_modules_after_importing(*modules: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", PROBE, *modules], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"importing {' '.join(modules)} failed:\n{done.stderr}"
    return done.stdout.split()


def test_the_walk_finds_the_engine_modules():
    modules = core_modules()
    for expected in ("passgate.core.run.engine", "passgate.core.record.store", "passgate.core.sandbox.docker_runner",
                     "passgate.core.score.report", "passgate.core.run.rerun", "passgate.core.tasks.humaneval"):
        assert expected in modules
    assert not any(m.startswith(("passgate.core.commands", "passgate.core.cli")) for m in modules)


def test_no_core_module_imports_textual_or_rich():
    modules = core_modules()
    if not ui_modules_after_importing(*modules):
        return
    culprits = {m: found for m in modules if (found := ui_modules_after_importing(m))}
    assert not culprits, "core modules that pull in a UI package: " + "; ".join(
        f"{m} -> {', '.join(found[:3])}" for m, found in culprits.items())


def test_the_probe_sees_a_ui_import():
    # the check itself must be able to fail: the console imports textual
    assert "textual" in ui_modules_after_importing("passgate.tui.app")
