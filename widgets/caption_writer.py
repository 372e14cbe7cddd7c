"""Writing one relative caption, keyboard first, bound to a ``WritingSession``.

Every edit is saved as a draft after a short pause (and at once when leaving the pair),
so nothing typed is lost on a crash. Keys: Ctrl+Enter save and next, Alt+Left/Right or
PgUp/PgDn previous/next, Ctrl+K skip, Ctrl+F flag (a reason, then Enter), Ctrl+Z undo
typing, Ctrl+Shift+Z undo the last saved caption.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from studio.captions.records import PROMPT
from studio.captions.session import WritingSession
from studio.captions.store import captions_for_pair
from studio.errors import StudioError
from widgets.shortcuts import KeyPassthrough, add_shortcuts

AUTOSAVE_MS = 400
KEYS = {
    "save": ("Ctrl+Return", "Ctrl+Enter"),
    "previous": ("Alt+Left", "PgUp"),
    "next": ("Alt+Right", "PgDown"),
    "skip": ("Ctrl+K",),
    "flag": ("Ctrl+F",),
    "undo_save": ("Ctrl+Shift+Z",),
}
HINT = (
    "Ctrl+Enter save and next · Alt+←/→ or PgUp/PgDn previous/next · Ctrl+K skip · "
    "Ctrl+F flag · Ctrl+Z undo typing · Ctrl+Shift+Z undo last save"
)


class CaptionWriter(QWidget):
    pair_changed = Signal(object)  # pair id or None
    saved = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session: WritingSession | None = None
        self.info = QLabel()
        self.prompt = prompt = QLabel(f"{PROMPT} …")
        prompt.setStyleSheet("font-size: 15px; color: #374151;")
        self.editor = QLineEdit()
        self.editor.setPlaceholderText("is red with longer sleeves")
        self.editor.setStyleSheet("font-size: 16px; padding: 6px;")
        self.editor.textEdited.connect(self._on_edited)
        self.reason = QLineEdit()
        self.reason.setPlaceholderText("What is wrong with this pair? Enter flags it, Esc cancels")
        self.reason.returnPressed.connect(self._confirm_flag)
        self.reason.hide()
        self.state = QLabel()
        self.state.setStyleSheet("color: #6b7280;")
        self.buttons: dict[str, QPushButton] = {}
        row = QHBoxLayout()
        for name, text in (
            ("previous", "◀ Previous  Alt+←"),
            ("next", "Next ▶  Alt+→"),
            ("skip", "Skip  Ctrl+K"),
            ("flag", "Flag…  Ctrl+F"),
            ("undo_save", "Undo last save  Ctrl+Shift+Z"),
            ("save", "Save and next  Ctrl+Enter"),
        ):
            button = QPushButton(text)
            button.setToolTip(f"{text.split('  ')[0]} ({', '.join(KEYS[name])})")
            self.buttons[name] = button
            row.addWidget(button)
        self.buttons["save"].setDefault(True)
        hint = QLabel(HINT)
        hint.setStyleSheet("color: #6b7280; font-size: 11px;")
        hint.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.info, prompt, self.editor, self.reason, self.state):
            layout.addWidget(widget)
        layout.addLayout(row)
        layout.addWidget(hint)
        actions = {
            "save": self.save_and_next,
            "previous": lambda: self.step(False),
            "next": lambda: self.step(True),
            "skip": self.skip,
            "flag": self.ask_flag_reason,
            "undo_save": self.undo_last_save,
        }
        for name, slot in actions.items():
            self.buttons[name].clicked.connect(lambda _=False, s=slot: s())
            add_shortcuts(self, KEYS[name], slot)
        add_shortcuts(self.reason, ("Esc",), self._cancel_flag)
        passthrough = KeyPassthrough([k for keys in KEYS.values() for k in keys], self)
        self.editor.installEventFilter(passthrough)
        self.reason.installEventFilter(passthrough)
        self._autosave = QTimer(self, singleShot=True, interval=AUTOSAVE_MS)
        self._autosave.timeout.connect(self.flush)

    # -- binding -----------------------------------------------------------------------

    def bind(self, session: WritingSession | None) -> None:
        self.flush()
        if self.session is not None:
            self.session.changed.disconnect(self._show_pair)
        self.session = session
        if session is not None:
            session.changed.connect(self._show_pair)
            session.start()

    def _show_pair(self, pair_id: int | None) -> None:
        session = self.session
        self.reason.hide()
        if session is None or pair_id is None:
            self.info.setText("All done: no pair needs a caption from you right now.")
            self.editor.clear()
            self.editor.setEnabled(False)
            self.state.setText("")
            self.pair_changed.emit(None)
            return
        self.editor.setEnabled(True)
        captions = captions_for_pair(session.project, pair_id)
        live = sum(c.is_live for c in captions)
        self.info.setText(f"Pair {pair_id} · {live} of {session.policy.per_pair} captions written")
        own = session.own_caption()
        self.editor.setText(own.text if own else "")
        self.editor.setReadOnly(own is not None and own.status == "accepted")
        rejected = [c for c in captions if c.author == session.author and c.status == "rejected"]
        self.state.setText(_state_text(own, rejected))
        self.editor.setFocus()
        self.pair_changed.emit(pair_id)

    # -- actions -----------------------------------------------------------------------

    def _on_edited(self, _text: str) -> None:
        self._autosave.start()

    def flush(self) -> None:
        """Save what is typed now (called on pause, before leaving a pair, on close)."""
        self._autosave.stop()
        if self.session is None or self.session.current is None or self.editor.isReadOnly():
            return
        try:
            caption = self.session.autosave(self.editor.text())
        except StudioError as error:
            self.state.setText(str(error))
            return
        except sqlite3.OperationalError:  # a long import holds the write lock: try again
            self.state.setText("The project is busy; your text will be saved in a moment.")
            self._autosave.start()
            return
        if caption is not None and caption.status == "draft":
            self.state.setText(f"Draft saved {datetime.now():%H:%M:%S}")

    def save_and_next(self) -> None:
        if self.session is None or self.session.current is None:
            return
        self._autosave.stop()
        try:
            self.session.save_and_next(self.editor.text())
        except StudioError as error:
            self.flush()
            self.state.setText(str(error))
            return
        self.saved.emit()

    def step(self, forward: bool) -> None:
        if self.session is not None:
            self.flush()
            self.session.step(forward)

    def skip(self) -> None:
        if self.session is not None:
            self.flush()
            self.session.skip()

    def ask_flag_reason(self) -> None:
        if self.session is not None and self.session.current is not None:
            self.reason.clear()
            self.reason.show()
            self.reason.setFocus()

    def _confirm_flag(self) -> None:
        if self.session is not None:
            self.flush()
            self.reason.hide()
            self.session.flag(self.reason.text().strip())

    def _cancel_flag(self) -> None:
        self.reason.hide()
        self.editor.setFocus()

    def undo_last_save(self) -> None:
        if self.session is None:
            return
        self.flush()
        try:
            caption = self.session.undo_last_save()
        except StudioError as error:
            self.state.setText(str(error))
            return
        if caption is None:
            self.state.setText("Nothing saved in this session to undo.")
        else:
            self.state.setText("Last save undone: the caption is a draft again.")
            self.saved.emit()


def _state_text(own, rejected) -> str:
    if own is None:
        note = ""
    elif own.status == "draft":
        note = "Draft (saved as you type)"
    elif own.status == "submitted":
        note = "Submitted; edits are saved and kept in the history"
    else:
        note = (
            f"{own.status.capitalize()} by {own.reviewer or 'a reviewer'}; it can no longer change"
        )
    if rejected:
        last = rejected[-1]
        note += (
            f"{' · ' if note else ''}Your earlier caption “{last.text}” was rejected: "
            f"{last.reject_reason}"
        )
    return note
