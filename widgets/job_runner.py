"""Runs studio jobs off the UI thread through qasync and reports them as Qt signals.

One single-worker executor serves every job, so two jobs never fight for the device
(ARCHITECTURE.md, "Long work"). Progress is emitted from the worker thread as a signal;
Qt queues it to the UI thread, where the status bar draws it.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from studio.errors import ProjectBusyError
from studio.jobs import CancelToken, JobCancelled
from widgets.busy_prompt import ask_retry


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

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cir-job")
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

        def progress(done: int, total: int, message: str = "") -> None:
            self.progressed.emit(handle.id, done, total, message)

        call = partial(function, *args, progress=progress, cancel=handle.token, **kwargs)
        while True:
            try:
                result = await asyncio.get_running_loop().run_in_executor(self._executor, call)
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
                self.failed.emit(handle.id, str(error) or type(error).__name__)
                self._finish(handle, "failed")
                raise
        self._finish(handle, "done")
        return result

    def _dialog_parent(self) -> QWidget | None:
        parent = self.parent()
        return parent if isinstance(parent, QWidget) else None

    def _finish(self, handle: JobHandle, outcome: str) -> None:
        self.running.pop(handle.id, None)
        self.finished.emit(handle.id, outcome)

    def cancel(self, job_id: int) -> None:
        handle = self.running.get(job_id)
        if handle is not None:
            handle.token.cancel()

    def cancel_all(self) -> None:
        for handle in list(self.running.values()):
            handle.token.cancel()

    def shutdown(self) -> None:
        self.cancel_all()
        self._executor.shutdown(wait=True, cancel_futures=True)
