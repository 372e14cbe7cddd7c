"""While a caption is written: does it find the target? One line under the editor.

About 300 ms after typing pauses, the view asks its ``RankWorker`` for the target's rank
with the reference + the caption (the project's model and strategy) and shows "Target
rank with this caption: 7 of 3,817", green in the top 10, amber in the top 50, red
beyond. *Top 5* shows the five best results as thumbnails, so the annotator sees what
the caption asks for. Without an index the view says so in one quiet line with a
*Build index…* button; typing is never blocked or delayed, whatever the worker does.
"""

from __future__ import annotations

from contextlib import suppress
from functools import partial
from pathlib import Path

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget
from qasync import asyncSlot

from studio.captions.ranking import RankResult, RankSettings, rank_settings
from studio.errors import StudioError
from studio.jobs import JobCancelled
from studio.wording import count
from studio.workspace import Workspace
from widgets.job_runner import JobRunner
from widgets.rank_worker import RankWorker
from widgets.result_grid import ResultGrid
from widgets.thumbnail_cache import ThumbnailCache

DEBOUNCE_MS = 300
COLOURS = {"top10": "#15803d", "top50": "#b45309", "beyond": "#b91c1c", "absent": "#b91c1c"}
QUIET = "color: #6b7280;"
BUILD_TOOLTIP = (
    "Embed the project's images with the model and build its index (runs in the background)"
)


def rank_text(result: RankResult) -> str:
    if result.rank is None:
        return f"The target is not in the indexed gallery ({count(result.gallery_size, 'image')})"
    return f"Target rank with this caption: {result.rank:,} of {result.gallery_size:,}"


def previous_rank_text(result: RankResult) -> str:
    """The rank on screen while a newer text is being ranked: said to be the old one's."""
    if result.rank is None:
        return "With the previous text the target was not in the gallery · updating …"
    return (
        f"Target rank with the previous text: {result.rank:,} of {result.gallery_size:,}"
        " · updating …"
    )


