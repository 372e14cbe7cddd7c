"""Start the Qt application with a qasync event loop and show the main window."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from studio import __version__
from studio.workspace import Workspace
from widgets.quit_notice import trace

HEAVY_MODULES = ("torch", "open_clip", "transformers", "faiss")


@dataclass(frozen=True)
class GuiOptions:
    project: Path | str | None = None  # a path, or a postgresql:// URL
    smoke_test: bool = False
    screenshots: Path | None = None
    device: str | None = None
    model: str | None = None
    started: float = 0.0
    demo_create_seconds: float = 0.0
    open_demo: bool = False  # open (and on first use draw, as a job) the demo once shown
    # The window is this process's whole life (``cir-studio``, ``python -m studio``): SIGTERM
    # quits like File → Quit, and the process ends as soon as the window has shut down.
    # False where a caller runs the window inside a process that goes on (a test).
    owns_process: bool = False


def create_application():
    """The QApplication with our name and style sheet (created once per process)."""
    from PySide6.QtWidgets import QApplication

    from resources import resource_path

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("CIR Studio")
    app.setOrganizationName("CIR Studio")
    app.setApplicationVersion(__version__)
    app.setStyleSheet(resource_path("style.qss").read_text(encoding="utf-8"))
    return app


def run_gui(options: GuiOptions) -> int:
    if options.smoke_test:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import qasync

    from widgets.main_window import MainWindow
    from widgets.services import Services

    app = create_application()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    workspace = Workspace()
    if options.model:
        workspace.settings.model = options.model
    if options.device:
        workspace.settings.device = options.device
    services = Services(workspace)
    services.errors.install_hooks()  # every unexpected error reaches one notice and the log
    window = MainWindow(services)
    window.show()
    app.processEvents()
    time_to_window = time.perf_counter() - options.started
    heavy_at_window = [name for name in HEAVY_MODULES if name in sys.modules]
    if options.smoke_test:
        from widgets.smoke_test import run_smoke_test

        with loop:
            return loop.run_until_complete(
                run_smoke_test(window, options, time_to_window, heavy_at_window)
            )
    if options.project is not None:
        window.open_project(options.project)
    elif options.open_demo:
        window.open_demo()  # a job: progress and Cancel in the status bar
    if options.owns_process:
        quit_on_terminate(window)
    from PySide6.QtCore import QTimer

    # Started: once the event loop's first turn ran what opening queued (the Dashboard
    # draws its charts there, after the window painted).
    QTimer.singleShot(0, lambda: trace("ready"))
    code = run_until_closed(app, loop, window)
    if options.owns_process:
        end_process(code)
    return code


def quit_on_terminate(window) -> None:
    """SIGTERM (a desktop session logging out, ``kill``) quits as File → Quit does: what
    was typed is saved and the project closed, instead of the process simply dying.

    Python runs a signal handler only when the interpreter gets control; the wake-up
    socket makes Qt's event loop wake for it at once.
    """
    import signal
    import socket

    from PySide6.QtCore import QSocketNotifier, QTimer

    reader, writer = socket.socketpair()
    reader.setblocking(False)
    writer.setblocking(False)
    signal.set_wakeup_fd(writer.fileno())
    notifier = QSocketNotifier(reader.fileno(), QSocketNotifier.Type.Read, window)

    def drain_wakeups() -> None:
        with contextlib.suppress(OSError):
            reader.recv(64)

    notifier.activated.connect(drain_wakeups)
    window._terminate_wakeup = (reader, writer, notifier)  # kept as long as the window
    signal.signal(signal.SIGTERM, lambda *_: QTimer.singleShot(0, window.close))


def run_until_closed(app, loop, window) -> int:
    """Run until the window closes, let the coroutines still waiting finish, then end.

    The window's close shut the services down (cancelled jobs, waited for the workers,
    flushed autosaves, closed the project); their coroutines resume here, while every
    widget still exists, instead of being destroyed pending. A process that is only the
    studio then ends with ``end_process`` (``GuiOptions.owns_process``), ``os._exit``:
    everything people made is committed and the project closed, the
    settings are saved and the error log is written as it goes (nothing of ours is
    registered with ``atexit``), so what is left is tearing down the interpreter: every
    Qt widget, torch, and half a million Python objects, freed one by one. That took
    3.5-4.7 s after the window had gone (issue 33); the operating system does it at once.
    A worker that cannot be interrupted (a model still loading) is not waited for either.
    """
    closed = asyncio.Event()
    app.lastWindowClosed.connect(closed.set)
    with loop:
        loop.run_until_complete(closed.wait())
        loop.run_until_complete(drain(loop))
    window.services.shutdown()
    return 0


def end_process(code: int) -> None:
    """Flush what is buffered (stdio, logging) and end now, skipping the teardown."""
    import logging

    logging.shutdown()
    trace("exit")
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


async def drain(loop, timeout: float = 5.0) -> None:
    """Wait (bounded) for every other task of ``loop``; cancel what is left."""
    current = asyncio.current_task()
    tasks = [task for task in asyncio.all_tasks(loop) if task is not current]
    if not tasks:
        return
    _done, pending = await asyncio.wait(tasks, timeout=timeout)
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.wait(pending, timeout=1.0)
