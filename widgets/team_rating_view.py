"""Rating for a team server: the turn the server hands this rater, blind, same keys.

The server's item is blind by construction (image ids and texts, the rater's own scores;
never a dataset, an origin or another rater's scores), so this view can show no more.
Keys are the local Rate tab's (``RatingForm``): 1–5 score the focused criterion, Enter
saves and goes to the next item, S skips, F flags. Every score and status is an edit
through the client's outbox on the net lane: a rater keeps scoring while the server is
away, and the scores go out when it answers.

The sample chooser lists the samples in which this rater has a queue, each with what is
left, and opens on the first with work (a rater need not know a sample's name). Turns are
numbered as the server numbers them (from 1); earlier turns show with their pictures,
smaller, above the turn being rated.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
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
from studio.server.client import Client, Offline
from widgets.rating_form import RatingForm
from widgets.team_connection import TeamConnection
from widgets.team_item import TeamItemAsker
from widgets.team_pictures import TeamPictures

EARLIER_SIZE = 120  # the pictures of an earlier turn
EARLIER_HEIGHT = 190  # one earlier turn in view at least, two at most; more scroll


def _status_and_answer(client: Client, assignment_id: int, status: str, note: str | None,
                       send: bool) -> Any:
    uid = client.set_rating_status(assignment_id, status, note, send=send)
    return client.answer(uid)


def _samples_and_next(client: Client, wanted: str) -> dict[str, Any]:
    """Net lane: this rater's samples, the one to rate (``wanted``, else the first with
    work) and its next item. Waiting scores go out first, so the counts are current."""
    client.flush()
    try:
        samples = client.rating_samples()
    except Offline:
        raise
    except StudioError:  # a server from before the sample list: the usual sample
        samples = []
    names = [str(s["name"]) for s in samples]
    if wanted and (wanted in names or not names):
        sample = wanted
    else:
        with_work = [str(s["name"]) for s in samples if s["pending"]]
        sample = (with_work or names or ["main"])[0]
    return {"samples": samples, "sample": sample, "item": client.next_rating(sample)}


def _turn_line(turn: dict[str, Any], bold: bool = False) -> str:
    text = html.escape(str(turn["text"]))
    return f"Turn {turn['index']}: " + (f"<b>{text}</b>" if bold else text)


class EarlierTurn(QWidget):
    """One earlier turn: its number and text beside its two pictures, small."""

    def __init__(self, connection: TeamConnection, turn: dict[str, Any],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.heading = QLabel(_turn_line(turn))
        self.heading.setWordWrap(True)
        self.pictures = TeamPictures(connection, size=EARLIER_SIZE,
                                     headings=("Reference", "Target"))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.heading, 1)
        layout.addWidget(self.pictures, 2)
        self.pictures.show_item(turn)


class TeamRatingView(TeamItemAsker, QWidget):
    offline_text = ("The team server does not answer: your scores wait on this "
                    "computer, and the next turn comes as soon as it answers.")

    def __init__(self, connection: TeamConnection, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("team_rating")
        self.connection = connection
        self.item: dict[str, Any] | None = None
        self._asking = False
        self._chosen = ""  # the sample being rated ("": the first with work)
        self.sample = QComboBox()
        self.sample.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.sample.setToolTip("The rating samples your coordinator drew for you, with what "
                               "is left in each")
        self.sample.activated.connect(self._pick)
        self.progress = QLabel()
        top = QHBoxLayout()
        top.addWidget(QLabel("Sample"))
        top.addWidget(self.sample)
        top.addWidget(self.progress, 1)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.earlier_turns: list[EarlierTurn] = []
        self.earlier = QScrollArea()
        self.earlier.setWidgetResizable(True)
        self.earlier.setMinimumHeight(EARLIER_HEIGHT)
        self.earlier.setMaximumHeight(2 * EARLIER_HEIGHT)
        self.earlier_box = QWidget()
        self.earlier_layout = QVBoxLayout(self.earlier_box)
        self.earlier_layout.setContentsMargins(0, 0, 0, 0)
        self.earlier.setWidget(self.earlier_box)
        self.earlier.hide()
        self.pictures = TeamPictures(connection)
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setStyleSheet("font-size: 15px;")
        self.form = RatingForm()
        self.form.score_changed.connect(self._score)
        self.form.submit_requested.connect(lambda: self.finish("done"))
        self.form.skip_requested.connect(lambda: self.finish("skipped"))
        self.form.flag_requested.connect(lambda: self.finish("flagged"))
        self.note = QLineEdit()
        self.note.setPlaceholderText("Note (optional; say why when flagging)")
        bottom = QHBoxLayout()
        bottom.addWidget(self.note, 1)
        for label, status in (("Save && next (Enter)", "done"), ("Skip (S)", "skipped"),
                              ("Flag (F)", "flagged")):
            button = QPushButton(label)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.clicked.connect(lambda _=False, s=status: self.finish(s))
            bottom.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.message)
        layout.addWidget(self.earlier)
        layout.addWidget(self.pictures, 1)
        layout.addWidget(self.text)
        layout.addWidget(self.form)
        layout.addLayout(bottom)
        self.form.setEnabled(False)
        connection.back_online.connect(self._on_back_online)

    # -- the item ----------------------------------------------------------------------

    def next_request(self) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        return _samples_and_next, (self._chosen,)

    def say(self, text: str) -> None:
        self.message.setText(text)

    def _pick(self, index: int) -> None:
        """The rater chose a sample: rate that one from its next item."""
        name = str(self.sample.itemData(index) or "")
        if not name or (name == self._chosen and self.item is not None):
            return
        self._chosen = name
        self.item = None
        self.form.setEnabled(False)
        self._asking = False  # the answer for the sample left comes first and is replaced
        self.start()

    def _show_samples(self, samples: list[dict[str, Any]], current: str) -> None:
        self.sample.clear()
        for s in samples:
            left = f"{s['pending']} to rate" if s["pending"] else "all rated"
            self.sample.addItem(f"{s['name']} · {left}", str(s["name"]))
        index = self.sample.findData(current)
        if index < 0 and current:
            self.sample.addItem(current, current)
            index = self.sample.count() - 1
        self.sample.setCurrentIndex(index)

    def _show_earlier(self, turns: list[dict[str, Any]]) -> None:
        for turn in self.earlier_turns:
            turn.deleteLater()
        self.earlier_turns = [EarlierTurn(self.connection, t, self.earlier_box) for t in turns]
        while self.earlier_layout.count():
            self.earlier_layout.takeAt(0)
        for turn in self.earlier_turns:
            self.earlier_layout.addWidget(turn)
        self.earlier_layout.addStretch(1)
        self.earlier.setVisible(bool(turns))

    def _got(self, answer: dict[str, Any] | None) -> None:
        answer = answer or {"samples": [], "sample": self._chosen, "item": None}
        samples, sample = answer["samples"], str(answer["sample"])
        self._chosen = sample
        self._show_samples(samples, sample)
        item = answer["item"]
        self.item = item
        if item is None:
            self.message.setText(self._nothing_left(samples, sample))
            self.form.setEnabled(False)
            self.pictures.show_item(None)
            self._show_earlier([])
            self.text.setText("")
            self.progress.setText("")
            return
        turn = item["turn"]
        self.progress.setText(f"Item {item['position']} of {item['queue_size']}")
        self.message.setText("")
        self._show_earlier(list(item["history"]))
        self.pictures.show_item(turn)
        self.text.setText(_turn_line(turn, bold=True))
        self.form.set_scores(item["scores"])
        self.note.setText(item.get("note") or "")
        self.form.setEnabled(True)
        self.form.setFocus()

    @staticmethod
    def _nothing_left(samples: list[dict[str, Any]], sample: str) -> str:
        if not samples:
            return "The team server has no rating items for you yet."
        others = [s for s in samples if s["pending"] and s["name"] != sample]
        text = f"Nothing left to rate in sample {sample} — thank you!"
        if others:
            text += " Still to rate: " + ", ".join(
                f"{s['pending']} in sample {s['name']}" for s in others
            ) + "; pick the sample above."
        return text

    def restart(self) -> None:
        self._asking = False
        self.item = None
        self._chosen = ""  # another connection or person: open on their sample with work
        self.start()

    def stop(self) -> None:
        self._asking = False
        self.item = None
        self.form.setEnabled(False)

    # -- scoring -----------------------------------------------------------------------

    def _score(self, key: str, value: int) -> None:
        if self.item is None:
            return
        self.item["scores"][key] = value
        self.connection.run(Client.save_scores, int(self.item["assignment_id"]), {key: value},
                            None, self.connection.online, failed=self._failed, owner=self)

    def _failed(self, error: BaseException) -> None:
        if isinstance(error, StudioError):
            self.message.setText(str(error))
        else:
            raise error

    def finish(self, status: str) -> None:
        item = self.item
        if item is None:
            return
        missing = [k for k, v in item["scores"].items() if v is None]
        if status == "done" and missing:
            self.message.setText("Score every criterion first (1–5), or S to skip.")
            self.form.set_current(list(item["scores"]).index(missing[0]))
            self.form.setFocus()
            return
        self.item = None
        self.form.setEnabled(False)
        note = self.note.text().strip() or None
        self.connection.run(_status_and_answer, int(item["assignment_id"]), status, note,
                            self.connection.online, done=self._answered, failed=self._failed,
                            owner=self)

    def _answered(self, answer: tuple[int, Any] | None) -> None:
        if answer is not None and answer[0] >= 300:
            message = answer[1].get("error") if isinstance(answer[1], dict) else answer[1]
            self.message.setText(f"The server did not take it: {message}")
        elif answer is None:
            self.message.setText("Kept on this computer; sent when the server answers.")
        self.start()
