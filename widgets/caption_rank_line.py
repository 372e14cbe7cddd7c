"""For reviewers: the rank stored with a caption, whether it is stale, and the queue's order.

Shows "Target rank with this caption: 312 of 3,817 · demo · history" in the band's
colour; a stale rank (another model or strategy, a changed index, an edited caption) is
marked as such with the reason and a *Recompute* button. The order box sorts the review
queue by pair, worst rank first or best rank first.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QSpinBox, QWidget

from studio.captions.queue import REVIEW_ORDERS
from studio.captions.ranking import index_key, rank_settings
from studio.captions.ranks import StoredRank, stored_rank
from studio.captions.records import Caption
from studio.store import Project
from widgets.caption_rank_view import COLOURS

QUIET = "color: #6b7280;"


class CaptionRankLine(QWidget):
    recompute_requested = Signal(int)  # caption id
    order_changed = Signal(str)  # a key of REVIEW_ORDERS
    threshold_changed = Signal(int)  # the project's "does not find the target" threshold
    rank_all_requested = Signal()  # rank every submitted caption again (a job)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.caption_id: int | None = None
        self._shown: tuple[Project, Caption] | None = None
        self.stored: StoredRank | None = None
        self.stale: list[str] = []
        self.line = QLabel()
        self.note = QLabel()
        self.note.setStyleSheet(QUIET)
        self.note.setWordWrap(True)
        self.recompute = QPushButton("Recompute rank")
        self.recompute.setToolTip(
            "Rank this caption again with the project's model, strategy and index"
        )
        self.recompute.clicked.connect(self._recompute)
        self.order = QComboBox()
        for key, label in REVIEW_ORDERS.items():
            self.order.addItem(f"Queue: {label}", key)
        self.order.setToolTip(
            "Order of the review queue; by rank puts captions that do not "
            "find their target first (or last)"
        )
        self.order.currentIndexChanged.connect(
            lambda _i: self.order_changed.emit(self.order.currentData())
        )
        self.rank_all = QPushButton("Rank all captions…")
        self.rank_all.setToolTip(
            "Rank every submitted caption with the project's model, "
            "strategy and index (a background job with progress and "
            "cancel); stale ranks become current"
        )
        self.rank_all.clicked.connect(self.rank_all_requested)
        self.threshold = QSpinBox()
        self.threshold.setRange(1, 1_000_000)
        self.threshold.setPrefix("flag above rank ")
        self.threshold.setToolTip(
            "Captions whose target ranks above this are flagged 'does "
            "not find the target' (a project setting)"
        )
        self.threshold.editingFinished.connect(
            lambda: self.threshold_changed.emit(self.threshold.value())
        )
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.line)
        layout.addWidget(self.note, 1)
        layout.addWidget(self.recompute)
        layout.addWidget(self.rank_all)
        layout.addWidget(self.threshold)
        layout.addWidget(self.order)

    def edited(self, text: str) -> None:
        """The reviewer changed the caption's text: the stored rank is for the old one."""
        if self._shown is not None:
            self.show_caption(*self._shown, text=text)

    def show_caption(
        self, project: Project | None, caption: Caption | None, text: str | None = None
    ) -> None:
        """``text``: what the reviewer's editor holds now, when it differs from the caption."""
        self._shown = None if project is None or caption is None else (project, caption)
        self.caption_id = None if caption is None else caption.id
        self.stored = (
            None if project is None or caption is None else stored_rank(project, caption.id)
        )
        if project is None or caption is None:
            self.line.setText("")
            self.note.setText("")
            self.recompute.hide()
            return
        self.recompute.show()
        settings = rank_settings(project)
        self.threshold.blockSignals(True)
        self.threshold.setValue(settings.threshold)
        self.threshold.blockSignals(False)
        stored = self.stored
        if stored is None:
            self.stale = []
            self.line.setText("Not ranked yet")
            self.line.setStyleSheet(QUIET)
            self.note.setText("")
            self.recompute.setText("Rank it")
            return
        self.stale = stored.stale_reasons(
            settings, index_key(project, stored.model), caption.text if text is None else text
        )
        self.line.setText(stored.describe())
        self.line.setStyleSheet(
            QUIET if self.stale else f"color: {COLOURS[stored.band]}; font-weight: 600;"
        )
        self.note.setText(
            f"{stored.model} · {stored.strategy}"
            + (f" · stale: {'; '.join(self.stale)}" if self.stale else "")
        )
        self.recompute.setText("Recompute rank")

    def _recompute(self) -> None:
        if self.caption_id is not None:
            self.recompute.setText("Ranking …")
            self.recompute_requested.emit(self.caption_id)
