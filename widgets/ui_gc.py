"""Python's cyclic garbage collector runs on the UI thread only, while workers exist, and
never scans the whole heap while the person is typing.

The collector runs in whichever thread happens to allocate when a threshold is crossed;
with workers on the lanes that is often a worker thread. A Qt object freed there (a
widget or timer in a reference cycle) is destroyed outside the thread that owns its
timers: Qt cannot unregister them, and the next timer event goes to freed memory, a
segmentation fault in ``QTimerInfoList::activateTimers`` much later (the GUI suite
crashed that way after some dozens of tests). The known remedy for PySide/PyQt apps:
turn automatic collection off while the services live and collect on a UI-thread timer,
with the same generation thresholds.

A full collection walks every tracked object: with torch, transformers and a 100,000-image
gallery loaded that is about half a million objects and 150–200 ms on the UI thread, a
visible stall in the middle of a word. So the objects that survive a full collection are
frozen (``gc.freeze``: moved to the permanent generation, which collections skip), and the
next generation-2 collections scan only what was created since. The frozen heap is thawed
and fully collected again only when the person has not touched the keyboard or mouse for
a while (``IDLE_S``) and ``FULL_EVERY_S`` have passed, so garbage among the frozen objects
is still freed, on this thread, at a moment nobody notices.
"""

from __future__ import annotations

import gc
import time

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication

INTERVAL_MS = 500
IDLE_S = 1.5  # no key, click or wheel for this long: a full collection goes unnoticed
FULL_EVERY_S = 30.0  # at most this often, and only when idle
_INPUT = {
    QEvent.Type.KeyPress,
    QEvent.Type.MouseButtonPress,
    QEvent.Type.Wheel,
}
_holders = 0  # services alive that asked for it (tests make one per test)
_was_enabled = True


class UiThreadCollector(QObject):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        global _holders, _was_enabled
        if _holders == 0:
            _was_enabled = gc.isenabled()
        _holders += 1
        gc.disable()
        self._active = True
        self.last_input = time.monotonic()
        self.last_full = float("-inf")  # the first idle moment thaws and collects
        self.full_collections = 0
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self)
        self._timer = QTimer(self, interval=INTERVAL_MS)
        self._timer.timeout.connect(self.check)
        self._timer.start()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt name)
        if event.type() in _INPUT:
            self.last_input = time.monotonic()
        return False

    def idle(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        return now - self.last_input >= IDLE_S

    def check(self) -> None:
        """Collect the generations whose thresholds were crossed, here on the UI thread;
        the whole heap only when the person is idle."""
        now = time.monotonic()
        if now - self.last_full >= FULL_EVERY_S and self.idle(now):
            self.collect_all()
            return
        threshold = gc.get_threshold()
        counts = gc.get_count()
        for generation in (2, 1, 0):
            if counts[generation] > threshold[generation]:
                gc.collect(generation)  # generation 2 skips the frozen survivors
                break

    def collect_all(self) -> None:
        """Thaw, collect everything, freeze the survivors (they are scanned again only at
        the next idle full collection)."""
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.last_full = time.monotonic()
        self.full_collections += 1

    def stop(self) -> None:
        """Give the collector back (at shutdown, once no worker runs any more)."""
        global _holders
        if not self._active:
            return
        self._active = False
        self._timer.stop()
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self)
        _holders -= 1
        gc.unfreeze()
        gc.collect()
        if _holders == 0 and _was_enabled:
            gc.enable()
