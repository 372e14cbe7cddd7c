"""The job protocol as seen from ``backends``: duck-typed, so this layer never imports studio.

``studio.jobs.CancelToken`` satisfies ``Cancellable``; its ``raise_if_cancelled`` raises
``studio.jobs.JobCancelled``, which therefore reaches the caller unchanged.
"""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    def __call__(self, done: int, total: int, message: str = "") -> None: ...


class Cancellable(Protocol):
    def raise_if_cancelled(self) -> None: ...


def no_progress(done: int, total: int, message: str = "") -> None:
    """Default progress callback: report nothing."""


class NeverCancelled:
    """Default cancel token for callers that cannot cancel."""

    def raise_if_cancelled(self) -> None:
        return None
