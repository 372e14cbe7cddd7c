"""Reopen recorded sessions: replay a session's timeline and save it as a transaction."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from studio.errors import StudioError
from studio.sessions.store import list_sessions, load_session, session_transaction
from studio.store import Project
from studio.wording import count
from widgets.session_timeline import SessionTimeline


def describe_recorded(turn: dict) -> str:
    text = turn["text"] if turn["question"] is None else f"Q: {turn['question']}  A: {turn['answer']}"
    rank = "" if turn["target_rank"] is None else f"  →  target rank {turn['target_rank']}"
    reference = f" · ref {turn['reference_id']}" if turn["reference_id"] else ""
    top = ", ".join(hit[0] for hit in turn["results"][:3])
    return f"Turn {turn['turn_index']} · {turn['kind']}{reference}{rank}\n   “{text}”\n   top: {top}"


class RecordedSessionsDialog(QDialog):
    def __init__(self, project: Project, actor: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.project = project
        self.actor = actor
        self.setWindowTitle("Recorded sessions")
        self.resize(900, 520)
        layout = QVBoxLayout(self)
        row = QHBoxLayout()
        self.sessions = QListWidget()
        self.sessions.setToolTip("Every recorded session of this project, newest first")
        self.timeline = SessionTimeline()
        row.addWidget(self.sessions, 1)
        row.addWidget(self.timeline, 2)
        layout.addLayout(row, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.save_button = QPushButton("Save as transaction")
        self.save_button.setToolTip("Store the selected composed session as a FashionMT-style "
                                    "transaction (dataset 'sessions') for rating")
        self.save_button.clicked.connect(self.save_selected)
        buttons.addButton(self.save_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        for row_data in list_sessions(project):
            when = row_data["created_at"][:16].replace("T", " ")
            item = QListWidgetItem(
                f"#{row_data['id']} · {row_data['mode']} · {row_data['strategy']} · "
                f"{count(row_data['turns'], 'turn')} · {when}"
            )
            item.setData(256, row_data["id"])
            self.sessions.addItem(item)
        # Wide enough for its longest line (the date included), whatever the dialog's size.
        frame = 2 * self.sessions.frameWidth() + self.sessions.verticalScrollBar().sizeHint().width()
        self.sessions.setMinimumWidth(self.sessions.sizeHintForColumn(0) + frame + 8)
        self.sessions.currentItemChanged.connect(lambda item, _old: self.replay(item))
        if self.sessions.count():
            self.sessions.setCurrentRow(0)

    def selected_id(self) -> int | None:
        item = self.sessions.currentItem()
        return None if item is None else int(item.data(256))

    def replay(self, item: QListWidgetItem | None) -> None:
        if item is None:
            return
        recorded = load_session(self.project, int(item.data(256)))
        self.timeline.show_lines([describe_recorded(turn) for turn in recorded.turns])
        self.save_button.setEnabled(recorded.mode == "composed")

    def save_selected(self) -> None:
        from studio.transactions.store import save_transactions

        session_id = self.selected_id()
        if session_id is None:
            return
        try:
            transaction = session_transaction(self.project, session_id)
            new, _ = save_transactions(self.project, [transaction], self.actor,
                                       "save session as transaction")
        except StudioError as error:
            QMessageBox.warning(self, "Cannot save this session", str(error))
            return
        self.save_button.setText("Saved" if new else "Already saved")
