"""The passgate console: `make_app(...)` builds it for the CLI, the tests and the demo script.

The app owns what outlives a screen: the record file, the operator's name and the engine
launches (start, resume). The engine runs in a thread worker and reports through messages;
screens read the record in their own thread workers (see `screens/base.py`).
"""

from __future__ import annotations

import argparse
import getpass
import itertools
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from passgate.core.progress import Progress
from passgate.core.record.store import Store, default_db_path

from .messages import EngineDone, EngineProgress

PROGRESS_INTERVAL_S = 0.1      # the engine may report every candidate; the UI needs ten a second at most
THEMES = ("textual-dark", "textual-light")


@dataclass
class Launch:
    """One engine call started from the console: a new run from a manifest, or a resume."""

    token: int
    kind: str                      # start | resume
    target: str                    # manifest path (start) or run id (resume)
    cancel: threading.Event = field(default_factory=threading.Event)
    run_id: str | None = None
    last: Progress | None = None
    done: bool = False
    error: Exception | None = None

    @property
    def active(self) -> bool:
        return not self.done


class ThrottledSink:
    """The engine's progress callback: at most one message per interval, plus every phase change and the last."""

    def __init__(self, post, interval: float = PROGRESS_INTERVAL_S):
        self.post, self.interval = post, interval
        self.phase, self.last_post = None, 0.0

    def __call__(self, progress: Progress) -> None:
        now = time.monotonic()
        last = bool(progress.total) and progress.done >= progress.total
        if progress.phase != self.phase or now - self.last_post >= self.interval or last \
                or progress.phase == "finished":
            self.phase, self.last_post = progress.phase, now
            self.post(progress)


