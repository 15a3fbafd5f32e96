"""A screen that reads the record in thread workers: `load(key, fn, *args)` → `show_<key>(data)`.

Every screen about one run says first when that run's record was altered: `check_record` verifies
it in a worker and puts a banner under the header. `ctrl+p verify` shows the whole check.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable

from textual import on
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Header, Static
from textual.worker import get_current_worker

from ..messages import Failed, Loaded


def verify(store, run_id: str):
    from passgate.core.record.verify import verify_run
    return verify_run(store, run_id)


class RecordScreen(Screen):
    """Base for screens that show records. Workers post `Loaded`/`Failed`; handlers change widgets."""

    BINDINGS = [Binding("escape", "back", "Back"), Binding("z", "zoom", "Zoom", show=False)]

    def load(self, key: str, fn: Callable[..., Any], *args: Any) -> None:
        """Run `fn(store, *args)` in a thread; a newer load of the same key cancels the older one."""
        self.run_worker(partial(self._read, key, fn, args), thread=True, group=f"load-{key}",
                        exclusive=True, exit_on_error=False)

    def _read(self, key: str, fn: Callable[..., Any], args: tuple) -> None:
        store = self.app.open_store()
        try:
            data = fn(store, *args)
        except Exception as exc:  # reported by on_failed, never swallowed
            self.post_message(Failed(key, exc))
            return
        finally:
            store.close()
        if not get_current_worker().is_cancelled:     # a newer load of the same key replaced this one
            self.post_message(Loaded(key, data))

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        message.stop()
        getattr(self, f"show_{message.key}")(message.data)

    @on(Failed)
    def _failed(self, message: Failed) -> None:
        message.stop()
        handler = getattr(self, f"failed_{message.key}", None)
        if handler is None or not handler(message.error):
            self.app.show_error(message.error)

    # ---- an altered record comes first ----------------------------------------------------
    def current_run(self) -> str | None:
        """The run this screen is about (the runs list: the highlighted one)."""
        return getattr(self, "run_id", None)

    def check_record(self, run_id: str | None = None) -> None:
        """Verify the run's record in a worker; an altered one gets a banner above everything else."""
        run_id = run_id or self.current_run()
        if run_id:
            self.load("integrity", verify, run_id)

    def show_integrity(self, check) -> None:
        banners = self.query("#altered")
        if check.intact:
            banners.remove()
            return
        more = len(check.problems) - 1
        text = (f"RECORD ALTERED: {check.problems[0]}" + (f" (and {more} more)" if more else "")
                + ". Nothing here can be trusted (ctrl+p verify).")
        if banners:
            banners.first(Static).update(text)
        else:
            header = self.query(Header)
            banner = Static(text, id="altered", markup=False)
            self.mount(banner, after=header.first()) if header else self.mount(banner, before=0)

    def action_verify(self) -> None:
        """Recompute the run's hash chains and say what the check found."""
        run_id = self.current_run()
        if run_id is None:
            self.notify("Select a run first.", severity="warning")
            return
        self.load("verification", verify, run_id)

    def show_verification(self, check) -> None:
        from .dialogs import VerifyScreen
        self.show_integrity(check)
        self.app.push_screen(VerifyScreen(check))

    def action_zoom(self) -> None:
        """z: the focused pane fills the screen; z again puts it back."""
        if self.maximized is not None:
            self.minimize()
        elif self.focused is not None:
            self.maximize(self.focused)

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
