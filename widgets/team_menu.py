"""File → Team: assign work, create a work package, merge work back.

Kept out of ``main_window.py`` so the shell stays small: ``TeamMenu(window, file_menu)``
adds the submenu and, when a work package is opened, tells the person what it holds.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QMainWindow, QMenu
from qasync import asyncSlot

from studio.errors import StudioError
from studio.jobs import JobCancelled
from studio.store import Project
from studio.team.merge import merge_packages
from studio.team.pack import pack, package_info
from widgets import actions
from widgets.file_dialogs import open_files
from widgets.merge_summary_dialog import MergeSummaryDialog
from widgets.team_assign_dialog import TeamAssignDialog
from widgets.team_pack_dialog import TeamPackDialog

PACKAGE_FILTER = "CIR Studio work packages (*.cirdb);;All files (*)"


class TeamMenu:
    def __init__(self, window: QMainWindow, file_menu: QMenu) -> None:
        self.window = window
        self.menu = QMenu("&Team", window)
        self.menu.setToolTipsVisible(True)
        before = next((a for a in file_menu.actions() if a.isSeparator()), None)
        if before is not None:
            file_menu.insertMenu(before, self.menu)
        else:
            file_menu.addMenu(self.menu)
        self.assign_action = self.menu.addAction("&Assign work…", self.assign)
        self.assign_action.setToolTip(
            "Hand captions, reviews, attribute batches or ratings out to named people"
        )
        self.pack_action = self.menu.addAction("&Create work package…", self.create_package)
        self.pack_action.setToolTip("Write one person's work as a project file for their machine")
        self.merge_action = self.menu.addAction("&Merge work…", self.merge)
        self.merge_action.setShortcuts(actions.sequences("window.merge_work"))
        self.merge_action.setToolTip("Bring returned work packages back into this project")
        self.menu.addSeparator()
        self.work_as_action = self.menu.addAction("&Work as this package's person", self.work_as)
        self.work_as_action.setToolTip(
            "Work under the name of the person this package was packed for, in this package "
            "only: the panes show their queue; your own name (Settings) returns when you "
            "open another project"
        )
        self.work_as_action.setEnabled(False)
        self.menu.aboutToShow.connect(self._enable)
        window.workspace.project_changed.connect(self._on_project)
        self.last_reports: list = []
        self.summary: MergeSummaryDialog | None = None

    @property
    def project(self) -> Project | None:
        return self.window.workspace.project

    def _enable(self) -> None:
        project = self.project
        coordinator = project is not None and package_info(project) is None
        for action in (self.assign_action, self.pack_action, self.merge_action):
            action.setEnabled(coordinator)
        info = None if project is None else package_info(project)
        self.work_as_action.setEnabled(
            info is not None and info["person"] != self.window.workspace.user_name
        )

    def work_as(self) -> None:
        project = self.project
        info = None if project is None else package_info(project)
        if info is None:
            return
        self.window.workspace.work_as(info["person"])
        self._on_project(project)

    def _on_project(self, project: Project | None) -> None:
        # The actions follow the project now, not when the menu next opens: their
        # shortcuts (Ctrl+Shift+M) work with the menu shut.
        self._enable()
        info = None if project is None else package_info(project)
        if info is None:
            return
        workspace = self.window.workspace
        user = workspace.user_name
        if workspace.acting_as == info["person"]:
            own = workspace.settings.user_name or "your own name"
            hint = (
                f" You work as {info['person']} in this package only; {own} returns when "
                "you open another project."
            )
        elif user == info["person"]:
            hint = ""
        else:
            hint = (
                f" You work as {user!r}: to see this queue, work as {info['person']!r} in "
                "this package (File → Team → Work as this package's person)."
            )
        self.window.statusBar().showMessage(
            f"Work package for {info['person']} (packed {info['packed_at'][:16]}). Your "
            f"queues are in the Captions, Attributes and Quality panes; send this file back "
            f"when done.{hint}",
            20000,
        )

    def _need_project(self) -> Project | None:
        project = self.project
        if project is None:
            self.window.show_error("No project", "Open the coordinator's project first.")
        return project

    def assign(self) -> None:
        project = self._need_project()
        if project is None:
            return
        dialog = TeamAssignDialog(project, self.window.workspace.user_name, self.window)
        if dialog.exec():
            self.window.statusBar().showMessage(dialog.summary(), 8000)
            self.window.workspace.project_changed.emit(project)

    @asyncSlot()
    async def create_package(self) -> None:
        project = self._need_project()
        if project is None:
            return
        dialog = TeamPackDialog(project, self.window)
        if not dialog.exec():
            return
        await self.pack_for(*dialog.choice())

    async def pack_for(
        self, person: str, out: Path, with_images: bool, image_root: str | None = None
    ) -> None:
        """Write ``person``'s package as a job (progress and cancel in the status bar)."""
        project = self.project
        if project is None:
            return
        try:
            result = await self.window.runner.run(
                f"Packing {person}'s work",
                pack,
                project,
                person,
                out,
                self.window.workspace.user_name,
                with_images,
                image_root=image_root,
            )
        except JobCancelled:
            return
        except StudioError as error:
            self.window.show_error("Cannot create the work package", str(error))
            return
        self.window.statusBar().showMessage(f"Wrote {result.path} for {person}", 10000)
        self.window.workspace.project_changed.emit(project)

    @asyncSlot()
    async def merge(self) -> None:
        project = self._need_project()
        if project is None:
            return
        paths = open_files(
            self.window, self.window.workspace.settings, "Merge work packages", PACKAGE_FILTER
        )
        if paths:
            await self.merge_paths([Path(p) for p in paths])

    async def merge_paths(self, paths: list[Path]) -> None:
        project = self.project
        if project is None:
            return
        try:
            reports = await self.window.runner.run(
                "Merging work", merge_packages, project, paths, self.window.workspace.user_name
            )
        except JobCancelled:
            return
        except StudioError as error:
            self.window.show_error("Cannot merge", str(error))
            return
        self.last_reports = reports
        self.window.workspace.project_changed.emit(project)
        self.summary = MergeSummaryDialog(reports, self.window)
        self.summary.open()
