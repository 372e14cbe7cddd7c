"""The Retrieval pane's first page: is there an index, Load it, Build index…, Set image folder….

Loading the model and index and building the index run as jobs on the window's runner,
so the window never freezes. When a context is loaded, ``on_loaded(context, message)``
is called on the UI thread and the pane starts a session with it; every error is said
here, on the page the person looks at.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget
from qasync import asyncSlot

from studio.errors import StudioError
from studio.jobs import JobCancelled
from studio.store import Project

if TYPE_CHECKING:
    from studio.sessions.setup import SessionContext
    from widgets.services import Services

BUILD_TOOLTIP = ("Embed the project's images with the active model and build its search "
                 "index (a cancellable job); a project without attribute labels first gets "
                 "them from its product text")


class IndexLoader(QWidget):
    """The page shown while a project is open but no index is loaded."""

    def __init__(
        self,
        services: Services,
        on_loaded: Callable[[SessionContext, str], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.services = services
        self.workspace = services.workspace
        self.runner = services.runner
        self._on_loaded = on_loaded
        self.building = False
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        self.loader_text = QLabel("Load the model and the project's index to start searching.")
        self.loader_text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.loader_text.setWordWrap(True)
        layout.addWidget(self.loader_text)
        row = QHBoxLayout()
        row.addStretch(1)
        self.load_button = QPushButton("Load model and index")
        self.load_button.setToolTip("Runs in the background; the status bar shows progress")
        self.load_button.clicked.connect(self.load_context)
        self.build_button = QPushButton("Build index…")
        self.build_button.setToolTip(BUILD_TOOLTIP)
        self.build_button.clicked.connect(self.build_index)
        self.folder_button = QPushButton("Set image folder…")
        self.folder_button.setToolTip("Point the project at the folder that holds its picture "
                                      "files and check every image again (File menu too)")
        self.folder_button.clicked.connect(self._set_image_folder)
        self.folder_button.hide()
        row.addWidget(self.load_button)
        row.addWidget(self.build_button)
        row.addWidget(self.folder_button)
        row.addStretch(1)
        layout.addLayout(row)
        layout.addStretch(2)

    def describe_index(self, project: Project) -> None:
        """Say whether an index exists for the active model, and what can be done."""
        from studio.picture_files import no_pictures_message
        from studio.sessions.preparation import index_summary
        from widgets.image_folder_action import missing_pictures_line

        model = self.workspace.settings.model
        summary = index_summary(project, model)
        refusal = self.offer_build(project)
        missing = missing_pictures_line(project)
        self.folder_button.setVisible(bool(missing) and not project.read_only)
        no_pictures = no_pictures_message(project)
        if no_pictures:  # nothing to embed or search: say why and how to fix it
            self.loader_text.setText(no_pictures)
            self.build_button.setEnabled(False)
            self.build_button.setToolTip(no_pictures)
        elif summary:
            self.loader_text.setText(f"{summary} Load it to start searching. {missing}".strip())
        elif refusal:
            self.loader_text.setText(f"This project has no index for '{model}'. {refusal}")
        else:
            self.loader_text.setText(
                f"This project has no index for '{model}' yet: Build index… embeds its images "
                "(and reads attributes from the product text if it has none). "
                + (f"{missing} They are skipped." if missing else "")
            )
        self.load_button.setEnabled(summary is not None)
        self.load_button.setDefault(summary is not None)

    def offer_build(self, project: Project) -> str | None:
        """Build index… only where an index can be written; the tooltip says why not."""
        from studio.index_service import index_build_refusal

        refusal = index_build_refusal(project)
        self.build_button.setEnabled(refusal is None and not self.building)
        self.build_button.setToolTip(refusal or BUILD_TOOLTIP)
        return refusal

    def _set_image_folder(self) -> None:
        action = getattr(self.window(), "image_folder", None)
        if action is not None:
            action.choose()

    @asyncSlot()
    async def load_context(self, message: str = "") -> None:
        from studio.sessions.setup import load_session_context

        project = self.workspace.project
        if project is None:
            return
        settings = self.workspace.settings
        try:
            context = await self.runner.run(
                "Loading model and index", load_session_context, project, settings.model,
                self.services.device,
            )
        except JobCancelled:
            return
        except (StudioError, OSError) as error:  # said where the person looks, not dropped
            self.loader_text.setText(str(error))
            return
        if len(context.index) == 0:  # an index built before the pictures were there
            from studio.picture_files import no_pictures_message

            self.loader_text.setText(
                no_pictures_message(project) or
                f"The index for '{settings.model}' holds no images: build it again "
                "(Build index…) once the project's picture files are in place.")
            return
        self._on_loaded(context, message)

    @asyncSlot()
    async def build_index(self) -> None:
        from studio.sessions.preparation import prepare_retrieval

        project = self.workspace.project
        if project is None:
            return
        settings = self.workspace.settings
        self.building = True
        self.build_button.setEnabled(False)
        try:
            prepared = await self.runner.run(
                "Building the index", prepare_retrieval, project, settings.model,
                self.services.device,
                actor=self.workspace.user_name,
            )
        except JobCancelled:
            self.loader_text.setText("Index build cancelled; what was embedded is kept.")
            return
        except (StudioError, OSError) as error:  # one clear line where the button is
            self.loader_text.setText(str(error))
            return
        finally:
            self.building = False
            self.offer_build(project)
        summary = prepared.summary()
        self.loader_text.setText(f"{summary} Loading …")
        window = self.window()
        if hasattr(window, "statusBar"):
            window.statusBar().showMessage(summary, 15000)
        await self.load_context(summary)