class PassgateApp(App[None]):
    """Runs, new-run wizard, live run, report, verdict, inspector, boundary review, compare."""

    CSS_PATH = "app.tcss"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]      # app.tcss lays screens out for each
    TITLE = "passgate"
    SUB_TITLE = "release gate for code generation"
    BINDINGS = [
        # tab moves the focus as the key arrives: typed ahead on a busy machine, the text after a tab goes
        # to the field the tab moved to (a tab found only when it came back up from the focused field
        # moved the focus after that text had already been given to the field it left)
        Binding("tab", "app.focus_next", "Next field", show=False, priority=True),
        Binding("shift+tab", "app.focus_previous", "Previous field", show=False, priority=True),
        Binding("f1", "help", "Help"),
        Binding("ctrl+t", "toggle_theme", "Light/dark", show=False),     # in the help and the palette
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(self, db_path: str | os.PathLike, *, workdir: str | os.PathLike | None = None,
                 operator: str | None = None, poll_interval: float = 1.0, theme: str = "textual-dark"):
        super().__init__()
        self.db_path = Path(db_path)
        self.workdir = Path(workdir) if workdir else self.db_path.resolve().parent
        self.operator = operator or os.environ.get("PASSGATE_OPERATOR") or _user()
        self.poll_interval = poll_interval
        self.launches: dict[int, Launch] = {}
        self._tokens = itertools.count(1)
        self._quit_after_cancel = False
        self.theme = theme

    # ---- records ----------------------------------------------------------------------
    def open_store(self) -> Store:
        """A Store for the calling thread (a connection belongs to the thread that opened it)."""
        return Store(self.db_path)

    def on_mount(self) -> None:
        from .screens.runs import RunsScreen
        self.push_screen(RunsScreen())

    # ---- engine launches --------------------------------------------------------------
    def active_launch(self) -> Launch | None:
        return next((l for l in self.launches.values() if l.active), None)

    def launch_for(self, run_id: str) -> Launch | None:
        return next((l for l in self.launches.values() if l.run_id == run_id), None)

    def launch(self, kind: str, target: str) -> Launch | None:
        """Start the engine in a thread; one launch at a time (the machine's cores are the limit)."""
        if self.active_launch():
            self.notify("A run is already in progress in this console; wait for it or cancel it.",
                        title="run in progress", severity="warning")
            return None
        launch = Launch(next(self._tokens), kind, str(target))
        if kind == "resume":
            launch.run_id = str(target)
        self.launches[launch.token] = launch
        self._run_engine(launch)
        return launch

    @work(thread=True, group="engine", exit_on_error=False)
    def _run_engine(self, launch: Launch) -> None:
        from passgate.core.run.engine import resume_run, start_run
        sink = ThrottledSink(lambda p: self.post_message(EngineProgress(launch.token, p)))
        store = self.open_store()
        try:
            if launch.kind == "start":
                run_id = start_run(store, launch.target, progress=sink, cancel=launch.cancel, operator=self.operator)
            else:
                run_id = resume_run(store, launch.target, progress=sink, cancel=launch.cancel)
            self.post_message(EngineDone(launch.token, run_id))
        except Exception as exc:  # shown to the operator by on_engine_done, never swallowed
            self.post_message(EngineDone(launch.token, None, exc))
        finally:
            store.close()

    @on(EngineProgress)
    def _engine_progress(self, message: EngineProgress) -> None:
        launch = self.launches[message.token]
        launch.last = message.progress
        launch.run_id = launch.run_id or message.progress.run_id
        for screen in self.screen_stack:
            if getattr(screen, "follows", None) == message.token:
                screen.engine_progress(launch)

    @on(EngineDone)
    def _engine_done(self, message: EngineDone) -> None:
        launch = self.launches[message.token]
        launch.done = True
        launch.run_id = message.run_id or launch.run_id
        launch.error = message.error
        for screen in self.screen_stack:
            if getattr(screen, "follows", None) == message.token:
                screen.engine_done(launch)
        if message.error is not None:
            self.show_error(message.error)
        if self._quit_after_cancel:
            self.exit()

    def cancel_launches(self) -> None:
        for launch in self.launches.values():
            if launch.active:
                launch.cancel.set()

    # ---- errors, help, theme, quit ----------------------------------------------------
    def show_error(self, error: Exception) -> None:
        from .screens.dialogs import ErrorScreen
        self.push_screen(ErrorScreen.from_exception(error))

    def action_help(self) -> None:
        from .screens.help import HelpScreen
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def action_toggle_theme(self) -> None:
        self.theme = THEMES[1] if self.theme == THEMES[0] else THEMES[0]

    async def action_quit(self) -> None:
        launch = self.active_launch()
        if launch is None:
            self.exit()
            return
        from .screens.dialogs import ConfirmScreen

        def decided(yes: bool | None) -> None:
            if yes:
                self._quit_after_cancel = True
                launch.cancel.set()
                self.notify("Cancelling the run; its containers are being removed.", title="quitting")
        self.push_screen(ConfirmScreen("A run is in progress",
                                       "Cancel it and quit? Its containers are removed; `passgate run --resume "
                                       f"{launch.run_id or ''}` continues it later."), decided)

    def on_unmount(self) -> None:
        # The engine thread must stop before the interpreter waits for it at exit.
        self.cancel_launches()

    # ---- command palette --------------------------------------------------------------
    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        from .commands import console_commands
        yield from console_commands(self, screen)
        yield from super().get_system_commands(screen)


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "operator"


def make_app(db_path: str | os.PathLike | None = None, **options) -> PassgateApp:
    """The console on a record file (default: $PASSGATE_DB or ./passgate.db)."""
    return PassgateApp(db_path or default_db_path(), **options)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="passgate", description="The passgate console.")
    parser.add_argument("--db", default=None, help="SQLite record file (default: $PASSGATE_DB or ./passgate.db)")
    parser.add_argument("--light", action="store_true", help="start in the light theme")
    args = parser.parse_args(argv if argv is not None else [])
    make_app(args.db, theme=THEMES[1] if args.light else THEMES[0]).run()
    return 0
