"""Rating, one view for both faces: a rater works through their own queue, blind, bound to a
``RatingQueue``: the project open here (``LocalRatingQueue``, the Rate tab) or a team
server (``RemoteRatingQueue``, when a rater is connected).

It shows only what a ``RatingCard`` holds (images by id, texts, the rater's own scores and
note), so no dataset name, origin or other rater's score can reach the screen; the
pictures come from the pane's ``PictureSource`` (the project's files, or the team
connection). Every score is kept as it is given; Enter finishes the item, S skips it, F
flags it. The rater picker shows only for the project open here (on a team server the
rater is whoever connected). The sample picker lists the samples; on a team server each
with what is left, opening on the first with work.

Every call to the queue runs through the ``QueueCalls`` the pane gives, one at a time in
the order made (``CallLine``), the answer applied here: the team connection's net lane
for a server, where a score or a finish waits in the outbox while the server is away; at
once for the project (a row read or written).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

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
from studio.quality.criteria import CRITERION_KEYS
from studio.quality.sampling import rater_names, sample_names
from studio.store import Project
from studio.work_queue.rating_protocol import (
    NOT_SCORED,
    Finished,
    Progress,
    RatingCard,
    RatingQueue,
)
from studio.workspace import Workspace
from widgets import actions
from widgets.elided_label import ElidedLabel, WrappedLabel
from widgets.queue_calls import CallLine, QueueCalls, at_once
from widgets.rating_form import RatingForm
from widgets.rating_pictures import PictureSource

EARLIER_HEIGHT = 126  # one compact earlier turn at least, three at most; more scroll
CURRENT_SIZE = 240
CURRENT_SIZE_WITH_HISTORY = 170  # so the earlier turns, this turn and the form fit 1024×700
ASKING = "Asking for your next turn to rate…"

# The project open here: (rater, sample) → its queue and where its pictures come from.
LocalQueues = Callable[[str, str], tuple[RatingQueue, PictureSource]]


@dataclass(frozen=True)
class Shown:
    """What the view shows after asking its queue: the item, the samples (team: with what
    is left), the figures of the sample, and why there is no item."""

    item: RatingCard | None
    sample: str
    samples: dict[str, Progress] | None
    progress: Progress
    why: str | None


def _next_of(queue: RatingQueue, with_samples: bool) -> Shown:
    """Worker lane: the queue's next item and what goes with it."""
    item = queue.take_next()
    return Shown(item, queue.sample, queue.samples() if with_samples else None,
                 queue.progress(), queue.can("next"))


def _outcome(finished: Finished) -> str:
    if finished.waiting:
        return "Kept on this computer; sent when the server answers."
    if finished.refused:
        return f"The server did not take it: {finished.refused}"
    return ""


