"""Project events reach views on the UI thread.

A job writes from an executor thread, and the store announces the write on that thread.
Widgets must only be touched from the UI thread, so the shell installs this dispatcher
on the workspace: it carries each emission over a queued Qt signal and runs it where the
dispatcher lives. Views keep connecting to the Qt-free ``workspace.events``.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QApplication
from shiboken6 import isValid

from studio.workspace import Workspace


class UiThreadDispatcher(QObject):
    """Runs callables on the thread this object lives in (the UI thread)."""

    _queued = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._queued.connect(self._run, Qt.ConnectionType.QueuedConnection)

    def __call__(self, function: Callable[[], None]) -> None:
        # Always queued, also from the UI thread: a view hears of a write after the
        # handler that made it has returned, never in the middle of it.
        self._queued.emit(function)

    @staticmethod
    def _run(function: Callable[[], None]) -> None:
        function()


def install(workspace: Workspace) -> UiThreadDispatcher:
    """Make the workspace's project events arrive on the UI thread (once per workspace)."""
    if isinstance(workspace.dispatch, UiThreadDispatcher) and isValid(workspace.dispatch):
        return workspace.dispatch
    dispatcher = UiThreadDispatcher(QApplication.instance())
    workspace.dispatch = dispatcher
    return dispatcher


def follow(
    owner: QObject,
    workspace: Workspace,
    kinds: tuple[str, ...],
    slot: Callable[[], None],
) -> None:
    """Call ``slot`` on the UI thread after any write of one of ``kinds``.

    Several writes in a row (a job's batches, or captions and people at once) give one
    call, on the next turn of the event loop. The connection ends with ``owner``.
    """
    install(workspace)
    scheduled = False

    def run() -> None:
        nonlocal scheduled
        scheduled = False
        if isValid(owner):
            slot()

    def listener() -> None:
        nonlocal scheduled
        if not scheduled and isValid(owner):
            scheduled = True
            QTimer.singleShot(0, run)

    workspace.events.connect_kinds(kinds, listener)
    owner.destroyed.connect(lambda *_: workspace.events.disconnect_kinds(kinds, listener))


def follow_closing(owner: QObject, workspace: Workspace, slot: Callable[[], None]) -> None:
    """Call ``slot`` right before the open project closes (to flush what ``owner`` holds)."""

    def listener() -> None:
        if isValid(owner):
            slot()

    workspace.events.closing.connect(listener)
    owner.destroyed.connect(lambda *_: workspace.events.closing.disconnect(listener))
