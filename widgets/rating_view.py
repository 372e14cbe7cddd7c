"""The Rate tab: a rater picks themselves and works through their own queue, blind.

It shows only what a ``RatingItem`` holds (images, texts, the rater's own scores), so no
dataset name, origin or other rater's score can reach the screen. Every score is saved
as it is given; Enter finishes the item, S skips it, F flags it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from studio.errors import StudioError
from studio.quality import ratings
from studio.quality.sampling import rater_names, sample_names
from studio.store import Project
from studio.workspace import Workspace
from widgets import actions
from widgets.elided_label import ElidedLabel, WrappedLabel
from widgets.rating_form import RatingForm
from widgets.turn_strip import TurnStrip

EARLIER_HEIGHT = 126  # one compact earlier turn at least, three at most; more scroll
CURRENT_SIZE = 240
CURRENT_SIZE_WITH_HISTORY = 170  # so the earlier turns, this turn and the form fit 1024×700


class RatingView(QWidget):
    rated = Signal()  # an item was finished (done, skipped or flagged)

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.item: ratings.RatingItem | None = None
        self._default_rater = ""
        # (sample, rater, message) once a rater reached the end of a sample: the view says
        # so until another sample or rater is picked (issue 27, D16).
        self._finished: tuple[str, str, str] | None = None
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        top.addWidget(QLabel("Rater"))
        self.rater = QComboBox()
        self.rater.setEditable(True)
        self.rater.setMinimumWidth(160)
        self.rater.setToolTip("Who is rating; your queue is yours alone")
        top.addWidget(self.rater)
        top.addWidget(QLabel("Sample"))
        self.sample = QComboBox()
        self.sample.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.sample.setMinimumWidth(100)
        top.addWidget(self.sample)
        self.start_button = QPushButton("Start")
        self.start_button.clicked.connect(self.load_next)
        top.addWidget(self.start_button)
        self.progress = ElidedLabel()
        top.addWidget(self.progress, 1)
        layout.addLayout(top)
        self.message = WrappedLabel()
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        # Earlier turns scroll in a short strip; the turn being rated sits below it, always
        # in view.
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setMinimumHeight(EARLIER_HEIGHT)
        self.scroll.setMaximumHeight(3 * EARLIER_HEIGHT)
        self.turns_box = QWidget()
        self.turns_layout = QVBoxLayout(self.turns_box)
        self.turns_layout.setContentsMargins(0, 0, 0, 0)
        self.scroll.setWidget(self.turns_box)
        layout.addWidget(self.scroll, 1)
        self.current_box = QVBoxLayout()
        layout.addLayout(self.current_box)
        self.current_strip: TurnStrip | None = None
        self.form = RatingForm()
        self.form.score_changed.connect(self._save_score)
        self.form.submit_requested.connect(lambda: self.finish("done"))
        self.form.skip_requested.connect(lambda: self.finish("skipped"))
        self.form.flag_requested.connect(lambda: self.finish("flagged"))
        layout.addWidget(self.form)
        bottom = QHBoxLayout()
        self.note = QLineEdit()
        self.note.setPlaceholderText("Note (optional; say why when flagging)")
        self.note.editingFinished.connect(self._save_note)
        bottom.addWidget(self.note, 1)
        for text, status in (("Save && next (Enter)", "done"), ("Skip (S)", "skipped"),
                             ("Flag (F)", "flagged")):
            button = QPushButton(text)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.clicked.connect(lambda _=False, s=status: self.finish(s))
            bottom.addWidget(button)
        layout.addLayout(bottom)
        layout.addStretch(1)  # a tall window leaves its spare room below, not between
        self.rater.activated.connect(lambda _: self.load_next())
        self.rater.lineEdit().returnPressed.connect(self.load_next)
        self.sample.activated.connect(lambda _: self.load_next())
        self._set_rating_enabled(False)
        # 1–5, S and F work wherever the focus is in the tab (Start, the pickers' buttons),
        # except in a text field, which keeps its typing (Qt gives it the keys first).
        for value in range(1, 6):
            actions.bind(self, f"quality.rating.score.{value}",
                         lambda v=value: self._score_key(v))
        actions.bind(self, "quality.rating.skip", lambda: self.finish("skipped"))
        actions.bind(self, "quality.rating.flag", lambda: self.finish("flagged"))

    def _score_key(self, value: int) -> None:
        if self.item is not None and self.form.isEnabled():
            self.form.score_current(value)
            self.form.setFocus()

    @property
    def project(self) -> Project | None:
        return self.workspace.project

    def rater_name(self) -> str:
        return self.rater.currentText().strip()

    def refresh(self) -> None:
        """Fill the pickers from the project: its samples and the people with queues."""
        project = self.project
        if project is None:
            return
        current_sample = self.sample.currentText()
        self.sample.clear()
        self.sample.addItems(sample_names(project))
        if current_sample:
            self.sample.setCurrentText(current_sample)
        # The box follows the name in Settings until the rater types another one.
        name = self.rater_name()
        if not name or name == self._default_rater:
            name = self.workspace.user_name
        self._default_rater = self.workspace.user_name
        raters = rater_names(project)
        self.rater.clear()
        self.rater.addItems(raters)
        self.rater.setCurrentText(name)
        if self.sample.count() == 0:
            self._show_message("No rating sample yet: draw one in the Transactions tab "
                               "(or with 'cir-studio quality sample').")
        elif self.item is None:
            finished = self._finished
            if finished is not None and finished[:2] == (self.sample.currentText(), name):
                self._show_message(finished[2])
            else:
                self._finished = None
                self._show_message("Pick yourself as rater and press Start.")

    def load_next(self) -> None:
        project, rater, sample = self.project, self.rater_name(), self.sample.currentText()
        if project is None or not rater or not sample:
            return
        self.item = ratings.next_item(project, sample, rater)
        self._update_progress()
        if self.item is None:
            done = ratings.rater_progress(project, sample, rater)
            self._clear_turns()
            self.form.set_scores({})  # the last item's scores are not this state's
            self.note.clear()
            self._set_rating_enabled(False)
            text = (
                f"Nothing left to rate in sample {sample}: finished with {done.done} rated, "
                f"{done.skipped} skipped, {done.flagged} flagged — thank you! Pick another "
                "sample to go on."
                if done.total
                else f"{rater} has no items in this sample."
            )
            self._finished = (sample, rater, text)
            self._show_message(text)
            return
        self._finished = None
        self._show(self.item)

    def _show(self, item: ratings.RatingItem) -> None:
        self._clear_turns()
        if item.history:
            heading = QLabel("Earlier turns")
            heading.setObjectName("rubric")
            self.turns_layout.addWidget(heading)
        for turn in item.history:
            self.turns_layout.addWidget(TurnStrip(turn, compact=True))
        self.turns_layout.addStretch(1)
        self.scroll.setVisible(bool(item.history))
        size = CURRENT_SIZE_WITH_HISTORY if item.history else CURRENT_SIZE
        self.current_strip = TurnStrip(item.turn, compact=False, size=size)
        self.current_box.addWidget(self.current_strip)
        self.form.set_scores(item.scores)
        self.note.setText(item.note)
        self._show_message("")
        self._set_rating_enabled(True)
        self.form.setFocus()

    def _clear_turns(self) -> None:
        for box in (self.turns_layout, self.current_box):
            while box.count():
                widget = box.takeAt(0).widget()
                if widget is not None:
                    widget.deleteLater()
        self.current_strip = None

    def _set_rating_enabled(self, enabled: bool) -> None:
        self.form.setEnabled(enabled)
        self.note.setEnabled(enabled)
        if not enabled:
            self.scroll.setVisible(False)

    def _show_message(self, text: str) -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))

    def _update_progress(self) -> None:
        if self.project is None or not self.sample.currentText():
            self.progress.setText("")
            return
        p = ratings.rater_progress(self.project, self.sample.currentText(), self.rater_name())
        place = f"Item {self.item.position} of {self.item.queue_size} · " if self.item else ""
        self.progress.setText(f"{place}{p.done} done · {p.skipped} skipped · {p.flagged} flagged"
                              f" · {p.pending} to go")

    # -- saving ----------------------------------------------------------------------

    def _save_score(self, key: str, value: int) -> None:
        if self.item is None or self.project is None:
            return
        try:
            ratings.save_scores(self.project, self.item.assignment_id, self.rater_name(),
                                {key: value})
        except StudioError as error:
            self._show_message(str(error))

    def _save_note(self) -> None:
        if self.item is None or self.project is None:
            return
        try:
            ratings.save_scores(self.project, self.item.assignment_id, self.rater_name(), {},
                                self.note.text().strip())
        except StudioError as error:  # a busy or read-only project, another rater's item
            self._show_message(str(error))

    def finish(self, status: str) -> None:
        if self.item is None or self.project is None:
            return
        try:
            ratings.set_status(self.project, self.item.assignment_id, self.rater_name(), status,
                               self.note.text().strip())
        except StudioError as error:
            self._show_message(str(error))
            self.form.set_current(self._first_unscored())
            self.form.setFocus()
            return
        self.rated.emit()
        self.load_next()

    def _first_unscored(self) -> int:
        missing = [i for i, v in enumerate(self.form.scores().values()) if v is None]
        return missing[0] if missing else 0