class RatingView(QWidget):
    rated = Signal()  # an item was finished (done, skipped or flagged)

    def __init__(self, workspace: Workspace | None = None,
                 local: LocalQueues | None = None, parent: QWidget | None = None) -> None:
        """``workspace`` and ``local``: the Rate tab of the project open here, with its
        rater picker; neither: a team server's queue, bound with ``bind``."""
        super().__init__(parent)
        self.workspace = workspace
        self._local = local
        self.queue: RatingQueue | None = None
        self.calls: QueueCalls | None = None
        self.pictures: PictureSource | None = None
        self.item: RatingCard | None = None
        self._line = CallLine()
        self._local_calls = at_once()  # the project's rating calls: a row each, here
        self._default_rater = ""
        self._unsent: Finished | None = None  # a finish that waits in the outbox
        # (sample, rater, message) once a rater reached the end of a sample: the view says
        # so until another sample or rater is picked (issue 27, D16).
        self._finished: tuple[str, str, str] | None = None
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        self.rater_label = QLabel("Rater")
        top.addWidget(self.rater_label)
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
        self.earlier_turns: list[QWidget] = []
        self.current_strip: QWidget | None = None
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
        self.sample.activated.connect(self._pick)
        for widget in (self.rater_label, self.rater, self.start_button):
            widget.setVisible(local is not None)
        if local is None:
            self.sample.setToolTip("The rating samples your coordinator drew for you, with "
                                   "what is left in each")
        self._set_rating_enabled(False)
        # 1–5, S and F work wherever the focus is in the view (Start, the pickers' buttons),
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
        return None if self.workspace is None else self.workspace.project

    def rater_name(self) -> str:
        return self.rater.currentText().strip()

    def sample_name(self) -> str:
        data = self.sample.currentData()
        return str(data) if data else self.sample.currentText()

    # -- the queue ---------------------------------------------------------------------

    def bind(self, queue: RatingQueue | None, calls: QueueCalls | None = None,
             pictures: PictureSource | None = None) -> None:
        """Rate from this queue from now on (None: nothing); its next item is asked for."""
        self.queue, self.calls, self.pictures = queue, calls, pictures
        self._line.reset(calls)
        self._unsent = None
        self._show(None)
        if queue is not None:
            self._show_message(ASKING)
            self.start()

    def settled(self) -> bool:
        """No call to the queue is running or waiting."""
        return self._line.settled()

    def _call(self, function: Callable[..., Any], *args: Any,
              done: Callable[[Any], Any]) -> None:
        self._line.add(function, *args, done=done, failed=self._failed)

    def _failed(self, error: BaseException) -> None:
        if self.item is not None:
            self._set_rating_enabled(True)
        if isinstance(error, StudioError):
            self._show_message(str(error))
            return
        self._show_message(f"The rating queue failed ({error}).")
        raise error  # unexpected: Qt hands it to the error reporter's hook

    def start(self, line: str = "") -> None:
        """Ask the queue for the rater's next item, and show it (``line``: said with it)."""
        queue = self.queue
        if queue is None:
            return
        self._call(_next_of, queue, self._local is None,
                   done=lambda shown: self._took(shown, line))

    def idle_refresh(self) -> None:
        """The server answers again: with no item on screen, ask for one."""
        if self.queue is not None and self.item is None and self.settled():
            self.start()

    def check_waiting(self) -> None:
        """The server answered again: a finish that waited says the server's answer."""
        unsent, queue = self._unsent, self.queue
        if unsent is None or queue is None or queue.can("next") is not None:
            return

        def learnt(record: Finished) -> None:
            if self._unsent is unsent and not record.waiting:
                self._unsent = None
                if record.refused:
                    self._show_message(_outcome(record))

        self._call(queue.outcome, unsent, done=learnt)

    # -- the project open here ---------------------------------------------------------

    def refresh(self) -> None:
        """The Rate tab: fill the pickers from the project (its samples and the people
        with queues)."""
        project = self.project
        if project is None or self.workspace is None:
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
        """The Rate tab: rate the picked sample as the picked rater, from their next item."""
        rater, sample = self.rater_name(), self.sample_name()
        if self._local is None or self.project is None or not rater or not sample:
            return
        queue, pictures = self._local(rater, sample)
        self.bind(queue, self._local_calls, pictures)

    def _pick(self, _index: int) -> None:
        """A sample was picked: rate that one from its next item."""
        if self._local is not None:
            self.load_next()
            return
        queue, name = self.queue, self.sample_name()
        if queue is None or not name or (name == queue.sample and self.item is not None):
            return
        self._show(None)
        self._call(queue.choose, name, done=lambda _: self.start())

    # -- showing -----------------------------------------------------------------------

    def _took(self, shown: Shown, line: str = "") -> None:
        if shown.samples is not None:
            self._show_samples(shown.samples, shown.sample)
        self._show_progress(shown)
        if shown.item is None:
            self._show(None)
            why = shown.why or ""
            rater = self.rater_name()
            if self._local is not None:
                if not shown.progress.total:
                    why = f"{rater} has no items in this sample."
                self._finished = (shown.sample, rater, why)
            self._show_message(" ".join(part for part in (line, why) if part))
            return
        self._finished = None
        if self.item is None or self.item.assignment_id != shown.item.assignment_id:
            self._show(shown.item)
        else:
            self.item = shown.item
        self._show_message(line)

    def _show_samples(self, samples: dict[str, Progress], current: str) -> None:
        self.sample.clear()
        for name, p in samples.items():
            left = f"{p.pending} to rate" if p.pending else "all rated"
            self.sample.addItem(f"{name} · {left}", name)
        index = self.sample.findData(current)
        if index < 0 and current:
            self.sample.addItem(current, current)
            index = self.sample.count() - 1
        self.sample.setCurrentIndex(index)

    def _show_progress(self, shown: Shown) -> None:
        p, item = shown.progress, shown.item
        if not shown.sample:
            self.progress.setText("")
            return
        place = f"Item {item.position} of {item.queue_size} · " if item else ""
        self.progress.setText(f"{place}{p.done} done · {p.skipped} skipped · {p.flagged} "
                              f"flagged · {p.pending} to go")

    def _show(self, item: RatingCard | None) -> None:
        self.item = item
        self._clear_turns()
        if item is None or self.pictures is None:
            self.form.set_scores({})  # the last item's scores are not this state's
            self.note.clear()
            self._set_rating_enabled(False)
            return
        if item.history:
            heading = QLabel("Earlier turns")
            heading.setObjectName("rubric")
            self.turns_layout.addWidget(heading)
        self.earlier_turns = [self.pictures.strip(turn, compact=True) for turn in item.history]
        for strip in self.earlier_turns:
            self.turns_layout.addWidget(strip)
        self.turns_layout.addStretch(1)
        self.scroll.setVisible(bool(item.history))
        size = CURRENT_SIZE_WITH_HISTORY if item.history else CURRENT_SIZE
        self.current_strip = self.pictures.strip(item.turn, compact=False, size=size)
        self.current_box.addWidget(self.current_strip)
        self.form.set_scores(dict(item.scores))
        self.note.setText(item.note)
        self._set_rating_enabled(True)
        self.form.setFocus()

    def _clear_turns(self) -> None:
        for box in (self.turns_layout, self.current_box):
            while box.count():
                widget = box.takeAt(0).widget()
                if widget is not None:
                    widget.deleteLater()
        self.earlier_turns = []
        self.current_strip = None

    def _set_rating_enabled(self, enabled: bool) -> None:
        self.form.setEnabled(enabled)
        self.note.setEnabled(enabled)
        if not enabled:
            self.scroll.setVisible(False)

    def _show_message(self, text: str) -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))

    # -- saving ------------------------------------------------------------------------

    def _kept(self, card: RatingCard) -> None:
        if self.item is not None and self.item.assignment_id == card.assignment_id:
            self.item = card

    def _save_score(self, key: str, value: int) -> None:
        if self.item is None or self.queue is None:
            return
        self.item = replace(self.item, scores={**self.item.scores, key: value})
        self._call(self.queue.score, key, value, done=self._kept)

    def _save_note(self) -> None:
        if self.item is None or self.queue is None:
            return
        note = self.note.text().strip()
        if note != self.item.note:
            self._call(self.queue.keep_note, note, done=self._kept)

    def finish(self, status: str) -> None:
        item, queue = self.item, self.queue
        if item is None or queue is None or not self.form.isEnabled():
            return
        missing = [key for key, value in self.form.scores().items() if value is None]
        if status == "done" and missing:
            self._show_message(NOT_SCORED)
            self.form.set_current(list(CRITERION_KEYS).index(missing[0]))
            self.form.setFocus()
            return
        self._set_rating_enabled(False)
        self._call(queue.finish, status, self.note.text().strip(), done=self._done)

    def _done(self, finished: Finished) -> None:
        if finished.waiting:
            self._unsent = finished
        self.rated.emit()
        self.item = None
        self.start(_outcome(finished))
