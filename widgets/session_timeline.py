"""The session's turns, one row each: kind, reference, text, and the target's rank."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget

from studio.sessions.engine import SessionTurn


def describe_turn(turn: SessionTurn) -> str:
    head = f"Turn {turn.index} · {turn.kind}"
    if turn.reference_id:
        head += f" · ref {turn.reference_id}"
    body = turn.text if turn.question is None else f"Q: {turn.question}  A: {turn.answer}"
    top = ", ".join(hit.id for hit in turn.results[:3])
    rank = "" if turn.target_rank is None else f"  →  target rank {turn.target_rank}"
    wants = f"\n   wants: {turn.wants}" if turn.wants else ""
    if turn.note:
        wants += f"\n   note: {turn.note}"
    return f"{head}{rank}\n   “{body}”{wants}\n   top: {top}"


class SessionTimeline(QListWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setAlternatingRowColors(True)
        self.setToolTip("Every turn of this session, newest last")

    def show_turns(self, turns: Sequence[SessionTurn]) -> None:
        self.clear()
        for turn in turns:
            self.addItem(QListWidgetItem(describe_turn(turn)))
        self.scrollToBottom()

    def show_lines(self, lines: Sequence[str]) -> None:
        self.clear()
        for line in lines:
            self.addItem(QListWidgetItem(line))
