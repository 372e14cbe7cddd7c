"""Python's cyclic garbage collector runs on the UI thread only, while workers exist.

The collector runs in whichever thread happens to allocate when a threshold is crossed;
with workers on the lanes that is often a worker thread. A Qt object freed there (a
widget or timer in a reference cycle) is destroyed outside the thread that owns its
timers: Qt cannot unregister them, and the next timer event goes to freed memory, a
segmentation fault in ``QTimerInfoList::activateTimers`` much later (the GUI suite
crashed that way after some dozens of tests). The known remedy for PySide/PyQt apps:
turn automatic collection off while the services live and collect on a UI-thread timer,
with the same generation thresholds.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

INTERVAL_MS = 500
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
        self._timer = QTimer(self, interval=INTERVAL_MS)
        self._timer.timeout.connect(self.check)
        self._timer.start()

    def check(self) -> None:
        """Collect the generations whose thresholds were crossed, here on the UI thread."""
        threshold = gc.get_threshold()
        counts = gc.get_count()
        for generation in (2, 1, 0):
            if counts[generation] > threshold[generation]:
                gc.collect(generation)
                break

    def stop(self) -> None:
        """Give the collector back (at shutdown, once no worker runs any more)."""
        global _holders
        if not self._active:
            return
        self._active = False
        self._timer.stop()
        _holders -= 1
        gc.collect()
        if _holders == 0 and _was_enabled:
            gc.enable()
