"""One path for every error a person should hear of: a notice, and a line in the log.

napari's notification manager, small: the reporter owns ``sys.excepthook`` and
``threading.excepthook`` (installed by the shell at start, given back at shutdown), the
job runner hands it every failed job, and ``studio.events.Event`` hands it a failing
listener. Each error is appended to ``errors.log`` in the user data folder with its
traceback, and shown in one non-modal notice (message, details, Copy) that never blocks
the window; later errors update the same notice. Reports may come from any thread: they
are shown on the UI thread through the services' relay.
"""

from __future__ import annotations

import sys
import threading
import traceback
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from studio.events import Event
from studio.settings import data_dir

LOG_NAME = "errors.log"


class ErrorNotice(QDialog):
    """A non-modal notice: what went wrong in one line, the details, and Copy."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Something went wrong")
        self.setModal(False)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        self.details.setMinimumHeight(160)
        self.log_line = QLabel()
        self.log_line.setStyleSheet("color: #6b7280; font-size: 11px;")
        self.copy_button = QPushButton("Copy details")
        self.copy_button.clicked.connect(self.copy)
        close = QPushButton("Close")
        close.clicked.connect(self.hide)
        buttons = QHBoxLayout()
        buttons.addWidget(self.log_line, 1)
        buttons.addWidget(self.copy_button)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.message)
        layout.addWidget(self.details, 1)
        layout.addLayout(buttons)
        self.resize(560, 320)

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(f"{self.message.text()}\n\n{self.details.toPlainText()}")


class ErrorReporter(QObject):
    reported = Signal(str, str)  # message, details (on the UI thread)

    def __init__(
        self,
        log_dir: Path | None,
        post: Callable[[Callable[[], Any]], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.log_file = (log_dir or data_dir()) / LOG_NAME
        self._post = post
        self._lock = threading.Lock()
        self.notice: ErrorNotice | None = None
        self.count = 0
        self._previous: tuple[Any, Any, Any] | None = None

    # -- hooks -------------------------------------------------------------------------

    def install_hooks(self) -> None:
        """Own the process's exception hooks (the shell does this once, at start)."""
        if self._previous is None:
            self._previous = (sys.excepthook, threading.excepthook, Event.error_hook)
            sys.excepthook = self._excepthook
            threading.excepthook = self._thread_excepthook
            Event.error_hook = self._listener_failed  # type: ignore[method-assign]

    def uninstall_hooks(self) -> None:
        if self._previous is not None:
            sys.excepthook, threading.excepthook, Event.error_hook = self._previous
            self._previous = None

    def _excepthook(self, kind, error, trace) -> None:
        if issubclass(kind, KeyboardInterrupt):
            sys.__excepthook__(kind, error, trace)
            return
        self.report(f"Unexpected error: {error}" if str(error) else kind.__name__,
                    "".join(traceback.format_exception(kind, error, trace)))

    def _thread_excepthook(self, args: threading.ExceptHookArgs) -> None:
        if args.exc_type is SystemExit or args.exc_value is None:
            return
        name = args.thread.name if args.thread is not None else "a worker"
        self.report(f"Error in {name}: {args.exc_value}",
                    "".join(traceback.format_exception(args.exc_type, args.exc_value,
                                                       args.exc_traceback)))

    def _listener_failed(self, error: BaseException, listener: object) -> None:
        self.report_exception(error, f"A view failed to update: {error}")

    # -- reports (any thread) ----------------------------------------------------------

    def report_exception(self, error: BaseException, message: str = "") -> None:
        details = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        self.report(message or f"{type(error).__name__}: {error}", details)

    def report(self, message: str, details: str = "", show: bool = True) -> None:
        """Log the error; show it in the notice (on the UI thread) unless ``show`` is False."""
        self._log(message, details)
        if show:
            self._post(lambda: self._show(message, details))

    def _log(self, message: str, details: str) -> None:
        try:
            with self._lock:
                self.log_file.parent.mkdir(parents=True, exist_ok=True)
                with self.log_file.open("a", encoding="utf-8") as out:
                    out.write(f"[{datetime.now():%Y-%m-%d %H:%M:%S}] {message}\n{details}\n")
        except OSError:
            pass  # an unwritable data folder must not turn one error into two

    def _show(self, message: str, details: str) -> None:
        if not isValid(self):
            return
        self.count += 1
        parent = self.parent()
        window = getattr(parent, "window_for_notices", None)
        if self.notice is None or not isValid(self.notice):
            self.notice = ErrorNotice(window() if callable(window) else None)
        more = f" ({self.count} errors so far)" if self.count > 1 else ""
        self.notice.message.setText(message + more)
        self.notice.details.setPlainText(details or message)
        self.notice.log_line.setText(f"Also written to {self.log_file}")
        self.notice.show()
        self.reported.emit(message, details)
