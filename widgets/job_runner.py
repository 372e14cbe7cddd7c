"""Runs studio jobs off the UI thread through qasync and reports them as Qt signals.

Every job runs on the services' GPU/model lane (one worker, so two jobs never fight for
the device; ARCHITECTURE.md, "Long work"). The runner owns no thread: progress reported
by a job is carried to the UI thread by the services' relay, and every signal is emitted
there. A job that fails with anything but a ``StudioError`` (which the caller shows in
place) goes to the error reporter; every failure is logged by it.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from studio.errors import ProjectBusyError, StudioError
from studio.jobs import CancelToken, JobCancelled
from widgets.busy_prompt import ask_retry

if TYPE_CHECKING:
    from widgets.services import Services


@dataclass
class JobHandle:
    """What the UI knows of one running job."""

    id: int
    label: str
    token: CancelToken = field(default_factory=CancelToken)


class JobRunner(QObject):
    started = Signal(int, str)  # job id, label
    progressed = Signal(int, int, int, str)  # job id, done, total, message
    finished = Signal(int, str)  # job id, outcome: "done" | "cancelled" | "failed"
    failed = Signal(int, str)  # job id, error text

    def __init__(self, services: Services) -> None:
        super().__init__(services)
        self._services = services
        self._ids = itertools.count(1)
        self.running: dict[int, JobHandle] = {}

    async def run(self, label: str, function: Callable[..., Any], /, *args: Any, **kwargs: Any):
        """Run ``function(*args, progress=..., cancel=..., **kwargs)`` on the job executor.

        Returns its result; raises ``JobCancelled`` if the user cancelled it and re-raises
        any other error after announcing it through ``failed``. When the project was busy
        (another program writing), the person is asked whether to retry, and the job runs
        again on Retry.
        """
        handle = JobHandle(next(self._ids), label)
        self.running[handle.id] = handle
        self.started.emit(handle.id, label)

        post = self._services.relay.post

        def progress(done: int, total: int, message: str = "") -> None:
            # On the job's thread: hand the numbers to the UI thread, never touch Qt here.
            post(lambda: self.progressed.emit(handle.id, done, total, message))

        call = partial(function, *args, progress=progress, cancel=handle.token, **kwargs)
        lane = self._services.gpu
        while True:
            if lane.closed:  # the studio is shutting down: nothing new starts
                self._finish(handle, "cancelled")
                raise JobCancelled()
            try:
                result = await asyncio.wrap_future(lane.submit(call))
                break
            except ProjectBusyError as error:
                # Another program held the write lock past the busy timeout; nothing was
                # written, so the person may simply try again.
                if await ask_retry(self._dialog_parent(), label, str(error)):
                    continue
                self.failed.emit(handle.id, str(error))
                self._finish(handle, "failed")
                raise
            except JobCancelled:
                self._finish(handle, "cancelled")
                raise
            except Exception as error:
                # Domain errors are shown in place by the caller; anything else (out of
                # memory, a closed database) is unexpected and gets the error notice.
                if isinstance(error, StudioError):
                    self._services.errors.report(f"{label} failed: {error}", show=False)
                else:
                    self._services.errors.report_exception(
                        error, f"{label} failed: {error or type(error).__name__}"
                    )
                self.failed.emit(handle.id, str(error) or type(error).__name__)
                self._finish(handle, "failed")
                raise
        self._finish(handle, "done")
        return result

    def _dialog_parent(self) -> QWidget | None:
        parent = self._services.window_for_notices()
        return parent if isinstance(parent, QWidget) else None

    def _finish(self, handle: JobHandle, outcome: str) -> None:
        self.running.pop(handle.id, None)
        self.finished.emit(handle.id, outcome)

    def post(self, function: Callable[[], Any]) -> None:
        """Run ``function`` on the UI thread (a job's extra reports, such as epochs)."""
        self._services.relay.post(function)

    def cancel(self, job_id: int) -> None:
        handle = self.running.get(job_id)
        if handle is not None:
            handle.token.cancel()

    def cancel_all(self) -> None:
        for handle in list(self.running.values()):
            handle.token.cancel()

