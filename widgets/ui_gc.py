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
gallery loaded that is about half a million objects and 0.2–1.2 s on the UI thread, a
visible stall in the middle of a word. So while the studio is in use only the young
generations are collected (0 and 1, by their thresholds); what survives them waits in
generation 2, which only a full collection scans. The long-lived heap is frozen
(``gc.freeze``: moved to the permanent generation, which collections skip; freezing costs
nothing, it splices lists) right after a big load (a ranker opened, a job finished), and
whenever a worker has just made tens of thousands of objects (a ranker's 100,000 facet
rows): scanning them young would stall the UI thread for tens to hundreds of ms. The heap
is thawed and fully collected only at moments the person is not typing: a project
closed, the studio's window losing the focus. Never at shutdown: the process is ending,
and a full walk there delayed the quit by 0.6-1.4 s, twice (issue 33). Opening a project does not
collect (the person types at once); garbage waits for such a moment, and nothing is
collected on another thread. No application-wide event filter watches for input: such a
filter is handed every object, also ones halfway through destruction.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QGuiApplication

INTERVAL_MS = 500
# More young objects than this since the last check: a bulk load on a worker; freeze them
# rather than scan them (a generation-0 pass costs about 0.1-0.2 µs per object).
BULK_YOUNG = 20_000
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
        self._closing = False
        self.full_collections = 0
        self.bulk_freezes = 0
        app = QGuiApplication.instance()
        if isinstance(app, QGuiApplication):
            app.applicationStateChanged.connect(self._state_changed)
        self._timer = QTimer(self, interval=INTERVAL_MS)
        self._timer.timeout.connect(self.check)
        self._timer.start()

    def _state_changed(self, state: Qt.ApplicationState) -> None:
        if self._active and state != Qt.ApplicationState.ApplicationActive:
            self.collect_all()  # the person is in another window: nobody sees the pause

    def check(self) -> None:
        """Collect the young generations whose thresholds were crossed, here on the UI
        thread; a bulk of new objects is frozen instead, generation 2 waits for a pause."""
        threshold = gc.get_threshold()
        counts = gc.get_count()
        if counts[0] > BULK_YOUNG:
            gc.freeze()
            self.bulk_freezes += 1
            return
        for generation in (1, 0):
            if counts[generation] > threshold[generation]:
                gc.collect(generation)
                break

    def freeze(self) -> None:
        """Keep what exists now out of the threshold collections (after a big load)."""
        if self._active:
            gc.freeze()

    def closing(self) -> None:
        """The studio is quitting: no full collection from now on (the project's close and
        the windows going would each start one; the process ends, the memory goes with it)."""
        self._closing = True

    def collect_all(self) -> None:
        """Thaw, collect everything, freeze the survivors: at a moment nobody types."""
        if not self._active or self._closing:
            return
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.full_collections += 1

    def stop(self) -> None:
        """Give the collector back (at shutdown, once no worker runs any more)."""
        global _holders
        if not self._active:
            return
        self._active = False
        self._timer.stop()
        _holders -= 1
        gc.unfreeze()
        if not self._closing:
            gc.collect()
        if _holders == 0 and _was_enabled:
            gc.enable()
