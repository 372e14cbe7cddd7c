"""What the studio is finishing while it quits, said only when quitting takes a while.

On a quit the windows go at once; the services then cancel, wait (bounded), flush and
close on the UI thread. When that takes longer than half a second, a small non-modal
notice says what is being finished ("Finishing: Building the index for demo…"); without
a screen (offscreen, minimal) the same line goes to stderr.

``CIR_STUDIO_QUIT_LOG``: a file to which the quit's steps are appended as
``NAME UNIX-TIME`` lines (``ready``, ``quit-requested``, ``windows-hidden``,
``project-closed``, ``exit``): how the tests and the benchmark time a real quit.
"""

from __future__ import annotations

import os
import sys
import time

from PySide6.QtCore import QEventLoop, Qt
from PySide6.QtWidgets import QApplication, QLabel

NOTICE_AFTER_S = 0.5
HEADLESS_PLATFORMS = ("offscreen", "minimal")


def trace(name: str) -> None:
    """Append one step of the quit to ``CIR_STUDIO_QUIT_LOG``, if it is set."""
    path = os.environ.get("CIR_STUDIO_QUIT_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(f"{name} {time.time():.3f}\n")


class QuitNotice:
    """Called with what is being finished; shows it once the quit is past half a second."""

    def __init__(self, delay_s: float = NOTICE_AFTER_S) -> None:
        self.started = time.monotonic()
        self.delay_s = delay_s
        self.said: str | None = None
        self.label: QLabel | None = None

    def __call__(self, what: str) -> None:
        if time.monotonic() - self.started < self.delay_s or what == self.said:
            return
        self.said = what
        text = f"Finishing: {what}…"
        if QApplication.platformName() in HEADLESS_PLATFORMS:
            print(text, file=sys.stderr, flush=True)
            return
        if self.label is None:
            self.label = QLabel()
            self.label.setObjectName("quit_notice")
            self.label.setWindowFlags(
                Qt.WindowType.Tool
                | Qt.WindowType.FramelessWindowHint
                | Qt.WindowType.WindowStaysOnTopHint
                | Qt.WindowType.WindowDoesNotAcceptFocus
            )
            self.label.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
            self.label.setAttribute(Qt.WidgetAttribute.WA_QuitOnClose, False)
            self.label.setMargin(14)
        self.label.setText(text)
        self.label.adjustSize()
        screen = QApplication.primaryScreen()
        if screen is not None:
            self.label.move(screen.availableGeometry().center() - self.label.rect().center())
        self.label.show()
        # The UI thread is busy finishing: paint the notice now (no input is handled).
        QApplication.processEvents(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)

    def close(self) -> None:
        if self.label is not None:
            self.label.hide()
            self.label.deleteLater()
            self.label = None
