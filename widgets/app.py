"""Start the Qt application with a qasync event loop and show the main window."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from studio import __version__
from studio.workspace import Workspace

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
    return run_until_closed(app, loop, window)


def run_until_closed(app, loop, window) -> int:
    """Run until the window closes, then let the coroutines still waiting finish.

    The window's close shut the services down (cancelled jobs, waited for the workers,
    flushed autosaves, closed the project); their coroutines resume here, while every
    widget still exists, instead of being destroyed pending.
    """
    closed = asyncio.Event()
    app.lastWindowClosed.connect(closed.set)
    with loop:
        loop.run_until_complete(closed.wait())
        loop.run_until_complete(drain(loop))
    services = window.services
    services.shutdown()
    if services.gpu.busy() or services.io.busy():
        # A worker that cannot be interrupted (a model still loading) did not stop within
        # the bound. Everything was flushed and the project closed: end now rather than
        # keep the person waiting for a thread whose result nobody will see.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
    return 0


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
