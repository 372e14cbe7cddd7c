"""The application services: one error path, work tied to a widget's life, ordered exit."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QWidget

from studio.pairs.mining import mine_pairs
from studio.store import Project


def test_an_unexpected_job_error_reaches_one_notice_and_the_log(
    services, qtbot, event_loop_qt
) -> None:
    def job(*, progress, cancel) -> None:
        raise RuntimeError("CUDA out of memory (tried to allocate 2 GiB)")

    with pytest.raises(RuntimeError):
        event_loop_qt.run_until_complete(services.runner.run("Training combiner", job))
    qtbot.waitUntil(lambda: services.errors.notice is not None and services.errors.notice.isVisible())
    notice = services.errors.notice
    assert "Training combiner failed: CUDA out of memory" in notice.message.text()
    assert "Traceback" in notice.details.toPlainText()
    assert not notice.isModal()
    notice.copy_button.click()
    assert "CUDA out of memory" in QApplication.clipboard().text()
    assert "CUDA out of memory" in services.errors.log_file.read_text(encoding="utf-8")


def test_errors_in_worker_threads_reach_the_reporter_once_installed(services, qtbot) -> None:
    services.errors.install_hooks()
    try:
        worker = threading.Thread(target=lambda: 1 / 0, name="a helper")
        worker.start()
        worker.join()
        qtbot.waitUntil(lambda: services.errors.notice is not None)
        assert "Error in a helper: division by zero" in services.errors.notice.message.text()
    finally:
        services.errors.uninstall_hooks()
    assert threading.excepthook is not services.errors._thread_excepthook


def test_a_closed_widget_gets_no_result_and_its_tokens_are_cancelled(services, qtbot) -> None:
    owner = QWidget()
    scope = services.scope(owner)
    token = scope.token()
    started, release = threading.Event(), threading.Event()
    applied: list[int] = []

    def slow() -> int:
        started.set()
        release.wait(5)
        return 42

    future = scope.submit(services.io, slow, done=applied.append)
    assert started.wait(5)
    owner.deleteLater()
    qtbot.waitUntil(lambda: scope.closed)
    release.set()
    assert future.result(5) == 42
    qtbot.wait(50)  # the relay would have delivered it by now
    assert applied == [] and token.cancelled


def test_closing_the_window_flushes_what_was_typed_before_the_project_closes(
    window, demo_project_dir: Path, qtbot
) -> None:
    with Project.open(demo_project_dir) as project:
        mine_pairs(project, "tfidf", 4)
    window.workspace.settings.user_name = "ana"
    window.open_project(demo_project_dir)
    window.show_pane(1)
    editor = window.panes[1].writer.editor
    qtbot.waitUntil(editor.isEnabled)  # the queue's first pair came
    editor.setFocus()
    qtbot.keyClicks(editor, "is darker")  # no pause: nothing saved yet
    window.close()  # no job runs: no question, the services shut down in order
    assert window.services.shut_down and window.workspace.project is None
    with Project.open(demo_project_dir) as project:
        texts = [r[0] for r in project.db.execute("SELECT text FROM captions")]
    assert texts == ["is darker"]


def test_typing_never_waits_for_a_busy_project_and_nothing_is_lost(
    window, demo_project_dir: Path, qtbot
) -> None:
    import sqlite3

    from studio.captions.store import own_caption

    with Project.open(demo_project_dir) as project:
        mine_pairs(project, "tfidf", 4)
        path = project.path
    window.workspace.settings.user_name = "ana"
    window.open_project(demo_project_dir)
    window.show_pane(1)
    writer = window.panes[1].writer
    qtbot.waitUntil(writer.editor.isEnabled)  # the queue's first pair came
    other = sqlite3.connect(path, isolation_level=None)  # another program writing
    other.execute("BEGIN IMMEDIATE")
    try:
        writer.editor.setFocus()
        qtbot.keyClicks(writer.editor, "is darker")
        writer.save_soon()  # the pause: the save waits for the lock on the IO lane …
        qtbot.keyClicks(writer.editor, " with long sleeves")  # … while typing goes on
        qtbot.waitUntil(lambda: "another program is writing" in writer.state.text(),
                        timeout=20000)
    finally:
        other.execute("ROLLBACK")
        other.close()
    qtbot.waitUntil(lambda: writer.state.text().startswith("Draft saved"), timeout=20000)
    pair_id = window.workspace.project.db.execute("SELECT pair_id FROM captions").fetchone()[0]
    draft = own_caption(window.workspace.project, pair_id, "ana")
    assert draft.text == "is darker with long sleeves"
