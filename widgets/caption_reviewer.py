"""Reviewing captions one at a time, keyboard first, bound to a ``ReviewQueue``: the project
open here (``LocalReviewQueue``) or a team server (``RemoteReviewQueue``). One reviewer for
both.

The caption is editable: accepting after an edit keeps the old text in the audit log.
Automatic flags are listed with their reasons, and the pair's other captions beside them.
Keys: Ctrl+Enter accept, Ctrl+R reject (type the reason, Enter), Alt+Left/Right or
PgUp/PgDn previous/next, Ctrl+K skip, Ctrl+Alt+Z undo the last accept or reject (the same
key undoes the last save in writing).

Every call to the queue can block (the database; the network and its outbox), so each
runs on the lane the pane gives (``QueueCalls``: the services' IO lane for a project, the
team connection's net lane for a server), one at a time and in the order made; the answer
is applied here, on the UI thread. What the queue cannot do now it says (``can``): with a
team server that does not answer, accepts and rejects wait in the outbox, and a new
caption, Previous/Next, Skip and taking a decision back are refused in one line until it
answers again. Binding the queue, its calls, the lease and moving are the queue form's
(``QueueForm``), shared with the writer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QWidget

from studio.errors import StudioError
from studio.work_queue.review_protocol import (
    ALL_REVIEWED,
    DECIDED,
    NO_DECISION,
    NO_REASON,
    Decided,
    ReviewItem,
    ReviewQueue,
    flag_line,
)
from widgets.queue_form import QueueForm

BUTTONS = (
    ("previous", "◀ Previous"),
    ("next", "Next ▶"),
    ("skip", "Skip"),
    ("undo_decision", "Undo last decision"),
    ("reject", "Reject…"),
    ("accept", "Accept"),
)
HINT = (
    "Ctrl+Enter accept (with your edits) · Ctrl+R reject with a reason · "
    "Alt+←/→ or PgUp/PgDn previous/next · Ctrl+K skip · Ctrl+Alt+Z undo last decision"
)


class CaptionReviewer(QueueForm):
    reviewed = Signal()  # a decision was made or taken back
    ASKING = "Asking for the next caption to review…"
    ALL_DONE = ALL_REVIEWED

    def __init__(self, parent: QWidget | None = None) -> None:
        actions = {
            "accept": self.accept,
            "reject": self.ask_reason,
            "previous": lambda: self.step(False),
            "next": lambda: self.step(True),
            "skip": self.skip,
            "undo_decision": self.undo_last_decision,
        }
        super().__init__(
            "captions.review", BUTTONS, actions, HINT,
            "Why is it rejected? Enter rejects, Esc cancels", parent
        )
        self.flags = QLabel()
        self.flags.setWordWrap(True)
        self.flags.setStyleSheet("color: #b45309;")
        self.others = QLabel()
        self.others.setWordWrap(True)
        self.others.setStyleSheet("color: #4b5563;")
        self.details.addWidget(self.flags)
        self.details.addWidget(self.others)
        self.reason.returnPressed.connect(self._confirm_reject)
        self.queue: ReviewQueue | None = None
        self.item: ReviewItem | None = None  # the caption on screen
        self.editor.setEnabled(False)
        self._set_decisions_enabled(False)

    # -- the queue ---------------------------------------------------------------------

    @property
    def caption_id(self) -> int | None:
        """The caption on screen."""
        return None if self.item is None else self.item.caption_id

    def _failed(self, error: BaseException) -> None:
        self._moving = False
        if self.item is not None:
            self.editor.setEnabled(True)
        if isinstance(error, StudioError):
            self.state.setText(str(error))
            return
        self.state.setText(f"The review queue failed ({error}).")
        raise error  # unexpected: Qt hands it to the error reporter's hook

    def run(self, function: Callable[..., Any], *args: Any) -> None:
        """Call the queue (another order, a re-read) and show the caption it answers."""
        self._call(function, *args, done=lambda item: self._show(item))

    def reread(self) -> None:
        """Show the caption on screen as it is now (its flags after a threshold change)."""
        if self.queue is not None:
            self.run(self.queue.hold)

    # -- showing -----------------------------------------------------------------------

    def _key(self, item: ReviewItem) -> int:
        return item.caption_id

    def _clear(self) -> None:
        for label in (self.flags, self.others):
            label.setText("")
        self._set_decisions_enabled(False)

    def _fill(self, item: ReviewItem) -> None:
        self._set_decisions_enabled(True)
        self.editor.setText(item.text)
        self.info.setText(f"Pair {item.pair_id} · caption by {item.author or 'unknown'} · "
                          f"{item.status}")
        self.flags.setText(flag_line(item.flags))
        self.others.setText(
            "Other captions of this pair: "
            + "; ".join(f"“{c.text}” ({c.author}, {c.status})" for c in item.others)
            if item.others
            else ""
        )

    def _note(self, item: ReviewItem) -> str:
        return _state_text(item)

    def _outcome(self, record: Decided) -> str:
        return _outcome(record)

    def _set_decisions_enabled(self, enabled: bool) -> None:
        for name in ("accept", "reject"):
            self.buttons[name].setEnabled(enabled)

    # -- deciding and moving -----------------------------------------------------------

    def _ready(self) -> ReviewQueue | None:
        """The queue, when a caption is on screen and nothing is on its way."""
        if self.queue is None or self.item is None or self._moving:
            return None
        return self.queue

    def accept(self) -> None:
        queue = self._ready()
        if queue is None or self._refused("accept"):
            return
        self._go(queue.accept, self.editor.text(), done=self._decided)

    def ask_reason(self) -> None:
        if self._ready() is not None:
            self.reason.clear()
            self.reason.show()
            self.reason.setFocus()

    def _confirm_reject(self) -> None:
        queue, reason = self._ready(), self.reason.text()
        if queue is None:
            return
        if not reason.strip():
            self.state.setText(NO_REASON)  # the reason line stays open
            return
        self.reason.hide()
        if self._refused("reject"):
            return
        self._go(queue.reject, reason, done=self._decided)

    def _decided(self, decided: Decided) -> None:
        self._finished(decided, self.reviewed)

    def skip(self) -> None:
        queue, item = self._ready(), self.item
        if queue is None or item is None or self._refused("skip"):
            return
        self._go(queue.skip, done=lambda after: self._moved(
            after, f"Caption {item.caption_id} skipped."))

    def undo_last_decision(self) -> None:
        queue = self.queue
        if queue is None or self._moving or self._refused("undo_decision"):
            return

        def undone(item: ReviewItem | None) -> None:
            if item is None:
                self._moving = False
                self.state.setText(NO_DECISION)
                return
            self._show(item)
            self.state.setText(f"Decision undone: the caption is {item.status} again.")
            self.reviewed.emit()

        self._go(queue.undo_last_decision, done=undone)


def _outcome(decided: Decided) -> str:
    """What became of a decision, in one line."""
    done = DECIDED[decided.decision]
    if decided.waiting:
        return (f"Caption {decided.caption_id}: {done}; the decision waits on this computer "
                "and is sent when the server answers.")
    if decided.refused:
        return (f"Caption {decided.caption_id}: the server did not take the decision: "
                f"{decided.refused} Here is the next caption.")
    return f"Caption {decided.caption_id}: {done}."


def _state_text(item: ReviewItem) -> str:
    if item.status == "rejected":
        return f"Rejected by {item.reviewer or 'a reviewer'}: {item.reject_reason or ''}"
    if item.status == "accepted":
        return f"Accepted by {item.reviewer or 'a reviewer'}"
    return ""
