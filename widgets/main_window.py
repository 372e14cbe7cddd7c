"""The application shell: navigation between panes, project menus, jobs in the status bar."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, Qt, QUrl
from PySide6.QtGui import QAction, QDesktopServices
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QStackedWidget,
    QWidget,
)
from qasync import asyncSlot

from studio.errors import StudioError
from studio.exporters.registry import export_format, export_formats
from studio.importers.registry import import_formats
from studio.jobs import JobCancelled
from studio.manual import SOURCE_HINT, manual_entry
from studio.settings import demo_project_dir
from studio.store import Project
from studio.wording import count
from studio.workspace import Workspace
from widgets import actions
from widgets.about_dialog import AboutDialog
from widgets.elided_label import ElidedLabel
from widgets.file_dialogs import choose_folder, open_file, open_files
from widgets.format_dialog import FormatDialog, fill_format_menu
from widgets.image_folder_action import ImageFolderAction
from widgets.job_status import JobStatus
from widgets.panes.attributes_pane import AttributesPane
from widgets.panes.captions_pane import CaptionsPane
from widgets.panes.dashboard_pane import DashboardPane
from widgets.panes.pairs_pane import PairsPane
from widgets.panes.pane import Pane
from widgets.panes.quality_pane import QualityPane
from widgets.panes.retrieval_pane import RetrievalPane
from widgets.project_signals import follow, follow_closing
from widgets.quit_notice import QuitNotice, trace
from widgets.services import Services
from widgets.settings_dialog import SettingsDialog
from widgets.team_menu import TeamMenu
from widgets.team_status import TeamStatus

PROJECT_FILTER = "CIR Studio projects (*.cirdb);;All files (*)"


class MainWindow(QMainWindow):
    def __init__(self, services: Services | Workspace) -> None:
        super().__init__()
        if isinstance(services, Workspace):  # the shell makes the services when not given
            services = Services(services, parent=self)
        self.services = services
        self.workspace = workspace = services.workspace
        self.runner = services.runner
        services.window_for_notices = lambda: self
        self.setWindowTitle("CIR Studio")
        self.resize(1280, 820)
        self._shown_project: Project | None = None
        self._told_backup = False
        self.panes: list[Pane] = self._make_panes()
        self._build_central()
        self._build_menus()
        self._build_status_bar()
        workspace.project_changed.connect(self._on_project_changed)
        # A message belongs to the project it was said in ("Work package for dan …"):
        # it goes when that project closes, before the next one says anything.
        follow_closing(self, workspace, self.statusBar().clearMessage)
        self._restore_place()
        follow(self, workspace, ("images", "settings"),
               lambda: self._on_project_changed(workspace.project))
        services.team.reconnect_saved()  # the team server of the last session, if any

    # -- layout ----------------------------------------------------------------------

    def _make_panes(self) -> list[Pane]:
        services = self.services
        return [
            PairsPane(services),
            CaptionsPane(services),
            AttributesPane(services),
            RetrievalPane(services),
            QualityPane(services),
            DashboardPane(services),
        ]

    def _build_central(self) -> None:
        self.navigation = QListWidget()
        self.navigation.setObjectName("navigation")
        self.navigation.setFixedWidth(170)
        self.stack = QStackedWidget()
        for number, pane in enumerate(self.panes, start=1):
            item = QListWidgetItem(pane.title)
            item.setToolTip(f"{pane.tooltip}  ({actions.action(f'window.pane.{number}').shown})")
            self.navigation.addItem(item)
            self.stack.addWidget(pane)
        self.navigation.currentRowChanged.connect(self._show_row)
        central = QWidget()
        layout = QHBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.navigation)
        layout.addWidget(self.stack, 1)
        self.setCentralWidget(central)
        self.navigation.setCurrentRow(len(self.panes) - 1)

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self._action(file_menu, "&New Project…", self.new_project, "window.new_project")
        self._action(file_menu, "&Open Project…", self.open_project_dialog,
                     "window.open_project")
        self._action(file_menu, "Open &Demo Project", self.open_demo, "window.open_demo")
        self.recent_menu = file_menu.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        file_menu.addSeparator()
        self.import_menu = file_menu.addMenu("&Import")  # every format (studio/importers/formats)
        fill_format_menu(self.import_menu, import_formats(), self.import_format)
        self.import_menu.setEnabled(False)
        self.export_menu = file_menu.addMenu("&Export")  # every format (studio/exporters/formats)
        fill_format_menu(self.export_menu, export_formats(), self.export_format)
        self.export_menu.setEnabled(False)
        self._action(file_menu, "&Fetch Pictures from URL Lists…", self.fetch_pictures)
        self.team_menu = TeamMenu(self, file_menu)
        self._action(file_menu, "Connect to &Team Server…", self.show_connect_dialog)
        self.image_folder = ImageFolderAction(self, file_menu)
        self._action(file_menu, "&Settings…", self.show_settings, "window.settings")
        file_menu.addSeparator()
        self._action(file_menu, "&Quit", self.close, "window.quit")
        view_menu = self.menuBar().addMenu("&View")
        for number, pane in enumerate(self.panes, start=1):
            self._action(view_menu, pane.title, lambda _=False, n=number - 1: self.show_pane(n),
                         f"window.pane.{number}")
        self.help_menu = help_menu = self.menuBar().addMenu("&Help")
        self._action(help_menu, "&Manual", self.show_manual, "window.manual")
        self.shortcuts_action = self._action(help_menu, "&Keyboard Shortcuts",
                                             self.show_keyboard_shortcuts)
        self._action(help_menu, "&About CIR Studio", self.show_about)

    def _action(self, menu, text: str, slot, action_id: str | None = None) -> QAction:
        """A menu entry; its keys, if any, come from the key map (widgets/actions.py)."""
        return actions.menu_action(menu, self, text, action_id, slot)

    def _build_status_bar(self) -> None:
        self.project_label = ElidedLabel("No project")
        self.statusBar().addWidget(self.project_label, 1)
        self.job_status = JobStatus(self.runner)
        self.statusBar().addPermanentWidget(self.job_status)
        self.team_status = TeamStatus(self.services.team)
        self.statusBar().addPermanentWidget(self.team_status)

    # -- navigation ------------------------------------------------------------------

    def show_pane(self, index: int) -> None:
        self.navigation.setCurrentRow(index)

    def _show_row(self, row: int) -> None:
        """Show the pane and hand it the keyboard: its keys work at once (Ctrl+3, then A)."""
        self.stack.setCurrentIndex(row)
        pane = self.stack.currentWidget()
        if isinstance(pane, Pane):
            pane.take_focus()

    def pane_titles(self) -> list[str]:
        return [pane.title for pane in self.panes]

    def _on_project_changed(self, project: Project | None) -> None:
        self.import_menu.setEnabled(project is not None and not project.read_only)
        self.export_menu.setEnabled(project is not None)
        if project is not self._shown_project:
            self._shown_project, self._told_backup = project, False
        if project is None:
            self.setWindowTitle("CIR Studio")
            self.project_label.setText("No project")
            return
        self.setWindowTitle(f"CIR Studio — {project.name}")
        self.project_label.setText(f"{project.name}  ·  {count(project.count_images(), 'image')}  ·  "
                                   f"{project.shown_location}")
        if project.read_only:
            self.setWindowTitle(f"CIR Studio — {project.name} (read-only)")
        if self._told_backup:
            return  # the messages below once per opened project, not on every later write
        self._told_backup = True
        if project.read_only:
            self.statusBar().showMessage(
                f"Opened read-only: {project.read_only_reason}; changes cannot be saved.", 15000
            )
        if project.backup_path is not None:
            self.statusBar().showMessage(
                f"Upgraded the project; the previous version is kept at {project.backup_path}",
                10000,
            )

    # -- projects --------------------------------------------------------------------

    def import_format(self, name: str) -> FormatDialog | None:
        """File → Import → NAME: its options in one dialog; the Pairs pane runs the import
        as a job (progress and Cancel in the status bar) and says what it added."""
        pairs = next(pane for pane in self.panes if isinstance(pane, PairsPane))
        self.show_pane(self.panes.index(pairs))
        return pairs.open_import(name)

    def export_format(self, name: str) -> FormatDialog | None:
        """File → Export → NAME: its options in one dialog; OK writes it as a job."""
        if self.workspace.project is None:
            return None
        dialog = FormatDialog(export_format(name), "Export", self.workspace.settings, self)
        dialog.accepted.connect(lambda: self._export(name, dialog.values()))
        dialog.open()
        self.format_dialog = dialog
        return dialog

    @asyncSlot()
    async def _export(self, name: str, values: dict) -> None:
        await self.export_values(name, values)

    async def export_values(self, name: str, values: dict):
        """Write as a job (progress and Cancel in the status bar); say where it went."""
        project = self.workspace.project
        if project is None:
            return None
        fmt = export_format(name)
        try:
            summary = await self.runner.run(f"Exporting {fmt.title}", fmt.run, project, values)
        except JobCancelled:
            self.statusBar().showMessage("Export cancelled.", 10000)
            return None
        except StudioError as error:
            self.show_error("Cannot export", str(error))
            return None
        self.statusBar().showMessage(fmt.outcome(summary).message, 15000)
        return summary

    def open_project(self, path: Path | str) -> bool:
        try:
            self.workspace.open_project(path)
        except StudioError as error:
            self.show_error("Cannot open the project", str(error))
            return False
        return True

    def open_project_dialog(self) -> None:
        path = open_file(self, self.workspace.settings, "Open project", PROJECT_FILTER)
        if path:
            self.open_project(Path(path))

    def new_project(self) -> None:
        settings = self.workspace.settings
        folder = choose_folder(self, settings, "Folder for the new project")
        if not folder:
            return
        images = choose_folder(self, settings, "Image root (where the images are)", folder)
        try:
            self.workspace.create_project(Path(folder), image_root=Path(images or folder))
        except StudioError as error:
            self.show_error("Cannot create the project", str(error))

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = self.workspace.settings.recent_projects
        if not recent:
            self.recent_menu.addAction("No recent projects").setEnabled(False)
        for path in recent:
            self.recent_menu.addAction(
                path, lambda p=path: self.open_project(p if "://" in p else Path(p))
            )

    @asyncSlot()
    async def open_demo(self) -> None:
        """Open the demo project, generating it as a cancellable job on first use."""
        from studio.demo.project import ensure_demo_project

        try:
            path = await self.runner.run("Creating the demo project", ensure_demo_project,
                                         demo_project_dir())
        except JobCancelled:
            self.statusBar().showMessage("Demo creation cancelled", 5000)
            return
        except StudioError as error:
            self.show_error("Cannot create the demo project", str(error))
            return
        self.open_project(path)

    @asyncSlot()
    async def fetch_pictures(self) -> None:
        """Fashion IQ's asin2url lists → a folder of pictures, as a cancellable job."""
        settings = self.workspace.settings
        lists = open_files(
            self, settings, "URL lists (ASIN <tab> URL)", "URL lists (*.txt);;All files (*)")
        if not lists:
            return
        out = choose_folder(self, settings, "Folder for the pictures")
        if out:
            await self.fetch_into([Path(p) for p in lists], Path(out))

    async def fetch_into(self, lists: list[Path], out: Path) -> str:
        """Run the fetch job; returns (and shows in the status bar) what it did."""
        from studio.fetch.pictures import fetch_url_lists

        try:
            report, where = await self.runner.run("Fetching pictures", fetch_url_lists,
                                                  lists, out)
        except JobCancelled:
            return ""
        except StudioError as error:
            self.show_error("Cannot fetch the pictures", str(error))
            return ""
        counts = ", ".join(f"{n} {status}" for status, n in sorted(report.counts.items()))
        message = f"Pictures: {counts}. Report of those not fetched: {where}"
        self.statusBar().showMessage(message, 15000)
        return message

    # -- dialogs ---------------------------------------------------------------------

    def show_settings(self) -> None:
        if SettingsDialog(self.workspace.settings, self).exec():
            self.workspace.save_settings()  # every view showing the name follows at once

    def show_connect_dialog(self) -> None:
        from widgets.connect_dialog import ConnectDialog

        dialog = ConnectDialog(self.services.team, self)
        dialog.open()
        self.connect_dialog = dialog  # tests and the next call find it

    # How a page reaches the system's browser or viewer: the one seam tests replace.
    open_url = staticmethod(QDesktopServices.openUrl)

    def show_manual(self) -> None:
        """The manual shipped with the studio (built site, else the checkout's Markdown)."""
        entry = manual_entry()
        if entry is None:
            self.show_error("Manual", f"The manual is not part of this installation; {SOURCE_HINT}.")
            return
        if not self.open_url(QUrl.fromLocalFile(str(entry))):
            self.show_error("Manual", f"No program on this system opens {entry}.")

    def show_about(self) -> None:
        AboutDialog(self.workspace.settings, self).exec()

    def show_keyboard_shortcuts(self) -> None:
        """Help → Keyboard Shortcuts: the key map, grouped by pane (not modal: it can stay
        open beside the pane while a person learns the keys)."""
        from widgets.keyboard_shortcuts_dialog import KeyboardShortcutsDialog

        dialog = KeyboardShortcutsDialog(self)
        dialog.show()
        self.shortcuts_dialog = dialog  # tests and the next call find it

    def show_error(self, title: str, text: str) -> None:
        box = QMessageBox(QMessageBox.Icon.Critical, title, text, parent=self)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.open()

    def _restore_place(self) -> None:
        """The size, place and pane of the last session (Settings), else the defaults."""
        settings = self.workspace.settings
        if settings.window_geometry:
            self.restoreGeometry(QByteArray.fromBase64(settings.window_geometry.encode("ascii")))
        if 0 < settings.last_pane < len(self.panes):
            self.show_pane(settings.last_pane)

    def _remember_place(self) -> None:
        settings = self.workspace.settings
        settings.window_geometry = bytes(self.saveGeometry().toBase64().data()).decode("ascii")
        settings.last_pane = max(0, self.navigation.currentRow())
        settings.save()

    def closeEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """Ask before stopping a job; then the windows go at once and the services shut
        down (cancel, wait, flush, close) before any widget is destroyed. A quit that
        takes longer than half a second says what it is finishing."""
        if not self.services.shut_down:
            trace("quit-requested")
            running = self.services.running_labels()
            if running and not self.confirm_stop(running):
                event.ignore()
                return
            self._remember_place()
            for widget in QApplication.topLevelWidgets():
                if widget.isVisible():
                    widget.hide()  # the captions pane saves what is typed as it hides
            trace("windows-hidden")
            notice = QuitNotice()
            try:
                self.services.shutdown(notice=notice)
            finally:
                notice.close()
        super().closeEvent(event)

    def confirm_stop(self, running: list[str]) -> bool:
        """'Building the index' is running: stop it and quit? (modal; default: keep working)."""
        what = running[0] if len(running) == 1 else f"{len(running)} jobs ({', '.join(running)})"
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Stop and quit?",
            f"{what} {'is' if len(running) == 1 else 'are'} still running: stop "
            f"{'it' if len(running) == 1 else 'them'} and quit?\n\n"
            "What was finished so far is kept.",
            parent=self,
        )
        box.setObjectName("confirm_quit")
        stop = box.addButton("Stop and quit", QMessageBox.ButtonRole.AcceptRole)
        keep = box.addButton("Keep working", QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(keep)
        box.exec()
        return box.clickedButton() is stop

