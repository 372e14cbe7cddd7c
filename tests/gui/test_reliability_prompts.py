"""Reliability in the window: a busy project asks to retry; skipped import files are named."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from PIL import Image
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from studio.errors import ProjectBusyError
from studio.importers import import_folder
from studio.store import Project
from widgets.busy_prompt import BUSY_TITLE


def busy_box() -> QMessageBox | None:
    for widget in QApplication.topLevelWidgets():
        if (
            isinstance(widget, QMessageBox)
            and widget.windowTitle() == BUSY_TITLE
            and widget.isVisible()
        ):
            return widget
    return None


def button(box: QMessageBox, text: str):
    return next(b for b in box.buttons() if b.text().replace("&", "") == text)


async def wait_for_box(seconds: float = 20.0) -> QMessageBox:
    """Let the loop run (the job waits out the busy timeout) until the prompt shows."""
    for _ in range(int(seconds / 0.05)):
        box = busy_box()
        if box is not None:
            return box
        await asyncio.sleep(0.05)
    raise AssertionError("no busy prompt appeared")


def make_folder(folder: Path) -> Path:
    folder.mkdir()
    for index in range(3):
        Image.new("RGB", (8, 6), (index * 40, 10, 10)).save(folder / f"im{index}.png")
    return folder


def test_retry_after_another_program_held_the_write_lock(
    qtbot, event_loop_qt, tmp_path, services
) -> None:
    photos = make_folder(tmp_path / "photos")
    project = Project.create(tmp_path / "p", image_root=photos)
    other = sqlite3.connect(project.path, isolation_level=None)  # "another program"
    other.execute("BEGIN IMMEDIATE")
    window = QWidget()  # the prompt's parent, as the main window is in the studio
    qtbot.addWidget(window)
    window.show()
    services.window_for_notices = lambda: window
    runner = services.runner
    outcomes: list[str] = []
    runner.finished.connect(lambda _id, outcome: outcomes.append(outcome))

    async def scenario():
        job = asyncio.ensure_future(runner.run("Importing folder", import_folder, project, photos))
        box = await wait_for_box()
        assert "the project is busy" in box.text()
        assert project.count_images() == 0  # nothing was written while it waited
        other.execute("ROLLBACK")
        other.close()
        button(box, "Retry").click()
        return await job

    report = event_loop_qt.run_until_complete(scenario())
    assert report.images_added == 3
    assert project.count_images() == 3
    assert outcomes == ["done"]
    project.close()


def test_cancel_on_the_busy_prompt_fails_the_job_with_the_message(
    qtbot, event_loop_qt, tmp_path, services
) -> None:
    photos = make_folder(tmp_path / "photos")
    project = Project.create(tmp_path / "p", image_root=photos)
    other = sqlite3.connect(project.path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    window = QWidget()  # the prompt's parent, as the main window is in the studio
    qtbot.addWidget(window)
    window.show()
    services.window_for_notices = lambda: window
    runner = services.runner
    failures: list[str] = []
    runner.failed.connect(lambda _id, text: failures.append(text))

    async def scenario():
        job = asyncio.ensure_future(runner.run("Importing folder", import_folder, project, photos))
        button(await wait_for_box(), "Cancel").click()
        return await job

    try:
        event_loop_qt.run_until_complete(scenario())
    except ProjectBusyError as error:
        assert "another program is writing to it" in str(error)
    else:
        raise AssertionError("the job should have failed")
    assert failures and "the project is busy" in failures[0]
    other.execute("ROLLBACK")
    other.close()
    project.close()


def test_files_an_import_skipped_are_named_in_the_pairs_pane(
    window, tmp_path, event_loop_qt
) -> None:
    photos = make_folder(tmp_path / "photos")
    outside = tmp_path / "private.png"
    Image.new("RGB", (4, 4)).save(outside)
    (photos / "link.png").symlink_to(outside)
    window.workspace.create_project(tmp_path / "p", image_root=photos)
    pane = next(p for p in window.panes if p.title == "Pairs")
    report = event_loop_qt.run_until_complete(pane.run_import("folder", photos))
    assert report.images_added == 3
    assert "1 file skipped (not read)" in pane.message.text()
    assert "link.png" in pane.message.toolTip() and "outside" in pane.message.toolTip()
