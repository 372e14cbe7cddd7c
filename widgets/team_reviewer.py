"""Reviewing captions for a team server: the next caption comes from the server's queue.

The local reviewer's keys (``CaptionForm``): Ctrl+Enter accepts (with the reviewer's
edits, if any), Ctrl+R opens the reason line and Enter rejects, Ctrl+K skips (the lease
is released and the caption goes back to the team). The server hands out captions other
people wrote (a reviewer never gets their own) with a lease, renewed while on screen.
Decisions go through the client's outbox on the net lane, so a reviewer keeps deciding
while the server is away; a refusal (someone decided it first) is one line, and the
next caption comes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from studio.errors import StudioError
from studio.server.client import Client
from widgets.caption_form import CaptionForm
from widgets.team_connection import TeamConnection
from widgets.team_item import LeasedItemView
from widgets.team_lease import LeaseKeeper
from widgets.team_lease import same_item as _same

BUTTONS = (("skip", "Skip"), ("reject", "Reject…"), ("accept", "Accept"))
HINT = ("Ctrl+Enter accept (with your edits) · Ctrl+R reject with a reason · Ctrl+K skip "
        "(the caption goes back to the team) · decisions are kept, also offline")


def _decide_and_answer(client: Client, caption_id: int, decision: str, reason: str | None,
                       text: str | None, send: bool) -> Any:
    uid = client.decide(caption_id, decision, reason=reason, text=text, send=send)
    return client.answer(uid)


class TeamReviewer(LeasedItemView, CaptionForm):
    item_changed = Signal(object)
    asking_text = "Asking the team server for the next caption to review…"
    offline_text = ("The team server does not answer: your decisions wait on this "
                    "computer, and the next caption comes as soon as it answers.")

    def __init__(self, connection: TeamConnection, parent: QWidget | None = None) -> None:
        actions = {"accept": self.accept, "reject": self.ask_reason, "skip": self.skip}
        super().__init__("captions.review", BUTTONS, actions, HINT,
                         "Why is it rejected? Enter rejects, Esc cancels", parent)
        self.setObjectName("team_reviewer")
        self.connection = connection
        self.item: dict[str, Any] | None = None
        self._asking = False
        self.editor.setEnabled(False)
        self.reason.returnPressed.connect(self._reject)
        self.lease = LeaseKeeper(connection, self.start, self)
        connection.back_online.connect(self._on_back_online)

    def ask_reason(self) -> None:
        """The reason line (the base class asks a local session whether an item is shown)."""
        if self.item is not None:
            self.reason.clear()
            self.reason.show()
            self.reason.setFocus()

    def next_request(self) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        return Client.next_review, ()

    def say(self, text: str) -> None:
        self.info.setText(text)

    def nothing_came(self) -> None:
        self.item_changed.emit(None)

    def _got(self, item: dict[str, Any] | None) -> None:
        if _same(self.item, item, "caption_id"):
            self.item = item  # asked again: keep the edit being made
            self.lease.keep(item)
            return
        self.item = item
        self.reason.hide()
        self.lease.keep(item)
        if item is None:
            self.info.setText("All done: no caption waits for your review right now.")
            self.editor.clear()
            self.editor.setEnabled(False)
        else:
            self.info.setText(f"Caption {item['caption_id']} · pair {item['pair_id']} · "
                              "from the team server")
            self.editor.setEnabled(True)
            self.editor.setText(item["text"])
            self.editor.setFocus()
        self.item_changed.emit(item)

    def stop(self) -> None:
        self.lease.stop()
        self._asking = False
        self.item = None
        self.editor.clear()
        self.editor.setEnabled(False)

    # -- decisions ---------------------------------------------------------------------

    def accept(self) -> None:
        item = self.item
        if item is None:
            return
        text = self.editor.text().strip()
        self._decide(item, "accept", None, text if text and text != item["text"] else None)

    def _reject(self) -> None:
        item, reason = self.item, self.reason.text().strip()
        if item is None:
            return
        if not reason:
            self.state.setText("Say why it is rejected (the author sees it).")
            return
        self.reason.hide()
        self._decide(item, "reject", reason, None)

    def _decide(self, item: dict[str, Any], decision: str, reason: str | None,
                text: str | None) -> None:
        self.lease.stop()
        self.item = None
        self.editor.setEnabled(False)
        self.connection.run(
            _decide_and_answer, int(item["caption_id"]), decision, reason, text,
            self.connection.online,
            done=lambda answer: self._answered(item, decision, answer),
            failed=self._failed, owner=self,
        )

    def _answered(self, item: dict[str, Any], decision: str,
                  answer: tuple[int, Any] | None) -> None:
        caption = item["caption_id"]
        done = "accepted" if decision == "accept" else "rejected"
        if answer is None:
            self.state.setText(f"Caption {caption}: {done}; the decision waits on this "
                               "computer and is sent when the server answers.")
        elif answer[0] < 300:
            self.state.setText(f"Caption {caption}: {done}.")
        else:
            message = answer[1].get("error") if isinstance(answer[1], dict) else answer[1]
            self.state.setText(f"Caption {caption}: the server did not take the decision: "
                               f"{message} Here is the next caption.")
        self.start()

    def _failed(self, error: BaseException) -> None:
        self.state.setText(f"Could not keep the decision: {error}")
        self.start()
        if not isinstance(error, StudioError):
            raise error

    def skip(self) -> None:
        item = self.item
        if item is None:
            return
        if not self.connection.online:
            self.state.setText("Skipping gives the caption back to the team, which needs the "
                               "server; decide it, or wait until the server answers.")
            return
        self.lease.stop()

        def skipped(_answer: Any) -> None:
            self.item = None
            self.state.setText(f"Caption {item['caption_id']} skipped.")
            self.start()

        self.connection.run(Client.skip, int(item["lease_id"]), done=skipped,
                            failed=self._failed, owner=self)
