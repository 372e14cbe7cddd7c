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
answers again. A team caption's lease is renewed while it is on screen (``LeaseKeeper``,
through ``queue.hold()``).
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
    ReviewAction,
    ReviewItem,
    ReviewQueue,
    flag_line,
)
from widgets.caption_form import CaptionForm
from widgets.queue_calls import CallLine, QueueCalls
from widgets.team_lease import LeaseKeeper

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


class CaptionReviewer(CaptionForm):
    reviewed = Signal()  # a decision was made or taken back
    item_changed = Signal(object)  # the ReviewItem on screen, or None

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
        self.calls: QueueCalls | None = None
        self.item: ReviewItem | None = None  # the caption on screen
        self.lease = LeaseKeeper(None, self.refresh, self, hold=self._hold)
        self._line = CallLine()  # the queue's calls, one at a time on its lane
        self._moving = False  # a decision, skip or step is on its way
        self._unsent: tuple[Decided, str] | None = None  # a decision that waits, its line
        self._checking = False
        self.editor.setEnabled(False)
        self._set_decisions_enabled(False)

    # -- the queue ---------------------------------------------------------------------

    @property
    def caption_id(self) -> int | None:
        """The caption on screen."""
        return None if self.item is None else self.item.caption_id

    def settled(self) -> bool:
        """No call to the queue is running or waiting (what is shown is its last answer)."""
        return self._line.settled()

    def bind(self, queue: ReviewQueue | None, calls: QueueCalls | None = None) -> None:
        """Review this queue from now on (None: nothing); its first caption is asked for."""
        self.lease.stop()
        self.queue, self.calls = queue, calls
        self._line.reset(calls)
        self._moving = self._checking = False
        self._unsent = None
        self._show(None, say="" if queue is None else "Asking for the next caption to review…")
        if queue is not None and self.isVisible():
            self.refresh()  # else when it shows: a hidden reviewer holds no lease

    def _call(self, function: Callable[..., Any], *args: Any, done: Callable[[Any], Any],
              failed: Callable[[BaseException], Any] | None = None) -> None:
        """Run ``function(*args)`` on the queue's lane after the calls before it."""
        self._line.add(function, *args, done=done, failed=failed or self._failed)

    def _failed(self, error: BaseException) -> None:
        self._moving = False
        if self.item is not None:
            self.editor.setEnabled(True)
        if isinstance(error, StudioError):
            self.state.setText(str(error))
            return
        self.state.setText(f"The review queue failed ({error}).")
        raise error  # unexpected: Qt hands it to the error reporter's hook

    def refresh(self) -> None:
        """Ask the queue for the caption held, or the next."""
        queue, calls = self.queue, self.calls
        if queue is None:
            return
        if (self.item is None and calls is not None and calls.first_at_once
                and self.settled()):
            try:
                item = calls.run_now(queue.take_next)
            except StudioError as error:
                self._failed(error)
                return
            self._took(item)
            return
        self._call(queue.take_next, done=self._took)

    def run(self, function: Callable[..., Any], *args: Any) -> None:
        """Call the queue (another order, a re-read) and show the caption it answers."""
        self._call(function, *args, done=lambda item: self._show(item))

    def reread(self) -> None:
        """Show the caption on screen as it is now (its flags after a threshold change)."""
        if self.queue is not None:
            self.run(self.queue.hold)

    def _took(self, item: ReviewItem | None) -> None:
        if item is not None and self.item is not None and item.caption_id == self.item.caption_id:
            self.item = item  # asked again: the lease, not the text being edited, is news
            self.lease.keep(item)
            return
        self._show(item, keep_line=self.item is None)

    def _hold(self, renewed: Callable[[float | None], Any],
              failed: Callable[[BaseException], Any]) -> None:
        """The lease keeper's renewal: ``queue.hold()`` on the queue's lane."""
        queue = self.queue
        if queue is None:
            return

        def held(item: ReviewItem | None) -> None:
            if item is not None and self.item is not None and item.caption_id == self.item.caption_id:
                self.item = item
                renewed(item.expires_at)
            else:  # the lease ended and the server holds another caption (or none)
                self._show(item)

        self._call(queue.hold, done=held, failed=failed)

    # -- showing -----------------------------------------------------------------------

    def _show(self, item: ReviewItem | None, keep_line: bool = False,
              say: str | None = None) -> None:
        self.item = item
        self.reason.hide()
        self.lease.keep(item)
        self._moving = False
        if item is None:
            queue = self.queue
            why = queue.can("next") if queue is not None else None
            self.info.setText(say if say is not None else why or ALL_REVIEWED)
            for label in (self.flags, self.others):
                label.setText("")
            if not keep_line:
                self.state.setText("")
            self.editor.clear()
            self.editor.setEnabled(False)
            self._set_decisions_enabled(False)
            self.pair_changed.emit(None)
            self.item_changed.emit(None)
            return
        self.editor.setEnabled(True)
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
        note = _state_text(item)
        if note or not keep_line:
            self.state.setText(note)
        self.editor.setFocus()
        self.pair_changed.emit(item.pair_id)
        self.item_changed.emit(item)

    def show_again(self) -> None:
        """Redraw the caption's pair (the pane's shared pictures)."""
        self.pair_changed.emit(None if self.item is None else self.item.pair_id)

    def _set_decisions_enabled(self, enabled: bool) -> None:
        for name in ("accept", "reject"):
            self.buttons[name].setEnabled(enabled)

    # -- deciding and moving -----------------------------------------------------------

    def _refused(self, action: ReviewAction) -> bool:
        """Say in one line why the queue cannot do ``action`` now."""
        why = self.queue.can(action) if self.queue is not None else None
        if why is not None:
            self.state.setText(why)
        return why is not None

    def _ready(self) -> ReviewQueue | None:
        """The queue, when a caption is on screen and nothing is on its way."""
        if self.queue is None or self.item is None or self._moving:
            return None
        return self.queue

    def _go(self, function: Callable[..., Any], *args: Any, done: Callable[[Any], Any],
            failed: Callable[[BaseException], Any] | None = None) -> None:
        self._moving = True
        self.editor.setEnabled(False)
        self._call(function, *args, done=done, failed=failed or self._not_done)

    def _not_done(self, error: BaseException) -> None:
        """Refused at once (no reason, someone decided it first): the caption stays."""
        self._moving = False
        if self.item is not None:
            self.editor.setEnabled(True)
            self.editor.setFocus()
        self._failed(error)

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
        line = _outcome(decided)
        if decided.waiting:
            self._unsent = (decided, line)
        self.reviewed.emit()
        self._moved(self.queue.current if self.queue is not None else None, line)

    def _moved(self, item: ReviewItem | None, line: str) -> None:
        self._show(item)
        note = self.state.text()
        self.state.setText(line + (f" · {note}" if note else ""))

    def step(self, forward: bool) -> None:
        queue = self.queue
        if queue is None or self._moving or self._refused("previous"):
            return
        before = self.caption_id

        def stepped(item: ReviewItem | None) -> None:
            if item is None or item.caption_id != before:
                self._show(item)
                return
            self._moving = False
            self.editor.setEnabled(True)
            self._refused("previous")  # it could not ask: say why

        self._go(queue.step, forward, done=stepped)

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

    # -- the server answers again ------------------------------------------------------

    def check_waiting(self) -> None:
        """The server answered again: a decision that waited says the server's answer
        instead, unless something newer was said meanwhile."""
        unsent, queue = self._unsent, self.queue
        if unsent is None or queue is None or self._checking or queue.can("previous"):
            return
        self._checking = True

        def learnt(decided: Decided) -> None:
            self._checking = False
            if self._unsent is not unsent or decided.waiting:
                return
            self._unsent = None
            if self.state.text().startswith(unsent[1]):
                self.state.setText(_outcome(decided))

        def not_learnt(_error: BaseException) -> None:
            self._checking = False

        self._call(queue.outcome, unsent[0], done=learnt, failed=not_learnt)

    def idle_refresh(self) -> None:
        """New captions, or the server answers again: with none on screen, ask for one."""
        if self.item is None and self.isVisible() and not self._moving:
            self.refresh()

    # -- on screen or not --------------------------------------------------------------

    def showEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """Shown again: ask what is held (a team server renews that lease, or hands the
        next caption if it ended meanwhile)."""
        super().showEvent(event)
        if self.queue is not None and not self._moving:
            self.refresh()

    def hideEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """Out of sight: the lease is no longer renewed."""
        self.lease.pause()
        super().hideEvent(event)


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
