"""The five criteria with their rubrics, scored from the keyboard.

Keys: 1–5 score the focused criterion and move to the next; Tab, Shift+Tab and the
arrow keys move between criteria; Enter saves and goes to the next item; S skips; F
flags. The form only emits what the rater did; the view saves it (autosave).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from studio.quality.criteria import CRITERIA, SCALE, SCALE_LABELS
from widgets import actions

_STYLE = """
QFrame#criterionRow { border-left: 3px solid transparent; border-radius: 3px; }
QFrame#criterionRow[current="true"] { background: #eef3ff; border-left: 3px solid #2f6fed; }
QPushButton#scoreButton { min-width: 30px; max-width: 30px; min-height: 26px; }
QPushButton#scoreButton:checked { background: #2f6fed; color: white; font-weight: 600; }
QLabel#rubric { color: #4b5563; }
"""


class CriterionRow(QFrame):
    """One criterion: name, rubric, and five score buttons that never take focus."""

    def __init__(self, index: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        criterion = CRITERIA[index]
        self.key = criterion.key
        self.setObjectName("criterionRow")
        layout = QGridLayout(self)
        layout.setContentsMargins(8, 2, 8, 2)
        # Name and rubric on one line (wrapping when narrow): five rows stay short enough for
        # the turn above them to fit a 1024×700 window.
        rubric = QLabel(f"<b>{criterion.name}</b> — {criterion.rubric}")
        rubric.setWordWrap(True)
        layout.addWidget(rubric, 0, 0)
        buttons = QHBoxLayout()
        self.group = QButtonGroup(self)
        for value in SCALE:
            button = QPushButton(str(value))
            button.setObjectName("scoreButton")
            button.setCheckable(True)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.setToolTip(f"{value} — {SCALE_LABELS[value]}")
            self.group.addButton(button, value)
            buttons.addWidget(button)
        layout.addLayout(buttons, 0, 1)
        layout.setColumnStretch(0, 1)

    def score(self) -> int | None:
        value = self.group.checkedId()
        return None if value < 0 else value

    def set_score(self, value: int | None) -> None:
        self.group.setExclusive(False)
        for button in self.group.buttons():
            button.setChecked(self.group.id(button) == value)
        self.group.setExclusive(True)

    def set_current(self, current: bool) -> None:
        self.setProperty("current", current)
        self.style().unpolish(self)
        self.style().polish(self)


class RatingForm(QWidget):
    score_changed = Signal(str, int)  # criterion key, score
    submit_requested = Signal()
    skip_requested = Signal()
    flag_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setStyleSheet(_STYLE)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.rows = [CriterionRow(i) for i in range(len(CRITERIA))]
        for row in self.rows:
            row.group.idClicked.connect(lambda value, r=row: self._clicked(r, value))
            layout.addWidget(row)
        hint = QLabel("1–5 score · Tab/arrows move · Enter save and next · S skip · F flag")
        hint.setObjectName("rubric")
        layout.addWidget(hint)
        self.current = 0
        self.set_current(0)
        self._keys = self._key_map()

    # -- state -----------------------------------------------------------------------

    def scores(self) -> dict[str, int | None]:
        return {row.key: row.score() for row in self.rows}

    def set_scores(self, scores: dict[str, int | None]) -> None:
        """Show the rater's saved scores and focus the first unscored criterion."""
        for row in self.rows:
            row.set_score(scores.get(row.key))
        empty = [i for i, row in enumerate(self.rows) if row.score() is None]
        self.set_current(empty[0] if empty else 0)

    def set_current(self, index: int) -> None:
        self.current = max(0, min(len(self.rows) - 1, index))
        for i, row in enumerate(self.rows):
            row.set_current(i == self.current)

    def current_key(self) -> str:
        return self.rows[self.current].key

    # -- input -----------------------------------------------------------------------

    def _clicked(self, row: CriterionRow, value: int) -> None:
        self.set_current(self.rows.index(row))
        self.score_changed.emit(row.key, value)
        self.setFocus()

    def score_current(self, value: int) -> None:
        row = self.rows[self.current]
        row.set_score(value)
        self.score_changed.emit(row.key, value)
        self.set_current(self.current + 1)

    def _key_map(self) -> actions.KeyMap:
        slots: dict[str, Callable[[], object]] = {
            f"quality.rating.score.{value}": lambda v=value: self.score_current(v)
            for value in range(1, 6)
        }
        return actions.KeyMap({
            **slots,
            "quality.rating.next_criterion": lambda: self.set_current(self.current + 1),
            "quality.rating.previous_criterion": lambda: self.set_current(self.current - 1),
            "quality.rating.save": self.submit_requested.emit,
            "quality.rating.skip": self.skip_requested.emit,
            "quality.rating.flag": self.flag_requested.emit,
        })

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt name)
        """The keys of ``quality.rating`` in the key map (widgets/actions.py)."""
        if not self._keys.handle(event):
            super().keyPressEvent(event)

    def focusNextPrevChild(self, next: bool) -> bool:  # noqa: N802, A002 (Qt names)
        """Tab moves between criteria while the form has focus; past the ends it leaves."""
        if self.hasFocus():
            target = self.current + (1 if next else -1)
            if 0 <= target < len(self.rows):
                self.set_current(target)
                return True
        return super().focusNextPrevChild(next)
