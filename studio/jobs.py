"""The long-work protocol: plain synchronous functions that report progress and stop when asked.

A job is any callable taking ``progress`` and ``cancel`` keyword arguments. It calls
``progress(done, total, message)`` between batches and ``cancel.raise_if_cancelled()``
(or checks ``cancel.cancelled``) at the same points. The GUI runs such a callable on an
executor through qasync; the CLI runs the very same callable with a terminal bar
(``studio.cli_progress``). Neither runner knows what the job does.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol


class JobCancelled(Exception):
    """Raised inside a job when its cancel token was set; runners treat it as a clean stop."""


class ProgressCallback(Protocol):
    def __call__(self, done: int, total: int, message: str = "") -> None: ...


def no_progress(done: int, total: int, message: str = "") -> None:
    """The default progress callback: report nothing."""


class CancelToken:
    """A thread-safe flag a runner sets and a job polls between batches."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def raise_if_cancelled(self) -> None:
        if self._event.is_set():
            raise JobCancelled()


@dataclass
class ProgressTracker:
    """Turns (done, total) reports into a rate and an ETA; used by both runners."""

    started: float = field(default_factory=time.monotonic)

    def eta_seconds(self, done: int, total: int) -> float | None:
        elapsed = time.monotonic() - self.started
        if done <= 0 or total <= 0 or elapsed <= 0:
            return None
        return max(0.0, elapsed / done * (total - done))


def format_eta(seconds: float | None) -> str:
    if seconds is None:
        return "--:--"
    seconds = int(round(seconds))
    minutes, secs = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


JobFunction = Callable[..., object]
