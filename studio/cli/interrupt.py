"""Ctrl+C on a long run: the first press stops it after the current step, the second now.

A simulation stopped by hand still stores the dialogs it finished (``keep_partial``);
a person who really wants out presses again and gets the usual interruption.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from studio.jobs import CancelToken


@contextmanager
def stop_on_first_interrupt(what: str = "this dialog") -> Iterator[CancelToken]:
    """A token the first SIGINT cancels; the second raises ``KeyboardInterrupt``."""
    token = CancelToken()
    if threading.current_thread() is not threading.main_thread():
        yield token  # signals reach the main thread only
        return

    def on_interrupt(_signal: int, _frame: FrameType | None) -> None:
        if token.cancelled:
            raise KeyboardInterrupt
        token.cancel()
        print(f"\nStopping after {what} (Ctrl+C again to quit now) …", file=sys.stderr,
              flush=True)

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        yield token
    finally:
        signal.signal(signal.SIGINT, previous)
