"""Fixtures for the console tests: the fixed record, and helpers that let a Pilot wait for workers."""

from __future__ import annotations

import asyncio
import inspect
import shutil
from pathlib import Path

import pytest

from tests.tui import fixture_db

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """Run `async def` tests here in their own event loop (Pilot tests are coroutines)."""
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    args = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
    asyncio.run(pyfuncitem.obj(**args))
    return True


@pytest.fixture(autouse=True)
def steady_cursor(monkeypatch):
    """Inputs never blink in tests: a blink every 0.5 s makes a screenshot depend on how long the
    machine took to get there (the cursor cell drawn or not)."""
    from textual.widgets import Input
    mounted = Input._on_mount

    def on_mount(self, event):
        mounted(self, event)
        self.cursor_blink = False

    monkeypatch.setattr(Input, "_on_mount", on_mount)


@pytest.fixture(autouse=True)
def utc_clock(monkeypatch):
    """Local times on screen read the same on every machine: the tests' local zone is UTC."""
    import time
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture(autouse=True)
def fixed_language_images(monkeypatch):
    """The wizard offers the languages whose image this engine holds: fixed here, so a screen does not
    depend on which images the machine has built."""
    import passgate.tui.screens.wizard as wizard
    monkeypatch.setattr(wizard, "languages_with_images", lambda: [("cpp", "C++"), ("js", "JavaScript")])


@pytest.fixture
def fixed_db(tmp_path, monkeypatch) -> Path:
    """The fixed record as `fixed.db` in a fresh working directory (paths on screen stay the same)."""
    shutil.copy(FIXTURES / "benchmark-regression.yaml", tmp_path)
    monkeypatch.chdir(tmp_path)
    fixture_db.build(tmp_path / "fixed.db")
    return Path("fixed.db")


@pytest.fixture
def fixed_app(fixed_db):
    from passgate.tui.app import make_app
    return make_app(fixed_db, workdir=".", operator="rel-eng", poll_interval=3600)


async def settle(pilot, rounds: int = 3) -> None:
    """Let thread workers finish and their messages land (several rounds: a handler may start a load)."""
    from textual.worker import WorkerCancelled
    for _ in range(rounds):
        await pilot.pause()
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:           # a newer load of the same key replaced an older one
            pass
    await pilot.pause()


async def keys(pilot, *names: str, times: int = 1) -> None:
    """Press the keys in order (`times` over), letting the app handle each before the next."""
    for _ in range(times):
        for name in names:
            await pilot.press(name)
            await pilot.pause()


async def wait_for(pilot, predicate, timeout: float = 60.0, what: str = "condition") -> None:
    """Poll the UI until `predicate()` holds; fails with `what` after `timeout` seconds."""
    import asyncio
    import time
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        await asyncio.sleep(0.2)
        await pilot.pause()


def screen_text(app) -> str:
    """The current screen as plain text, exactly as a person sees it in the terminal."""
    import io

    from rich.console import Console
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True, record=True,
                      legacy_windows=False, safe_box=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text(styles=False)
