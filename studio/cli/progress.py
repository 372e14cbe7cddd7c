"""A terminal progress bar that is a job ``progress`` callback (see studio.jobs)."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from studio.jobs import ProgressTracker, format_eta

BAR_WIDTH = 28
MIN_INTERVAL_S = 0.1


class TerminalProgress:
    """Draws ``label [#####.....] 40/100 00:12 left  message`` on one line of stderr.

    Redraws at most ten times a second; on a non-terminal stream it prints nothing but
    the final line, so logs stay readable.
    """

    def __init__(self, label: str, stream: TextIO | None = None) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.tracker = ProgressTracker()
        self._last_draw = 0.0
        self._last_line = ""
        self._interactive = bool(getattr(self.stream, "isatty", lambda: False)())

    def __call__(self, done: int, total: int, message: str = "") -> None:
        now = time.monotonic()
        if done < total and now - self._last_draw < MIN_INTERVAL_S:
            return
        self._last_draw = now
        self._last_line = self._render(done, total, message)
        if self._interactive:
            self.stream.write("\r" + self._last_line[:120].ljust(120))
            self.stream.flush()

    def _render(self, done: int, total: int, message: str) -> str:
        if total > 0:
            filled = int(BAR_WIDTH * min(done, total) / total)
            bar = "#" * filled + "." * (BAR_WIDTH - filled)
            eta = format_eta(self.tracker.eta_seconds(done, total))
            return f"{self.label} [{bar}] {done}/{total} {eta} left  {message}"
        return f"{self.label} {done}  {message}"

    def finish(self) -> None:
        if self._interactive:
            self.stream.write("\n")
        elif self._last_line:
            self.stream.write(self._last_line + "\n")
        self.stream.flush()

    def __enter__(self) -> TerminalProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.finish()
