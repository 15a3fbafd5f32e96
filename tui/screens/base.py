"""A screen that reads the record in thread workers: `load(key, fn, *args)` → `show_<key>(data)`."""

from __future__ import annotations

from functools import partial
from typing import Any, Callable

from textual import on
from textual.binding import Binding
from textual.screen import Screen
from textual.worker import get_current_worker

from ..messages import Failed, Loaded


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

    def action_zoom(self) -> None:
        """z: the focused pane fills the screen; z again puts it back."""
        if self.maximized is not None:
            self.minimize()
        elif self.focused is not None:
            self.maximize(self.focused)

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
