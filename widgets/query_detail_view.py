"""One query of a run: the reference picture, its captions or turns with the target's
rank after each, and the top K as a grid with the target (and CIRCO's ground truths)
marked; the target's own picture beside it when it is not in the top K."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from studio.experiments.query_list import query_lines
from widgets.result_grid import ResultGrid
from widgets.thumbnail_cache import ThumbnailCache

PICTURE = 140


class QueryDetailView(QWidget):
    def __init__(self, thumbnails: ThumbnailCache, path_of: Callable[[str], Path | None],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.thumbnails = thumbnails
        self.path_of = path_of
        layout = QVBoxLayout(self)
        pictures = QHBoxLayout()
        self.reference = QLabel()
        self.reference.setToolTip("The reference picture")
        self.target = QLabel()
        self.target.setToolTip("The target, not in the top results")
        for label in (self.reference, self.target):
            label.setFixedSize(PICTURE, PICTURE)
            pictures.addWidget(label)
        self.lines = QLabel("Choose a query in the list.")
        self.lines.setWordWrap(True)
        pictures.addWidget(self.lines, 1)
        layout.addLayout(pictures)
        self.other = QLabel("")
        self.other.setWordWrap(True)
        layout.addWidget(self.other)
        self.grid = ResultGrid(thumbnails, path_of)
        layout.addWidget(self.grid, 1)
        self._shown: dict[QLabel, str | None] = {}
        thumbnails.ready.connect(self._picture_ready)

    def show_query(self, row: dict[str, Any], kind: str, first_turn: int,
                   other: dict[str, Any] | None = None) -> None:
        """``other``: the same query in the run compared with (its rank and top 10)."""
        self._picture(self.reference, row.get("reference"))
        self.lines.setText("\n".join([f"{row['query']} · {row['category'] or '–'}",
                                      *query_lines(row, first_turn, kind)]))
        hits = list(zip(row["top_ids"], row["top_scores"] or [0.0] * len(row["top_ids"]),
                        strict=False))
        self.grid.show_hits(hits, row.get("target"), set(row.get("ground_truths") or ()))
        target = row.get("target")
        outside = bool(target) and target not in row["top_ids"]
        self.target.setVisible(outside)
        if outside:
            self._picture(self.target, target)
        if other is None:
            self.other.setText("")
        else:
            rank = other["rank"]
            self.other.setText(f"Run B: rank {rank if rank is not None else '–'}; its top 10: "
                               + ", ".join(other["top_ids"][:10]))

    def _picture_ready(self, _path: str, size: int) -> None:
        if size == PICTURE:
            for label, image_id in self._shown.items():
                self._picture(label, image_id)

    def _picture(self, label: QLabel, image_id: str | None) -> None:
        self._shown[label] = image_id
        label.setVisible(bool(image_id))
        if image_id:
            label.setPixmap(self.thumbnails.get(self.path_of(image_id), PICTURE))
            label.setToolTip(image_id)
