"""What the caption writer and the caption reviewer share, keyboard first.

A line about the current item, the prompt and a one-line caption editor, a reason line
that opens on demand (Enter confirms, Esc cancels), a state line, a row of buttons whose
keys also work while typing, and a hint listing the keys. The writer follows a work
queue (``CaptionWriter.bind``), the reviewer a review queue (``CaptionReviewer.bind``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from studio.captions.records import PROMPT
from widgets import actions
from widgets.elided_label import ElidedLabel


class CaptionForm(QWidget):
    """Base of ``CaptionWriter`` and ``CaptionReviewer``."""

    pair_changed = Signal(object)  # pair id or None

    def __init__(
        self,
        context: str,
        buttons: Sequence[tuple[str, str]],
        slots: dict[str, Callable[[], object]],
        hint: str,
        reason_prompt: str,
        parent: QWidget | None = None,
    ) -> None:
        """``slots`` by action name: the action ``{context}.{name}`` of the key map
        (widgets/actions.py) gives its keys; ``buttons`` are (action name, label) in order,
        each labelled with its key."""
        super().__init__(parent)
        self.info = ElidedLabel(mode=Qt.TextElideMode.ElideRight)
        self.prompt = QLabel(f"{PROMPT} …")
        self.prompt.setStyleSheet("font-size: 15px; color: #374151;")
        self.editor = QLineEdit()
        self.editor.setStyleSheet("font-size: 16px; padding: 6px;")
        self.details = QVBoxLayout()  # what a subclass shows under the editor
        self.details.setContentsMargins(0, 0, 0, 0)
        self.reason = QLineEdit()
        self.reason.setPlaceholderText(reason_prompt)
        self.reason.hide()
        self.state = ElidedLabel(mode=Qt.TextElideMode.ElideRight)
        self.state.setStyleSheet("color: #6b7280;")
        self.buttons: dict[str, QPushButton] = {}
        row = QHBoxLayout()
        for name, text in buttons:
            button = QPushButton(f"{text}  {actions.action(f'{context}.{name}').shown}")
            button.setToolTip(actions.tooltip(f"{context}.{name}", text))
            button.clicked.connect(lambda _=False, slot=slots[name]: slot())
            self.buttons[name] = button
            row.addWidget(button)
        for name, slot in slots.items():
            actions.bind(self, f"{context}.{name}", slot)
        hint_label = QLabel(hint)
        hint_label.setStyleSheet("color: #6b7280; font-size: 11px;")
        hint_label.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.info, self.prompt, self.editor):
            layout.addWidget(widget)
        layout.addLayout(self.details)
        layout.addWidget(self.reason)
        layout.addWidget(self.state)
        layout.addLayout(row)
        layout.addWidget(hint_label)
        actions.bind(self.reason, f"{context}.cancel_reason", self._cancel_reason)
        keys = [key for name in slots for key in actions.action(f"{context}.{name}").keys]
        passthrough = actions.KeyPassthrough(keys, self)
        self.editor.installEventFilter(passthrough)
        self.reason.installEventFilter(passthrough)

    # -- the reason line ---------------------------------------------------------------

    def _cancel_reason(self) -> None:
        self.reason.hide()
        self.editor.setFocus()
