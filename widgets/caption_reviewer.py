"""Reviewing captions one at a time, keyboard first, bound to a ``ReviewSession``.

The caption is editable: accepting after an edit keeps the old text in the audit log.
Automatic flags are listed with their reasons. Keys: Ctrl+Enter accept, Ctrl+R reject
(type the reason, Enter), Alt+Left/Right or PgUp/PgDn previous/next, Ctrl+K skip,
Ctrl+Alt+Z undo the last accept or reject (the same key undoes the last save in writing).
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QWidget

from studio.captions.writing_and_review import ReviewSession
from studio.errors import StudioError
from studio.wording import count
from widgets.caption_form import CaptionForm

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
    reviewed = Signal()

    session: ReviewSession | None

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

    def _show(self, caption_id: int | None) -> None:
        self.reason.hide()
        caption = self.session.caption() if self.session and caption_id is not None else None
        if caption is None:
            self.info.setText(self._nothing_to_review())
            for label in (self.flags, self.others, self.state):
                label.setText("")
            self.editor.clear()
            self.editor.setEnabled(False)
            self._set_decisions_enabled(False)
            self.pair_changed.emit(None)
            return
        self.editor.setEnabled(True)
        self._set_decisions_enabled(True)
        self.editor.setText(caption.text)
        self.info.setText(
            f"Pair {caption.pair_id} · caption by {caption.author or 'unknown'} · {caption.status}"
        )
        flags = self.session.flags()
        self.flags.setText("\n".join(f"⚑ {flag.reason}" for flag in flags))
        others = self.session.others()
        self.others.setText(
            "Other captions of this pair: "
            + "; ".join(f"“{c.text}” ({c.author}, {c.status})" for c in others)
            if others
            else ""
        )
        if caption.status == "rejected":
            self.state.setText(f"Rejected by {caption.reviewer}: {caption.reject_reason}")
        elif caption.status == "accepted":
            self.state.setText(f"Accepted by {caption.reviewer}")
        else:
            self.state.setText("")
        self.editor.setFocus()
        self.pair_changed.emit(caption.pair_id)

    def _nothing_to_review(self) -> str:
        own = self.session.own_waiting() if self.session is not None else 0
        if own:
            return (
                f"Nothing for you to review: the {count(own, 'caption')} waiting for review are "
                "your own, and someone else must review them."
                if own != 1
                else "Nothing for you to review: the caption waiting for review is your own, "
                "and someone else must review it."
            )
        return "Nothing to review: every submitted caption has been reviewed."

    def _set_decisions_enabled(self, enabled: bool) -> None:
        for name in ("accept", "reject"):
            self.buttons[name].setEnabled(enabled)

    def accept(self) -> None:
        self._decide(lambda s: s.accept(self.editor.text()))

    def _confirm_reject(self) -> None:
        self._decide(lambda s: s.reject(self.reason.text()))

    def undo_last_decision(self) -> None:
        if self.session is None:
            return
        try:
            caption = self.session.undo_last_decision()
        except StudioError as error:
            self.state.setText(str(error))
            return
        if caption is None:
            self.state.setText("No accept or reject in this session to undo.")
            return
        self.state.setText(f"Decision undone: the caption is {caption.status} again.")
        self.reviewed.emit()

    def _decide(self, action) -> None:
        if self.session is None or self.session.current is None:
            return
        try:
            action(self.session)
        except StudioError as error:
            self.state.setText(str(error))
            return
        self.reviewed.emit()
