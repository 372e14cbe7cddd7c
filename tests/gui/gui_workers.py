"""The studio run as a real process, for tests that close it or kill it mid-work.

``python tests/gui/gui_workers.py KIND PROJECT`` with the checkout on ``PYTHONPATH``:

- ``close-during-index`` / ``close-during-simulation``: the main window, as ``cir-studio``
  shows it, starts the job; at its first progress the window is closed, the question
  "… is running: stop it and quit?" is answered *Stop and quit*, and the process ends
  the way ``cir-studio`` ends (``run_until_closed``, then ``end_process``: no interpreter
  teardown, which took 5-6 s of each test on a loaded machine). Prints ``asked: …`` and
  ``closing``.
- ``close-during-training`` (Experiments → Train…, a combiner of 500 epochs) and
  ``close-during-import FOLDER`` (a folder import from the Pairs pane): the same, for
  the other kinds of long job. Before every job a caption is typed into the Captions
  pane and printed as ``typed PAIR_ID 'TEXT'``; it must be in the project afterwards.
- ``close-during-rank`` / ``close-during-thumbnails``: the window closes while a live
  rank of the typed caption is asked for (the model still loading) or while the Pairs
  table's thumbnails decode; neither is a job, so nothing is asked. These two end with
  the interpreter's whole teardown, the path of a studio started inside another program
  (``GuiOptions.owns_process`` false): a worker thread still touching Qt objects then
  prints on stderr, which the tests read.
- ``type-then-kill``: types into the Captions pane without a pause for ``SECONDS``, prints
  the text typed, and kills itself (SIGKILL) at once, with no event processed after it.
- ``team-type-then-kill BASE TOKEN SECONDS``: connects to a team server, prints
  ``holding PAIR`` once it holds a pair, waits for a line on stdin (the test stops the
  server meanwhile), then types the same way and kills itself.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path


def _window(project: Path):
    import asyncio

    import qasync

    from studio.settings import Settings
    from studio.workspace import Workspace
    from widgets.app import create_application
    from widgets.main_window import MainWindow
    from widgets.services import Services

    app = create_application()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    services = Services(Workspace(Settings(user_name="tester", device="cpu")))
    services.errors.install_hooks()
    window = MainWindow(services)
    window.show()
    window.open_project(project)
    return app, loop, window


def type_caption(window) -> None:
    """Type a caption (no pause, so no autosave has fired yet) and say what was typed."""
    from PySide6.QtTest import QTest

    window.show_pane(1)
    writer = window.panes[1].writer
    deadline = time.monotonic() + 60
    while writer.pair_id is None and time.monotonic() < deadline:
        QTest.qWait(20)  # the queue's first pair comes from the IO lane
    writer.editor.setFocus()
    QTest.keyClicks(writer.editor, "is darker with a round collar")
    print(f"typed {writer.pair_id} {writer.editor.text()!r}", flush=True)


def close_during(kind: str, project: str, *extra: str) -> int:
    import asyncio

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    from widgets.app import run_until_closed

    app, loop, window = _window(Path(project))
    retrieval = window.panes[3]

    def answer() -> None:
        for widget in QApplication.topLevelWidgets():
            if isinstance(widget, QMessageBox) and widget.objectName() == "confirm_quit":
                print(f"asked: {widget.text().splitlines()[0]}", flush=True)
                next(b for b in widget.buttons() if b.text() == "Stop and quit").click()
                return
        QTimer.singleShot(20, answer)

    closing = []

    def close_now(*_args) -> None:
        if not closing:
            closing.append(True)
            print("closing", flush=True)
            QTimer.singleShot(0, answer)
            QTimer.singleShot(0, window.close)

    type_caption(window)
    if kind == "rank":  # a live rank of the typed caption on the model lane: no job, no question
        captions = window.panes[1]
        captions.rank_view.fired.connect(close_now)
        QTimer.singleShot(0, captions.rank_view.fire)
        return run_until_closed(app, loop, window)
    if kind == "thumbnails":  # the pairs table asks for dozens of thumbnails at once
        window.show_pane(0)
        QTimer.singleShot(0, close_now)
        return run_until_closed(app, loop, window)
    window.runner.progressed.connect(close_now)
    if kind == "import":  # as File → Import → Folder… starts it, without the file dialog
        window.show_pane(0)
        pairs = window.panes[0]
        QTimer.singleShot(0, lambda: asyncio.ensure_future(pairs.run_import("folder", Path(extra[0]))))
    elif kind == "training":
        window.show_pane(3)
        retrieval.tabs.setCurrentWidget(retrieval.experiments)
        dialog = retrieval.experiments.open_training()
        dialog.epochs.setValue(500)
        dialog.stop_early.setChecked(False)
        QTimer.singleShot(0, dialog.train_button.click)
    elif kind == "index":
        window.show_pane(3)
        QTimer.singleShot(0, retrieval.build_button.click)
    else:
        view = retrieval.experiments
        view.dialogs.setValue(view.dialogs.maximum())
        QTimer.singleShot(0, view.run_button.click)
    return run_until_closed(app, loop, window)


def type_then_kill(project: str, seconds: str) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    _app, _loop, window = _window(Path(project))
    window.show_pane(1)
    editor = window.panes[1].writer.editor
    editor.setFocus()
    words = "is a longer dress with short sleeves and a wide plaid pattern in red and navy "
    typed = ""
    started = time.monotonic()
    while time.monotonic() - started < float(seconds):
        char = words[len(typed) % len(words)]
        QTest.keyClick(editor, char if char != " " else Qt.Key.Key_Space)
        typed += char
        QTest.qWait(50)  # a fast typist: never the 400 ms pause that saves a draft
    print(f"typed {editor.text()!r}", flush=True)
    os.kill(os.getpid(), signal.SIGKILL)


def team_type_then_kill(base: str, token: str, seconds: str) -> None:
    import asyncio

    import qasync
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from studio.settings import Settings
    from studio.workspace import Workspace
    from widgets.app import create_application
    from widgets.main_window import MainWindow
    from widgets.services import Services

    app = create_application()
    asyncio.set_event_loop(qasync.QEventLoop(app))
    services = Services(Workspace(Settings(device="cpu")))
    window = MainWindow(services)
    window.show()
    services.team.connect_to(base, token)
    window.show_pane(1)
    writer = window.panes[1].team_writer
    deadline = time.monotonic() + 60
    while writer.item is None and time.monotonic() < deadline:
        QTest.qWait(50)
    print(f"holding {writer.item.pair_id}", flush=True)
    sys.stdin.readline()  # the server is stopped meanwhile
    writer.editor.setFocus()
    words = "has a round collar and shorter sleeves in a lighter blue "
    typed = ""
    started = time.monotonic()
    while time.monotonic() - started < float(seconds):
        char = words[len(typed) % len(words)]
        QTest.keyClick(writer.editor, char if char != " " else Qt.Key.Key_Space)
        typed += char
        QTest.qWait(50)
    print(f"typed {writer.editor.text()!r}", flush=True)
    os.kill(os.getpid(), signal.SIGKILL)


if __name__ == "__main__":
    kind, *rest = sys.argv[1:]
    if kind == "team-type-then-kill":
        team_type_then_kill(*rest)
        raise SystemExit(0)
    if kind.startswith("close-during-"):
        job = kind.removeprefix("close-during-")
        code = close_during(job, *rest)
        if job not in ("rank", "thumbnails"):
            from widgets.app import end_process

            end_process(code)  # as cir-studio ends (GuiOptions.owns_process)
        raise SystemExit(code)
    type_then_kill(*rest)
