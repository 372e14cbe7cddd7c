"""File → Set image folder…: point the project at the folder that holds its pictures.

A project imported without its pictures (Fashion IQ ships none) says at every step that
they are missing; this action is how the person fixes it. The check of every image runs
as a job; the status bar says how many pictures were found.

When a project opens, its picture files are checked on the IO lane (cached in the
project's cache folder, so a large project opens as fast as before): if some are missing
(a project file copied alone, pictures moved), the status bar says how many and where
they were looked for, with a *Set Image Folder…* button, until they are found.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QMainWindow,
    QMenu,
    QPushButton,
    QWidget,
)
from qasync import asyncSlot

from studio.errors import StudioError
from studio.jobs import JobCancelled
from studio.picture_files import PictureCheck, check_picture_files, picture_count, set_image_folder
from widgets.elided_label import ElidedLabel

TOOLTIP = ("Point the project at the folder that holds its picture files (stored paths are "
           "relative to it) and check every image again")


class ImageFolderAction:
    def __init__(self, window: QMainWindow, file_menu: QMenu) -> None:
        self.window = window
        self.action = QAction("Set &Image Folder…", window)
        self.action.setToolTip(TOOLTIP)
        self.action.triggered.connect(lambda _=False: self.choose())
        before = next((a for a in file_menu.actions() if a.isSeparator()), None)
        file_menu.insertAction(before, self.action) if before else file_menu.addAction(self.action)
        file_menu.setToolTipsVisible(True)
        file_menu.aboutToShow.connect(self._enable)
        self.last_message = ""
        self._build_banner(window)
        self.scope = window.services.scope(window)  # type: ignore[attr-defined]
        window.workspace.project_changed.connect(self.check)  # type: ignore[attr-defined]

    def _build_banner(self, window: QMainWindow) -> None:
        """"N of M pictures are missing (looked in …)" [Set Image Folder…] in the status bar."""
        self.banner = QWidget()
        self.banner.setObjectName("missing_pictures")
        layout = QHBoxLayout(self.banner)
        layout.setContentsMargins(0, 0, 0, 0)
        # Elided in the middle, whole in its tooltip: a long image root must not widen the window.
        self.banner_text = ElidedLabel("")
        self.banner_text.setStyleSheet("color: #b45309;")
        self.banner_button = QPushButton("Set Image Folder…")
        self.banner_button.setToolTip(TOOLTIP)
        self.banner_button.clicked.connect(lambda _=False: self.choose())
        layout.addWidget(self.banner_text)
        layout.addWidget(self.banner_button)
        self.banner.hide()
        window.statusBar().addPermanentWidget(self.banner)

    def check(self, project=None) -> None:
        """Look for the open project's picture files on the IO lane; say what is missing."""
        self.banner.hide()
        project = self.window.workspace.project
        if project is None:
            return
        services = self.window.services
        token = self.scope.token()
        self.scope.submit(
            services.io, lambda: check_picture_files(project, cancel=token),
            done=lambda check: self._show_check(project, check),
            failed=lambda error: None if isinstance(error, JobCancelled) else
            services.errors.report_exception(error, f"Checking the picture files failed: {error}"),
        )

    def _show_check(self, project, check: PictureCheck) -> None:
        if project is not self.window.workspace.project:
            return  # another project opened meanwhile
        self.banner_text.setText(check.message())
        self.banner.setVisible(bool(check.missing))
        self._enable_banner(project)

    def _enable_banner(self, project) -> None:
        self.banner_button.setEnabled(not project.read_only)
        self.banner_button.setToolTip(
            f"The project is read-only ({project.read_only_reason})" if project.read_only
            else TOOLTIP)

    def _enable(self) -> None:
        project = self.window.workspace.project
        self.action.setEnabled(project is not None and not project.read_only)
        self.action.setToolTip(
            f"The project is read-only ({project.read_only_reason})"
            if project is not None and project.read_only else TOOLTIP
        )

    @asyncSlot()
    async def choose(self, folder: Path | None = None) -> None:
        """Ask for the folder (unless given), check every picture there, and say what came of it."""
        project = self.window.workspace.project
        if project is None:
            return
        if folder is None:
            start = project.image_root if project.image_root.is_dir() else project.path.parent
            chosen = QFileDialog.getExistingDirectory(
                self.window, "Folder that holds this project's pictures", str(start))
            if not chosen:
                return
            folder = Path(chosen)
        try:
            count = await self.window.runner.run(
                "Looking for picture files", set_image_folder, project, folder,
                self.window.workspace.user_name)
        except JobCancelled:
            self._say("Image folder unchanged (cancelled).")
            return
        except StudioError as error:
            self._say(str(error))
            return
        self._say(
            f"Image folder set to {count.root}: {count.present:,} of {count.images:,} pictures "
            "found" + (f", {count.missing:,} still missing." if count.missing else ".")
        )
        if project is self.window.workspace.project:
            self._show_check(project, PictureCheck(count.images, count.missing, count.root))

    def _say(self, message: str) -> None:
        self.last_message = message
        self.window.statusBar().showMessage(message, 20000)


def missing_pictures_line(project) -> str:
    """ "15,415 of 15,415 images have no picture file under …" or "" when none is missing."""
    count = picture_count(project)
    return count.note() + "." if count.missing else ""
