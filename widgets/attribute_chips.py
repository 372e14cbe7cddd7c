"""An image's attributes as chips grouped by type; one chip is the keyboard's cursor.

Suggested chips are outlined, accepted ones filled green, rejected ones struck through in
red, so the state of a whole image reads at a glance; the tooltip says which source said
so and how sure it was.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QGridLayout, QLabel, QPushButton, QWidget

from studio.attributes.records import ATTRIBUTE_TYPES, AttributeState
from widgets.flow_layout import FlowLayout

STATUS_STYLE = {
    "suggested": "background: #ffffff; color: #1f2937; border: 1px dashed #6b7280;",
    "accepted": "background: #d1fae5; color: #065f46; border: 1px solid #059669;",
    "rejected": "background: #fee2e2; color: #991b1b; border: 1px solid #fca5a5;"
    " text-decoration: line-through;",
}
CURRENT_STYLE = "border: 2px solid #2f6fed;"
STATUS_MARK = {"suggested": "?", "accepted": "✓", "rejected": "✗"}


def evidence_text(state: AttributeState) -> str:
    lines = [f"{state.attribute} ({state.type}) — {state.status}"]
    for source, model, confidence in state.evidence:
        who = f"{source}: {model}" if model else source
        sure = "" if confidence is None else f", confidence {confidence:.2f}"
        lines.append(f"{who}{sure}")
    return "\n".join(lines)


def chip_text(state: AttributeState) -> str:
    """Mark and name; a suggestion only a model made also shows how sure the model was."""
    text = f"{STATUS_MARK[state.status]} {state.attribute}"
    sources = {source for source, _, _ in state.evidence}
    if sources == {"model"} and state.best_confidence is not None:
        text += f" · {state.best_confidence:.2f}"
    return text


class AttributeChip(QPushButton):
    def __init__(self, state: AttributeState, parent: QWidget | None = None) -> None:
        super().__init__(chip_text(state), parent)
        self.state = state
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setToolTip(evidence_text(state))
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.set_current(False)

    def set_current(self, current: bool) -> None:
        style = STATUS_STYLE[self.state.status] + (CURRENT_STYLE if current else "")
        self.setStyleSheet(f"QPushButton {{ {style} border-radius: 10px; padding: 3px 9px; }}")


class AttributeChips(QWidget):
    """Chips in one row per type, in vocabulary type order; clicking a chip selects it."""

    current_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._grid = QGridLayout(self)
        self._grid.setColumnStretch(1, 1)
        self.chips: list[AttributeChip] = []
        self.current = -1

    def set_states(self, states: list[AttributeState], keep: str | None = None) -> None:
        """Show ``states``; the chip named ``keep`` stays current when it is still there."""
        while self._grid.count():
            item = self._grid.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.hide()  # at once: deletion waits for the event loop
                widget.deleteLater()
        self.chips = []
        order = {t: i for i, t in enumerate(ATTRIBUTE_TYPES)}
        ordered = sorted(states, key=lambda s: (order[s.type], s.attribute))
        for row, type_ in enumerate(t for t in ATTRIBUTE_TYPES if any(s.type == t for s in states)):
            label = QLabel(type_)
            label.setStyleSheet("color: #6b7280; font-weight: 600;")
            self._grid.addWidget(label, row, 0, Qt.AlignmentFlag.AlignTop)
            holder = QWidget()
            flow = FlowLayout(holder)
            for state in (s for s in ordered if s.type == type_):
                chip = AttributeChip(state, holder)
                chip.clicked.connect(lambda _=False, c=chip: self.select(self.chips.index(c)))
                flow.addWidget(chip)
                self.chips.append(chip)
            self._grid.addWidget(holder, row, 1)
        rows = self._grid.rowCount()
        for row in range(rows):
            self._grid.setRowStretch(row, 0)
        self._grid.setRowStretch(rows, 1)  # rows sit at the top, the space below
        names = [c.state.attribute for c in self.chips]
        self.current = -1
        if self.chips:
            self.select(names.index(keep) if keep in names else 0)

    def select(self, index: int) -> None:
        if not self.chips:
            return
        index = max(0, min(index, len(self.chips) - 1))
        for i, chip in enumerate(self.chips):
            chip.set_current(i == index)
        self.current = index
        self.current_changed.emit(self.chips[index].state.attribute)

    def step(self, delta: int) -> None:
        if self.chips:
            self.select((self.current + delta) % len(self.chips))

    def current_name(self) -> str | None:
        return self.chips[self.current].state.attribute if 0 <= self.current < len(self.chips) else None

    def next_undecided_after(self, name: str) -> str | None:
        """The first suggested chip after ``name`` (wrapping), for review-and-advance."""
        names = [c.state.attribute for c in self.chips]
        start = names.index(name) if name in names else -1
        for step in range(1, len(names) + 1):
            chip = self.chips[(start + step) % len(names)]
            if chip.state.status == "suggested":
                return chip.state.attribute
        return None

    def names(self, status: str | None = None) -> list[str]:
        return [c.state.attribute for c in self.chips if status in (None, c.state.status)]
