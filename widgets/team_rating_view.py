"""Rating for a team server: the turn the server hands this rater, blind, same keys.

The server's item is blind by construction (image ids and texts, the rater's own scores;
never a dataset, an origin or another rater's scores), so this view can show no more.
Keys are the local Rate tab's (``RatingForm``): 1–5 score the focused criterion, Enter
saves and goes to the next item, S skips, F flags. Every score and status is an edit
through the client's outbox on the net lane: a rater keeps scoring while the server is
away, and the scores go out when it answers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from studio.errors import StudioError
from studio.server.client import Client
from widgets.rating_form import RatingForm
from widgets.team_connection import TeamConnection
from widgets.team_item import TeamItemAsker
from widgets.team_pictures import TeamPictures


def _status_and_answer(client: Client, assignment_id: int, status: str, note: str | None,
                       send: bool) -> Any:
    uid = client.set_rating_status(assignment_id, status, note, send=send)
    return client.answer(uid)


class TeamRatingView(TeamItemAsker, QWidget):
    offline_text = ("The team server does not answer: your scores wait on this "
                    "computer, and the next turn comes as soon as it answers.")

    def __init__(self, connection: TeamConnection, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("team_rating")
        self.connection = connection
        self.item: dict[str, Any] | None = None
        self._asking = False
        self.sample = QLineEdit("main")
        self.sample.setToolTip("The rating sample your coordinator drew (usually 'main')")
        self.sample.returnPressed.connect(self.start)
        self.progress = QLabel()
        top = QHBoxLayout()
        top.addWidget(QLabel("Sample"))
        top.addWidget(self.sample)
        top.addWidget(self.progress, 1)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.history = QLabel()
        self.history.setWordWrap(True)
        self.history.setStyleSheet("color: #4b5563;")
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
        layout.addWidget(self.history)
        layout.addWidget(self.pictures, 1)
        layout.addWidget(self.text)
        layout.addWidget(self.form)
        layout.addLayout(bottom)
        self.form.setEnabled(False)
        connection.back_online.connect(self._on_back_online)

    # -- the item ----------------------------------------------------------------------

    def next_request(self) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        return Client.next_rating, (self.sample.text().strip() or "main",)

    def say(self, text: str) -> None:
        self.message.setText(text)

    def _got(self, item: dict[str, Any] | None) -> None:
        self.item = item
        if item is None:
            self.message.setText("Nothing left to rate in this sample — thank you!")
            self.form.setEnabled(False)
            self.pictures.show_item(None)
            self.history.setText("")
            self.text.setText("")
            self.progress.setText("")
            return
        turn = item["turn"]
        self.progress.setText(f"Item {item['position']} of {item['queue_size']}")
        self.message.setText("")
        self.history.setText("<br>".join(
            f"Turn {t['index'] + 1}: {t['text']}" for t in item["history"]))
        self.pictures.show_item(turn)
        self.text.setText(f"Turn {turn['index'] + 1}: <b>{turn['text']}</b>")
        self.form.set_scores(item["scores"])
        self.note.setText(item.get("note") or "")
        self.form.setEnabled(True)
        self.form.setFocus()

    def restart(self) -> None:
        self._asking = False
        self.item = None
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
