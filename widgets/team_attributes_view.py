"""Deciding attribute suggestions for a team server: one image at a time, keyboard first.

The server hands out an image with undecided suggestions (with a lease, renewed while on
screen). Keys as in the local one-image review: A accepts and R rejects the current
attribute (Shift: every undecided one), Up/Down move, Enter sends the decisions and
brings the next image, Ctrl+K skips it. Decisions of one image go as one edit through
the client's outbox on the net lane (the server applies them in one transaction, once),
so a person keeps deciding while the server is away.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QListWidget, QVBoxLayout, QWidget

from studio.errors import StudioError
from studio.server.client import Client
from widgets import actions
from widgets.team_connection import TeamConnection
from widgets.team_item import LeasedItemView
from widgets.team_lease import LeaseKeeper
from widgets.team_lease import same_item as _same
from widgets.team_pictures import TeamPicture

MARKS = {"suggested": "·", "accepted": "✓", "rejected": "✗"}
HINT = ("A accept · R reject (Shift: every undecided) · ↑/↓ move · Enter send and next image "
        "· Ctrl+K skip · decisions are kept, also offline")


def _decide_and_answer(client: Client, image_id: str, decisions: dict[str, str],
                       send: bool) -> Any:
    uid = client.decide_attributes(image_id, decisions, send=send)
    return client.answer(uid)


class TeamAttributesView(LeasedItemView, QWidget):
    asking_text = "Asking the team server for the next image…"
    offline_text = ("The team server does not answer: your decisions wait on this "
                    "computer, and the next image comes as soon as it answers.")

    def __init__(self, connection: TeamConnection, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("team_attributes")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.connection = connection
        self.item: dict[str, Any] | None = None
        self.decisions: dict[str, str] = {}
        self._asking = False
        self.info = QLabel()
        self.picture = TeamPicture("Image")
        self.list = QListWidget()
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.state = QLabel()
        self.state.setWordWrap(True)
        hint = QLabel(HINT)
        hint.setStyleSheet("color: #6b7280; font-size: 11px;")
        row = QHBoxLayout()
        row.addWidget(self.picture, 1)
        row.addWidget(self.list, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.info)
        layout.addLayout(row, 1)
        layout.addWidget(self.state)
        layout.addWidget(hint)
        self.lease = LeaseKeeper(connection, self.start, self)
        actions.bind(self, "attributes.team.skip", self.skip)
        self._keys = self._key_map()
        connection.back_online.connect(self._on_back_online)

    # -- the item ----------------------------------------------------------------------

    def next_request(self) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        return Client.next_attributes, ()

    def say(self, text: str) -> None:
        self.info.setText(text)

    def _got(self, item: dict[str, Any] | None) -> None:
        if _same(self.item, item, "image_id"):
            self.item = item  # asked again: keep the decisions being made
            self.lease.keep(item)
            return
        self.item = item
        self.decisions = {}
        self.lease.keep(item)
        self.list.clear()
        if item is None:
            self.info.setText("All done: no image has suggestions for you to decide.")
            self.picture.say("")
            return
        self.info.setText(f"Image {item['image_id']} · from the team server")
        self._draw()
        self.list.setCurrentRow(self._first_undecided())
        self.picture.load(self.connection, str(item["image_id"]), lambda i=item: self.item is i)
        self.setFocus()

    def stop(self) -> None:
        self.lease.stop()
        self._asking = False
        self.item = None
        self.list.clear()

    # -- deciding ----------------------------------------------------------------------

    def _status(self, state: dict[str, Any]) -> str:
        return self.decisions.get(state["attribute"], state["status"])

    def _draw(self) -> None:
        row = self.list.currentRow()
        self.list.clear()
        for state in self.item["attributes"] if self.item else []:
            confidence = state.get("confidence")
            extra = f"  ({confidence:.2f})" if isinstance(confidence, (int, float)) else ""
            self.list.addItem(f"{MARKS.get(self._status(state), '?')}  {state['attribute']}"
                              f"  — {state['type']}{extra}")
        if row >= 0:
            self.list.setCurrentRow(min(row, self.list.count() - 1))

    def _first_undecided(self) -> int:
        states = self.item["attributes"] if self.item else []
        for row, state in enumerate(states):
            if self._status(state) == "suggested":
                return row
        return 0

    def decide(self, status: str, every: bool = False) -> None:
        if self.item is None or not self.item["attributes"]:
            return
        states = self.item["attributes"]
        if every:
            for state in states:
                if self._status(state) == "suggested":
                    self.decisions[state["attribute"]] = status
        else:
            row = max(0, self.list.currentRow())
            self.decisions[states[row]["attribute"]] = status
        self._draw()
        self.list.setCurrentRow(self._first_undecided() if not every else self.list.currentRow())

    def send_and_next(self) -> None:
        item = self.item
        if item is None:
            return
        if not self.decisions:
            self.state.setText("Decide at least one attribute (A or R), or Ctrl+K to skip.")
            return
        self.lease.stop()
        self.item = None
        decisions = dict(self.decisions)
        self.connection.run(_decide_and_answer, str(item["image_id"]), decisions,
                            self.connection.online,
                            done=lambda answer: self._answered(item, answer),
                            failed=self._failed, owner=self)

    def _answered(self, item: dict[str, Any], answer: tuple[int, Any] | None) -> None:
        image = item["image_id"]
        if answer is None:
            self.state.setText(f"Image {image}: decisions kept on this computer; sent when "
                               "the server answers.")
        elif answer[0] < 300:
            self.state.setText(f"Image {image}: decisions saved.")
        else:
            message = answer[1].get("error") if isinstance(answer[1], dict) else answer[1]
            self.state.setText(f"Image {image}: the server did not take the decisions: "
                               f"{message}")
        self.start()

    def _failed(self, error: BaseException) -> None:
        self.state.setText(f"Could not keep the decisions: {error}")
        self.start()
        if not isinstance(error, StudioError):
            raise error

    def skip(self) -> None:
        item = self.item
        if item is None or not self.connection.online:
            if item is not None:
                self.state.setText("Skipping gives the image back to the team, which needs "
                                   "the server.")
            return
        self.lease.stop()

        def skipped(_answer: Any) -> None:
            self.item = None
            self.state.setText(f"Image {item['image_id']} skipped.")
            self.start()

        self.connection.run(Client.skip, int(item["lease_id"]), done=skipped,
                            failed=self._failed, owner=self)

    def _key_map(self) -> actions.KeyMap:
        step = self.list.setCurrentRow
        return actions.KeyMap({
            "attributes.team.accept": lambda: self.decide("accepted", False),
            "attributes.team.reject": lambda: self.decide("rejected", False),
            "attributes.team.accept_rest": lambda: self.decide("accepted", True),
            "attributes.team.reject_rest": lambda: self.decide("rejected", True),
            "attributes.team.next_attribute": lambda: step(
                min(self.list.count() - 1, self.list.currentRow() + 1)),
            "attributes.team.previous_attribute": lambda: step(
                max(0, self.list.currentRow() - 1)),
            "attributes.team.send": self.send_and_next,
        })

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt name)
        """The keys of ``attributes.team`` in the key map (widgets/actions.py)."""
        if not self._keys.handle(event):
            super().keyPressEvent(event)