class CaptionRankView(QWidget):
    fired = Signal(int)  # a query was sent (generation); for the benchmark
    shown = Signal(object)  # a RankResult is on screen
    # Build index… was clicked, or its job ended: the keyboard belongs to the caption
    # again (a disabled button drops the focus on the next widget, the list of panes).
    keyboard_back = Signal()

    def __init__(
        self,
        workspace: Workspace,
        thumbnails: ThumbnailCache,
        worker: RankWorker,
        runner: JobRunner | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.runner = runner
        self.worker = worker
        self.pair_id: int | None = None
        self.text = ""
        self.result: RankResult | None = None
        self._settings: RankSettings | None = None
        self._grid_shows: tuple[int, tuple[str, ...]] | None = None
        self._target: tuple[tuple[str, int] | None, str | None] = (None, None)
        self._paths: dict[tuple[str, str], Path | None] = {}
        self._correct_ids: tuple[tuple[str, int] | None, frozenset[str]] = (None, frozenset())
        self.line = QLabel()
        self.line.setToolTip(
            "Where the retrieval model puts the target when it searches with the reference "
            "image and this caption: 1 is best. Updates as you type."
        )
        self.detail = QLabel()
        self.detail.setStyleSheet(QUIET + " font-size: 11px;")
        self.toggle = QPushButton("Top 5")
        self.toggle.setCheckable(True)
        self.toggle.setToolTip("Show the five images this caption finds first")
        self.toggle.toggled.connect(self._toggle_grid)
        self.build_button = QPushButton("Build index…")
        self.build_button.setToolTip(BUILD_TOOLTIP)
        self.build_button.clicked.connect(self.build_index)
        self.build_button.hide()
        self.grid = ResultGrid(thumbnails, self._path_of)
        self.grid.setFixedHeight(176)
        self.grid.hide()
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.line)
        row.addWidget(self.detail)
        row.addStretch(1)
        row.addWidget(self.build_button)
        row.addWidget(self.toggle)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.grid)
        self._timer = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self._timer.timeout.connect(self.fire)
        self.worker.ready.connect(self._on_ready)
        self.worker.unavailable.connect(self._on_unavailable)
        self.worker.failed.connect(self._on_failed)
        self.worker.loading.connect(self._on_loading)
        self._quiet("")

    # -- following the writer ----------------------------------------------------------

    def set_pair(self, pair_id: int | None) -> None:
        self._grid_shows = None  # maybe another project: draw the grid afresh
        if pair_id != self.pair_id:
            self.worker.supersede()
            self.result = None
            self.grid.clear()
            self._grid_shows = None
        self.pair_id = pair_id
        self._settings = None  # read again: another project may be open
        self.setVisible(pair_id is not None)
        self._timer.start()

    def set_text(self, text: str) -> None:
        self.text = text
        result = self.result
        if (
            result is not None
            and result.pair_id == self.pair_id
            and " ".join(text.split()) != " ".join(result.text.split())
            and text.strip()
        ):
            self.line.setText(previous_rank_text(result))  # not this text's rank (yet)
            self._style(QUIET)
        self._timer.start()
        project = self.workspace.project
        if project is not None and self.pair_id is not None and text.strip():
            if self._settings is None:
                with suppress(StudioError, ValueError):
                    self._settings = rank_settings(project)
            if self._settings is not None:
                self.worker.encode_ahead(project, self._settings, text)

    def refresh(self) -> None:
        """Ask again now (after an index build, or a change of rank settings)."""
        self._settings = None
        self.worker.forget()
        self.fire()

    def fire(self) -> None:
        self._timer.stop()
        project = self.workspace.project
        if project is None or self.pair_id is None:
            return
        if not self.text.strip():
            self.worker.supersede()
            self.result = None
            self.grid.clear()
            self._grid_shows = None
            self._quiet("Type a caption to see whether it finds the target.")
            return
        if self._settings is None:
            self._settings = rank_settings(project)
        generation = self.worker.request(project, self._settings, self.pair_id, self.text)
        self.fired.emit(generation)

    # -- results -----------------------------------------------------------------------

    def _on_ready(self, generation: int, result: RankResult) -> None:
        if generation != self.worker.generation or result.pair_id != self.pair_id:
            return  # an older query: a newer one is on its way
        self.result = result
        self.build_button.hide()
        self.toggle.show()
        self.line.setText(rank_text(result))
        self._style(f"color: {COLOURS[result.band]}; font-weight: 600;")
        self.detail.setText(f"{result.model} · {result.strategy}")
        if self.toggle.isChecked():
            self._show_grid()
        self.shown.emit(result)

    def _on_unavailable(self, generation: int, message: str) -> None:
        if generation == self.worker.generation:
            self._quiet(message)
            self._offer_build()

    def _offer_build(self) -> None:
        """Build index… where an index can be written; on a read-only project the button
        stays, disabled, and its tooltip and the line say why."""
        from studio.index_service import index_build_refusal

        project = self.workspace.project
        refusal = index_build_refusal(project) if project is not None else None
        self.build_button.setEnabled(refusal is None)
        self.build_button.setToolTip(refusal or BUILD_TOOLTIP)
        if refusal is not None:
            self.line.setText("No index for this model, and none can be built here: the "
                              "project is read-only (see Build index…).")
        self.build_button.show()

    def _on_failed(self, generation: int, message: str) -> None:
        if generation == self.worker.generation:
            self._quiet(message)

    def _on_loading(self, generation: int, message: str) -> None:
        if generation == self.worker.generation:
            self._quiet(message)

    def _quiet(self, message: str) -> None:
        self.line.setText(message)
        self._style(QUIET)
        self.detail.setText("")
        self.build_button.hide()
        self.toggle.setVisible(self.result is not None)

    def _style(self, sheet: str) -> None:
        """Restyle only on a change: a style sheet is parsed and polished on every set."""
        if self.line.styleSheet() != sheet:
            self.line.setStyleSheet(sheet)

    @asyncSlot()
    async def build_index(self) -> None:
        """Build the rank model's index as a job (status bar, cancel), then rank again."""
        project = self.workspace.project
        if project is None or self.runner is None:
            return
        from studio.captions.ranking import build_rank_index

        model_name = rank_settings(project).model
        job = partial(
            build_rank_index,
            project,
            model_name,
            self.workspace.user_name,
            self.workspace.settings.model_device,
        )
        self.keyboard_back.emit()  # before the button is disabled and drops the focus
        self.build_button.setEnabled(False)
        self._quiet(f"Building the index for {model_name} …")
        try:
            await self.runner.run(f"Building the index for {model_name}", job)
        except JobCancelled:
            self.build_button.setEnabled(True)
            self._quiet("Index build cancelled; what was embedded is kept.")
            self.build_button.show()
            return
        except (StudioError, OSError) as error:  # one line, never "Building …" for ever
            self._quiet(str(error))
            self._offer_build()
            return
        finally:
            self.keyboard_back.emit()
        self.build_button.setEnabled(True)
        self.refresh()

    # -- top results -------------------------------------------------------------------

    def _toggle_grid(self, on: bool) -> None:
        self.grid.setVisible(on)
        if on:
            self._show_grid()

    def _show_grid(self) -> None:
        result = self.result
        if result is None:
            self.grid.clear()
            self._grid_shows = None
            return
        shown = (result.pair_id, tuple(image_id for image_id, _ in result.top))
        if shown == self._grid_shows:
            return  # the same five images: typing often changes the rank, not the top
        self._grid_shows = shown
        project = self.workspace.project
        if project is not None:  # the ranker looked the files up: no query here
            if len(self._paths) > 2000:
                self._paths.clear()
            for (image_id, _), path in zip(result.top, result.top_paths, strict=False):
                self._paths[(str(project.path), image_id)] = None if path is None else Path(path)
        self.grid.show_hits(list(result.top), self._target_id(), self._correct())

    def _correct(self) -> frozenset[str]:
        """Every ground truth of the pair (several for CIRCO), marked beside the target;
        read once per pair, not on every result."""
        if self.pair_id is None or self.workspace.project is None:
            return frozenset()
        key = (str(self.workspace.project.path), self.pair_id)
        if self._correct_ids[0] != key:
            from studio.pairs.ground_truths import correct_for_pair

            self._correct_ids = (key, correct_for_pair(self.workspace.project, self.pair_id))
        return self._correct_ids[1]

    def _target_id(self) -> str | None:
        if self.pair_id is None or self.workspace.project is None:
            return None
        key = (str(self.workspace.project.path), self.pair_id)
        if self._target[0] != key:
            from studio.pairs.query import pair_images

            images = pair_images(self.workspace.project, self.pair_id)
            self._target = (key, None if images is None else images[1])
        return self._target[1]

    def _path_of(self, image_id: str) -> Path | None:
        """The file of a shown hit, as the ranker found it on the model lane (the grid asks
        on every result; nothing is looked up on the UI thread)."""
        project = self.workspace.project
        if project is None:
            return None
        return self._paths.get((str(project.path), image_id))
