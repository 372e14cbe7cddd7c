"""The Retrieval session's left column: the reference picture and how to pick it, the
secret target's rank (and, revealed, its picture), the timeline, Save and Recorded.

Pictures are decoded on the IO lane by the shared thumbnail cache: a placeholder is
drawn at once, and the pane calls ``draw_reference`` / ``draw_target`` again when the
cache says the picture is ready. The column reads the controller; it changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from studio.sessions.controller import RetrievalController
from widgets.session_timeline import SessionTimeline

if TYPE_CHECKING:
    from studio.workspace import Workspace
    from widgets.thumbnail_cache import ThumbnailCache

REFERENCE_SIZE = 180
TARGET_SIZE = 96


class ReferenceColumn(QWidget):
    def __init__(
        self,
        workspace: Workspace,
        thumbnails: ThumbnailCache,
        path_of: Callable[[str], Path | None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.thumbnails = thumbnails
        self.path_of = path_of
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Reference"))
        self.reference_view = QLabel("No reference yet")
        self.reference_view.setFixedSize(REFERENCE_SIZE, REFERENCE_SIZE)
        self.reference_view.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.reference_view.setStyleSheet("background: #f3f4f6; border: 1px solid #d9dce1;")
        self.reference_view.setAcceptDrops(False)
        layout.addWidget(self.reference_view)
        self.reference_caption = QLabel("")
        self.reference_caption.setWordWrap(True)
        layout.addWidget(self.reference_caption)
        pick_row = QHBoxLayout()
        self.random_reference = QPushButton("Random")
        self.random_reference.setToolTip("Start from a random image of the target's category")
        self.file_reference = QPushButton("File…")
        self.file_reference.setToolTip("Start from an image file (or drop one on the pane)")
        self.gallery_reference = QPushButton("Id…")
        self.gallery_reference.setToolTip("Start from a gallery image by its id (type to search)")
        pick_row.addWidget(self.random_reference)
        pick_row.addWidget(self.gallery_reference)
        pick_row.addWidget(self.file_reference)
        layout.addLayout(pick_row)
        layout.addWidget(self._build_target_box())
        layout.addWidget(QLabel("Timeline"))
        self.timeline = SessionTimeline()
        layout.addWidget(self.timeline, 1)
        self.export_button = QPushButton("Save as transaction")
        self.export_button.setToolTip("Store this session as a FashionMT-style transaction "
                                      "(dataset 'sessions') for rating in the Quality pane; "
                                      "available once a composed turn has run")
        layout.addWidget(self.export_button)
        self.recorded_button = QPushButton("Recorded sessions…")
        self.recorded_button.setToolTip("Reopen and replay earlier sessions of this project")
        layout.addWidget(self.recorded_button)

    @property
    def pick_buttons(self) -> tuple[QPushButton, ...]:
        """The ways to choose a reference (none of them in a chat)."""
        return (self.random_reference, self.gallery_reference, self.file_reference)

    def _build_target_box(self) -> QWidget:
        """The secret target's rank, and (revealed) its thumbnail, wherever it ranks."""
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 4, 0, 4)
        row = QHBoxLayout()
        self.target_label = QLabel("")
        self.target_label.setObjectName("paneHeading")
        # One line: "Target rank: 278 (was 423)" never wraps; the column makes room for it.
        self.target_label.setWordWrap(False)
        row.addWidget(self.target_label, 1)
        layout.addLayout(row)
        self.reveal = QCheckBox("Reveal")
        self.reveal.setToolTip("Show the secret target, its rank and mark it in the results")
        self.target_view = QLabel()
        self.target_view.setFixedSize(TARGET_SIZE, TARGET_SIZE)
        self.target_view.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.target_view.setStyleSheet("background: #f3f4f6; border: 2px solid #34a853;")
        self.target_text = QLabel("")
        self.target_text.setWordWrap(True)
        reveal_row = QHBoxLayout()  # Reveal under the rank, so the rank has the full width
        reveal_row.addWidget(self.reveal, 0, Qt.AlignmentFlag.AlignTop)
        reveal_row.addWidget(self.target_view)
        reveal_row.addWidget(self.target_text, 1)
        layout.addLayout(reveal_row)
        self.target_view.hide()
        self.target_text.hide()
        return box

    def hide_target(self) -> None:
        """A new secret target starts hidden: Reveal applies to the session it was ticked in."""
        self.reveal.blockSignals(True)
        self.reveal.setChecked(False)
        self.reveal.blockSignals(False)

    def draw_reference(self, controller: RetrievalController | None, chat: bool) -> None:
        reference = controller.reference if controller else None
        self.export_button.setEnabled(controller is not None and
                                      controller.can_save_transaction())
        if reference is None:
            self.reference_view.setPixmap(QPixmap())
            self.reference_view.setText("No reference" if chat else "No reference yet")
            self.reference_caption.setText("")
            return
        path = self.path_of(reference) or Path(reference)
        # Decoded on the IO lane; a placeholder until then (see ``picture_ready``).
        self.reference_view.setPixmap(self.thumbnails.get(path, REFERENCE_SIZE))
        project = self.workspace.project
        record = project.image(reference) if project else None
        self.reference_caption.setText(record.title if record else str(path.name))

    def draw_target(self, controller: RetrievalController | None) -> str | None:
        """The rank line and, when revealed, the target; returns the revealed target's id."""
        self.target_label.setText(
            controller.rank_text(revealed=self.reveal.isChecked()) if controller else "")
        self.reveal.setEnabled(controller is not None and controller.target_id is not None)
        view = controller.revealed_target() if controller else None
        shown = view is not None and self.reveal.isChecked()
        self.target_view.setVisible(shown)
        self.target_text.setVisible(shown)
        if not shown or view is None:
            return None
        self.target_text.setText(view.text())
        path = self.path_of(view.image_id)
        if path is None:
            self.target_view.setText(view.image_id)
        else:  # decoded on the IO lane; a placeholder until then (see ``picture_ready``)
            self.target_view.setPixmap(self.thumbnails.get(path, TARGET_SIZE))
        return view.image_id

    def picture_ready(self, controller: RetrievalController, path: str, size: int) -> str:
        """Which picture a decoded file is: "reference", "target" or "" (neither)."""
        if size == REFERENCE_SIZE and controller.reference is not None:
            reference = self.path_of(controller.reference) or Path(controller.reference)
            if str(reference) == path:
                return "reference"
        target = controller.target_id
        visible = size == TARGET_SIZE and target is not None and self.target_view.isVisible()
        if visible and target is not None and str(self.path_of(target)) == path:
            return "target"
        return ""
