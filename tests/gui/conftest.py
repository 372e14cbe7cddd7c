"""GUI fixtures: a qasync event loop over pytest-qt's QApplication, and a main window."""

from __future__ import annotations

import asyncio
import gc
import threading
import time

import pytest

from tests.gui.team_server_fixtures import team_server  # noqa: F401  (a fixture)

WORKER_PREFIX = "cir-"  # the services' lanes name their threads cir-gpu_0, cir-io_1 …
WORKERS_STOP_S = 5.0


# A full collection walks every tracked object: about 600,000 once torch and open_clip are
# imported, 0.4-0.7 s a test (a third of the GUI suite's CPU in a profile of 56 tests).
# Every test ends with a young collection; a full one ends every FULL_COLLECTION_EVERY-th.
FULL_COLLECTION_EVERY = 10
_tests_ended = 0


@pytest.fixture(scope="session", autouse=True)
def collections_on_the_ui_thread_only():
    """No automatic collection in the whole GUI session, between tests included: the
    collector would run in whichever thread allocates (a team server's, a worker's) and
    free Qt objects there, the crash ``widgets.ui_gc`` prevents while a studio runs. The
    fixture below and ``UiThreadCollector`` collect, on the UI thread."""
    was_enabled = gc.isenabled()
    gc.disable()
    yield
    gc.collect()
    if was_enabled:
        gc.enable()


@pytest.fixture(autouse=True)
def no_worker_left_running(qapp):
    """Fail a test that leaves a studio thread or worker running (services not shut down,
    a job still going), and destroy the widgets it closed before the next test begins.

    Set up before every other fixture of the test, so it tears down after them, once
    pytest-qt has closed the test's widgets (``close`` and ``deleteLater``: processing the
    deferred deletes destroys each window with all its children). What Python keeps of them
    in reference cycles is garbage collected here, on the UI thread: the young generations
    after every test, the whole heap after every tenth (the objects a ``UiThreadCollector``
    froze during the test are thawed into the oldest generation when it stops, which only a
    full collection reaches; they wait for it, with automatic collection off).
    """
    global _tests_ended
    yield
    from PySide6.QtCore import QCoreApplication, QEvent

    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    qapp.processEvents()
    _tests_ended += 1
    gc.collect(2 if _tests_ended % FULL_COLLECTION_EVERY == 0 else 1)
    deadline = time.monotonic() + WORKERS_STOP_S
    while True:
        alive = [t.name for t in threading.enumerate() if t.name.startswith(WORKER_PREFIX)]
        if not alive or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert alive == [], f"the test left studio workers running: {alive}"


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
def services(qapp, workspace):
    """The application services, as the shell makes them; shut down after the test."""
    from widgets.services import Services

    made = Services(workspace)
    yield made
    made.shutdown()
    made.deleteLater()


@pytest.fixture
def window(qtbot, services, event_loop_qt):
    from widgets.main_window import MainWindow

    win = MainWindow(services)
    # pytest-qt closes the window before fixtures end: shut the services down first, so a
    # job a test left running is cancelled instead of asking "stop it and quit?".
    qtbot.addWidget(win, before_close_func=lambda _w: services.shutdown())
    win.show()
    yield win
    services.shutdown()


@pytest.fixture
def ranked_demo(indexed_demo_dir):
    """The indexed demo with six mined pairs: captions get a live target rank."""
    from studio.pairs.mining import mine_pairs
    from studio.store import Project

    with Project.open(indexed_demo_dir) as project:
        mine_pairs(project, "tfidf", 6)
    return indexed_demo_dir


@pytest.fixture
def pairs_demo(demo_project_dir):
    """The demo with eight mined pairs and no captions: pairs to write captions for."""
    from studio.pairs.mining import mine_pairs
    from studio.store import Project

    with Project.open(demo_project_dir) as project:
        mine_pairs(project, "tfidf", 8)
    return demo_project_dir
