"""Reviewing captions one at a time, keyboard first, bound to a ``ReviewSession``.

The caption is editable: accepting after an edit keeps the old text in the audit log.
Automatic flags are listed with their reasons. Keys: Ctrl+Enter accept, Ctrl+R reject
(type the reason, Enter), Alt+Left/Right or PgUp/PgDn previous/next, Ctrl+K skip.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from studio.captions.records import PROMPT
from studio.captions.session import ReviewSession
from studio.errors import StudioError
from widgets.shortcuts import KeyPassthrough, add_shortcuts

KEYS = {
    "accept": ("Ctrl+Return", "Ctrl+Enter"),
    "reject": ("Ctrl+R",),
    "previous": ("Alt+Left", "PgUp"),
    "next": ("Alt+Right", "PgDown"),
    "skip": ("Ctrl+K",),
}
HINT = (
    "Ctrl+Enter accept (with your edits) · Ctrl+R reject with a reason · "
    "Alt+←/→ or PgUp/PgDn previous/next · Ctrl+K skip"
)


class CaptionReviewer(QWidget):
    pair_changed = Signal(object)  # pair id or None
    reviewed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session: ReviewSession | None = None
        self.info = QLabel()
        self.prompt = prompt = QLabel(f"{PROMPT} …")
        prompt.setStyleSheet("font-size: 15px; color: #374151;")
        self.editor = QLineEdit()
        self.editor.setStyleSheet("font-size: 16px; padding: 6px;")
        self.flags = QLabel()
        self.flags.setWordWrap(True)
        self.flags.setStyleSheet("color: #b45309;")
        self.others = QLabel()
        self.others.setWordWrap(True)
        self.others.setStyleSheet("color: #4b5563;")
        self.reason = QLineEdit()
        self.reason.setPlaceholderText("Why is it rejected? Enter rejects, Esc cancels")
        self.reason.returnPressed.connect(self._confirm_reject)
        self.reason.hide()
        self.state = QLabel()
        self.state.setStyleSheet("color: #6b7280;")
        self.buttons: dict[str, QPushButton] = {}
        row = QHBoxLayout()
        for name, text in (
            ("previous", "◀ Previous  Alt+←"),
            ("next", "Next ▶  Alt+→"),
            ("skip", "Skip  Ctrl+K"),
            ("reject", "Reject…  Ctrl+R"),
            ("accept", "Accept  Ctrl+Enter"),
        ):
            self.buttons[name] = QPushButton(text)
            self.buttons[name].setToolTip(f"{text.split('  ')[0]} ({', '.join(KEYS[name])})")
            row.addWidget(self.buttons[name])
        hint = QLabel(HINT)
        hint.setStyleSheet("color: #6b7280; font-size: 11px;")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (
            self.info,
            prompt,
            self.editor,
            self.flags,
            self.others,
            self.reason,
            self.state,
        ):
            layout.addWidget(widget)
        layout.addLayout(row)
        layout.addWidget(hint)
        actions = {
            "accept": self.accept,
            "reject": self.ask_reason,
            "previous": lambda: self.step(False),
            "next": lambda: self.step(True),
            "skip": self.skip,
        }
        for name, slot in actions.items():
            self.buttons[name].clicked.connect(lambda _=False, s=slot: s())
            add_shortcuts(self, KEYS[name], slot)
        add_shortcuts(self.reason, ("Esc",), self._cancel_reject)
        passthrough = KeyPassthrough([k for keys in KEYS.values() for k in keys], self)
        self.editor.installEventFilter(passthrough)
        self.reason.installEventFilter(passthrough)

    def bind(self, session: ReviewSession | None) -> None:
        if self.session is not None:
            self.session.changed.disconnect(self._show_caption)
        self.session = session
        if session is not None:
            session.changed.connect(self._show_caption)
            session.start()

    def _show_caption(self, caption_id: int | None) -> None:
        self.reason.hide()
        caption = self.session.caption() if self.session and caption_id is not None else None
        if caption is None:
            self.info.setText("Nothing to review: every submitted caption has been reviewed.")
            for label in (self.flags, self.others, self.state):
                label.setText("")
            self.editor.clear()
            self.editor.setEnabled(False)
            self.pair_changed.emit(None)
            return
        self.editor.setEnabled(True)
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

    def accept(self) -> None:
        self._decide(lambda s: s.accept(self.editor.text()))

    def ask_reason(self) -> None:
        if self.session is not None and self.session.current is not None:
            self.reason.clear()
            self.reason.show()
            self.reason.setFocus()

    def _confirm_reject(self) -> None:
        self._decide(lambda s: s.reject(self.reason.text()))

    def _cancel_reject(self) -> None:
        self.reason.hide()
        self.editor.setFocus()

    def _decide(self, action) -> None:
        if self.session is None or self.session.current is None:
            return
        try:
            action(self.session)
        except StudioError as error:
            self.state.setText(str(error))
            return
        self.reviewed.emit()

    def step(self, forward: bool) -> None:
        if self.session is not None:
            self.session.step(forward)

    def skip(self) -> None:
        if self.session is not None:
            self.session.skip()
