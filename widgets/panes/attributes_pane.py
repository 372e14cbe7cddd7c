"""Attributes: label images from product text and a model, and review the labels fast.

A third tab, Outfits, annotates a picture head to toe (``widgets.outfit_view``).

Three ways to review: one image at a time (its chips, A/R by keyboard), one attribute
across many images (a grid sorted by confidence, select many, A/R), and the undecided
images one after another (``AttributeReviewView`` on the project's attribute queue: the
same view, keys and rules an annotator connected to a team server decides the server's
images with). Extraction and model
suggestions run as background jobs in the status bar; the vocabulary has its own editor.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QMessageBox,
    QPushButton,
    QStackedLayout,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)
from qasync import asyncSlot

from studio.attributes.extract import extract_from_text
from studio.attributes.query import label_counts
from studio.errors import StudioError
from studio.jobs import JobCancelled
from studio.store import Project
from studio.work_queue.local_attributes import LocalAttributeQueue
from studio.work_queue.remote_attributes import RemoteAttributeQueue
from widgets.attribute_review_view import (
    AttributeReviewView,
    LocalImagePicture,
    TeamImagePicture,
)
from widgets.bulk_review import BulkReview
from widgets.elided_label import ElidedLabel
from widgets.file_dialogs import open_file, save_file
from widgets.image_review import SingleImageReview
from widgets.outfit_view import OutfitView
from widgets.panes.pane import Pane, empty_state
from widgets.project_signals import follow
from widgets.queue_calls import at_once
from widgets.services import Services
from widgets.vocabulary_dialog import VocabularyDialog

ALL_CATEGORIES = "All categories"


class AttributesPane(Pane):
    title = "Attributes"
    tooltip = "Attribute labels from product text and model suggestions, reviewed fast"

    def __init__(self, services: Services, parent: QWidget | None = None):
        super().__init__(services, parent)
        workspace = self.workspace
        self._stack = QStackedLayout(self)
        self._stack.addWidget(
            empty_state("No project open", "Open a project to label and review attributes.")
        )
        content = QWidget()
        layout = QVBoxLayout(content)
        bar = QHBoxLayout()
        self.extract_button = QPushButton("Extract from text")
        self.extract_button.setToolTip("Find vocabulary words in every title and description")
        self.extract_button.clicked.connect(self.run_extraction)
        self.suggest_button = QPushButton("Suggest with model")
        self.suggest_button.setToolTip("Score every attribute with the embedding model in "
                                       "Settings and keep the top 8 per image")
        self.suggest_button.clicked.connect(self.run_suggestions)
        vocabulary_button = QPushButton("Vocabulary…")
        vocabulary_button.clicked.connect(self.edit_vocabulary)
        self.category = QComboBox()
        self.category.currentIndexChanged.connect(lambda _=0: self._load_images())
        self.summary = ElidedLabel()
        self.summary.setStyleSheet("color: #6b7280;")
        for widget in (self.extract_button, self.suggest_button, vocabulary_button):
            bar.addWidget(widget)
        bar.addSpacing(16)
        bar.addWidget(self.category)
        bar.addWidget(self.summary, 1, Qt.AlignmentFlag.AlignRight)
        layout.addLayout(bar)
        self.single = SingleImageReview(workspace, self.thumbnails)
        self.bulk = BulkReview(workspace, self.thumbnails)
        self.single.labels_changed.connect(lambda _: self._update_summary())
        self.bulk.labels_changed.connect(lambda _: self._update_summary())
        self.tabs = QTabWidget()
        self.tabs.addTab(self.single, "One image")
        self.tabs.addTab(self.bulk, "One attribute, many images")
        # Its own cache: a 2,048-pixel picture is ~25 MB as a pixmap, so keep only a few.
        self.outfits = OutfitView(workspace, self.thumbnails)  # the one cache (services)
        self.tabs.addTab(self.outfits, "Outfits")
        self.outfits.import_requested.connect(self.ask_outfit_import)
        self.outfits.export_requested.connect(self.ask_outfit_export)
        # The undecided images one after another: the project's attribute queue.
        self.queue_view = AttributeReviewView()
        self.queue_view.labels_changed.connect(lambda _: self._update_summary())
        self._local_pictures = LocalImagePicture(workspace, self.thumbnails)
        self.tabs.addTab(self.queue_view, "Undecided, image by image")
        self.tabs.currentChanged.connect(self._on_tab)
        layout.addWidget(self.tabs, 1)
        self._stack.addWidget(content)
        # An annotator connected to a team server decides the server's suggestions.
        self.team_attributes = AttributeReviewView()
        self._team_pictures = TeamImagePicture(services.team)
        self._stack.addWidget(self.team_attributes)
        services.team.identity_changed.connect(self._team_changed)
        services.team.back_online.connect(self.team_attributes.idle_refresh)
        services.team.changed.connect(self.team_attributes.check_waiting)
        # Label writes come from this pane (its own keys and jobs, which redraw the view
        # themselves); the counts follow every one. New images or words redraw all.
        follow(self, workspace, ("labels",), self._update_summary)
        follow(self, workspace, ("vocabulary",), self.refresh)
        follow(self, workspace, ("images",), lambda: self.show_project(workspace.project))

    # -- project ---------------------------------------------------------------------

    def team_mode(self) -> bool:
        team = self.services.team
        return team.connected and team.role == "annotator"

    def _team_changed(self) -> None:
        team = self.services.team
        if self.team_mode() and team.client is not None:
            self._stack.setCurrentIndex(2)
            queue = RemoteAttributeQueue(team.client, team.name)
            self.team_attributes.bind(queue, team.queue_calls(queue, self.team_attributes),
                                      self._team_pictures)
            return
        self.team_attributes.bind(None)
        self._stack.setCurrentIndex(0 if self.workspace.project is None else 1)

    def show_project(self, project: Project | None) -> None:
        self.single.message.clear()  # messages belong to the project they were said in
        self.bulk.message.clear()
        self._bind_local()
        if project is None:
            self._stack.setCurrentIndex(2 if self.team_mode() else 0)
            return
        self.category.blockSignals(True)
        self.category.clear()
        self.category.addItems([ALL_CATEGORIES, *[c for c in project.categories() if c]])
        self.category.blockSignals(False)
        self.bulk.refresh_vocabulary()
        self._load_images()
        self.outfits.show_project(project)
        self._stack.setCurrentIndex(2 if self.team_mode() else 1)

    def _bind_local(self) -> None:
        """The image-by-image tab decides the project's queue as the person in Settings
        (asked again when the tab is shown: the name may have changed meanwhile)."""
        project, person = self.workspace.project, self.workspace.user_name
        queue = self.queue_view.queue
        if project is None:
            if queue is not None:
                self.queue_view.bind(None)
            return
        if (isinstance(queue, LocalAttributeQueue) and queue.project is project
                and queue.person == person):
            return
        self.queue_view.bind(LocalAttributeQueue(project, person), at_once(),
                             self._local_pictures)

    def _load_images(self) -> None:
        project = self.workspace.project
        if project is None:
            return
        category = self.category.currentText()
        chosen = None if category in ("", ALL_CATEGORIES) else category
        self.single.set_images([image.id for image in project.iter_images(category=chosen)])
        self._update_summary()

    def refresh(self) -> None:
        """Re-read labels after a job or a vocabulary edit, keeping the current place."""
        if self.workspace.project is None:
            return
        self.single.refresh_vocabulary()
        self.single.show_index(self.single.index, keep=self.single.chips.current_name())
        self.bulk.refresh_vocabulary()
        if self.tabs.currentWidget() is self.bulk:
            self.bulk.load()
        self.outfits.reload()
        self._update_summary()

    def _update_summary(self) -> None:
        project = self.workspace.project
        if project is None:
            return
        counts = label_counts(project)
        self.summary.setText(" · ".join(
            f"{counts.get(status, 0):,} {status}" for status in ("suggested", "accepted", "rejected")
        ))

    def focus_widget(self) -> QWidget | None:
        if self.team_mode():
            return self.team_attributes
        if self.tabs.currentWidget() is self.queue_view:
            return self.queue_view
        return self.bulk.grid if self.tabs.currentWidget() is self.bulk else self.single

    def _on_tab(self, index: int) -> None:
        if self.tabs.widget(index) is self.outfits:
            self.outfits.canvas.setFocus()
        elif self.tabs.widget(index) is self.queue_view:
            self._bind_local()
            self.queue_view.idle_refresh()
            self.queue_view.setFocus()
        elif self.tabs.widget(index) is self.bulk:
            self.bulk.load()
            self.bulk.grid.setFocus()
        else:
            self.single.show_index(self.single.index)
            self.single.setFocus()

    # -- jobs ------------------------------------------------------------------------

    @asyncSlot()
    async def run_extraction(self) -> None:
        project = self.workspace.project
        if project is None:
            return
        await self._run_job("Extracting attributes from text", extract_from_text, project,
                            self.workspace.user_name)

    @asyncSlot()
    async def run_suggestions(self) -> None:
        from studio.attributes.suggest import suggest_attributes

        project = self.workspace.project
        if project is None:
            return
        settings = self.workspace.settings
        if self.tabs.currentWidget() is self.outfits:
            from studio.outfits.suggest import suggest_region_attributes

            await self._run_job(f"Suggesting region attributes with {settings.model}",
                                suggest_region_attributes, project, self.workspace.user_name,
                                settings.model, device=settings.device)
            return
        await self._run_job(f"Suggesting attributes with {settings.model}", suggest_attributes,
                            project, self.workspace.user_name, settings.model,
                            device=settings.device)

    async def _run_job(self, label: str, function, *args, **kwargs) -> None:
        buttons = (self.extract_button, self.suggest_button)
        for button in buttons:
            button.setEnabled(False)
        try:
            await self.runner.run(label, function, *args, **kwargs)
        except JobCancelled:
            return
        except StudioError as error:
            box = QMessageBox(QMessageBox.Icon.Critical, label, str(error), parent=self)
            box.open()
            return
        finally:
            for button in buttons:
                button.setEnabled(True)
        self.refresh()

    # -- outfits in and out ----------------------------------------------------------

    @asyncSlot(str)
    async def ask_outfit_import(self, kind: str) -> None:
        path = open_file(self, self.workspace.settings, f"Import {kind}", "JSON (*.json)")
        if path:
            await self.outfit_import(kind, Path(path))

    @asyncSlot(str)
    async def ask_outfit_export(self, kind: str) -> None:
        suffix = "JSON Lines (*.jsonl)" if kind == "omnifashion" else "JSON (*.json)"
        name = f"{kind}.jsonl" if kind == "omnifashion" else f"{kind}.json"
        path = save_file(self, self.workspace.settings, f"Export {kind}", name, suffix)
        if path:
            await self.outfit_export(kind, Path(path))

    async def outfit_import(self, kind: str, path: Path) -> None:
        """Import a Fashionpedia or FashionX file as a job (pictures from FILE/../images)."""
        project = self.workspace.project
        if project is None:
            return
        if kind == "fashionpedia":
            from studio.outfits.fashionpedia import import_fashionpedia as function
        else:
            from studio.outfits.fashionx_io import import_fashionx as function
        await self._run_job(f"Importing {path.name}", function, project, path,
                            path.parent / "images", actor=self.workspace.user_name)

    async def outfit_export(self, kind: str, path: Path) -> None:
        project = self.workspace.project
        if project is None:
            return
        if kind == "fashionpedia":
            from studio.outfits.fashionpedia_write import export_fashionpedia as function
        elif kind == "fashionx":
            from studio.outfits.fashionx_io import export_fashionx as function
        else:
            from studio.outfits.omnifashion import export_omnifashion as function
        await self._run_job(f"Exporting {path.name}", function, project, path)

    # -- vocabulary ------------------------------------------------------------------

    def edit_vocabulary(self) -> VocabularyDialog | None:
        if self.workspace.project is None:
            return None
        dialog = VocabularyDialog(self.workspace, self)
        dialog.open()
        return dialog
