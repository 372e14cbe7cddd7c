"""GUI fixtures: a qasync event loop over pytest-qt's QApplication, and a main window."""

from __future__ import annotations

import asyncio

import pytest


@pytest.fixture
def event_loop_qt(qapp):
    """A qasync loop driving Qt; tests run coroutines with ``loop.run_until_complete``."""
    import qasync

    loop = qasync.QEventLoop(qapp, already_running=False)
    asyncio.set_event_loop(loop)
    yield loop
    loop.close()
    asyncio.set_event_loop(None)


@pytest.fixture
def workspace():
    from studio.workspace import Workspace

    ws = Workspace()
    yield ws
    ws.close_project()


@pytest.fixture
def window(qtbot, workspace, event_loop_qt):
    from widgets.main_window import MainWindow

    win = MainWindow(workspace)
    qtbot.addWidget(win)
    win.show()
    yield win
    win.runner.shutdown()
