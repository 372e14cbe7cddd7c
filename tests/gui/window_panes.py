"""Show a pane of the main window by its title, as a click in the navigation would."""

from __future__ import annotations

import time

from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

SETTLE_S = 30.0  # generous: the queue's lane may share the machine with other test runs


def show_pane_titled(window, title: str):
    """Show the pane called ``title`` and return it, its show-time work done: a pane with
    a caption writer is returned once the writer's queue answered (its calls run on a
    lane, and its editor takes keys only once a pair is on screen)."""
    pane = next(pane for pane in window.panes if pane.title == title)
    window.show_pane(window.panes.index(pane))
    QApplication.processEvents()
    settled = getattr(getattr(pane, "writer", None), "settled", None)
    deadline = time.monotonic() + SETTLE_S
    while settled is not None and not settled():
        assert time.monotonic() < deadline, f"the {title} pane's writer got no answer"
        QTest.qWait(10)
    return pane
