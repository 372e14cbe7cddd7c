"""The Retrieval session's right side: the chat question and its answer chips, the turn's
text with Go back… and Keep…, the status line, and the results (or a hint before the
first turn).

The panel shows; the pane decides. Go back… and Keep… only put a phrase ("I still prefer
the item from turn 2, and …") in front of the text; the turn is run by the pane.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from studio.sessions.controller import COMPOSED_PROMPT, RetrievalController
from studio.sessions.questioner import Question
from widgets import actions
from widgets.result_grid import ResultGrid

if TYPE_CHECKING:
    from widgets.thumbnail_cache import ThumbnailCache

FIRST_TURN_HINT = ("No results yet. Type how the item you want differs from the reference "
                   "and press Enter; pick a result (Alt+1 … Alt+9) to carry it forward.")
FIRST_CHAT_HINT = ("No results yet. Describe what you look for and press Enter; the "
                   "system then asks about what would narrow the results down.")


class TurnPanel(QWidget):
    def __init__(
        self,
        thumbnails: ThumbnailCache,
        path_of: Callable[[str], Path | None],
        controller: Callable[[], RetrievalController | None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._controller = controller  # the pane's current one (None: no index loaded)
        layout = QVBoxLayout(self)
        self.question_label = QLabel("")
        self.question_label.setObjectName("paneHeading")
        self.question_label.setWordWrap(True)
        layout.addWidget(self.question_label)
        self.chips_row = QHBoxLayout()
        layout.addLayout(self.chips_row)
        # The prompt sits above the field, so the field keeps its width at 1024 px.
        self.prompt = QLabel(COMPOSED_PROMPT)
        layout.addWidget(self.prompt)
        text_row = QHBoxLayout()
        self.text = QLineEdit()
        self.text.setPlaceholderText("is red with longer sleeves   (Enter to search)")
        text_row.addWidget(self.text, 1)
        self.rollback_button = QPushButton("Go back…")
        self.rollback_button.setToolTip(actions.tooltip(
            "retrieval.rollback", "Make an earlier turn's item the reference again"))
        self.rollback_button.clicked.connect(self.show_rollback_menu)
        self.combine_button = QPushButton("Keep…")
        self.combine_button.setToolTip(actions.tooltip(
            "retrieval.combine", "Keep a facet (colour, sleeves …) of an earlier turn"))
        self.combine_button.clicked.connect(self.show_combine_menu)
        text_row.addWidget(self.rollback_button)
        text_row.addWidget(self.combine_button)
        layout.addLayout(text_row)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self.results = ResultGrid(thumbnails, path_of)
        self.first_turn_hint = QLabel(FIRST_TURN_HINT)
        self.first_turn_hint.setObjectName("emptyStateDetail")
        self.first_turn_hint.setWordWrap(True)
        self.first_turn_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.result_stack = QStackedWidget()
        self.result_stack.addWidget(self.first_turn_hint)
        self.result_stack.addWidget(self.results)
        layout.addWidget(self.result_stack, 1)

    def start_over(self, chat: bool) -> None:
        """A new session: no results yet, the hint for its mode."""
        self.results.clear()
        self.first_turn_hint.setText(FIRST_CHAT_HINT if chat else FIRST_TURN_HINT)
        self.result_stack.setCurrentWidget(self.first_turn_hint)

    def set_chips_enabled(self, enabled: bool) -> None:
        for index in range(self.chips_row.count()):
            chip = self.chips_row.itemAt(index).widget()
            if chip is not None:
                chip.setEnabled(enabled)

    def show_question(self, question: Question | None, answer: Callable[[str], None]) -> None:
        """The chat's question and up to six answer chips; ``answer`` runs on a click."""
        while self.chips_row.count():
            item = self.chips_row.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        self.question_label.setText(question.text if question else "")
        if question is None:
            return
        for option in question.options[:6]:
            chip = QPushButton(option)
            chip.setToolTip("Answer with this")
            chip.clicked.connect(lambda _=False, o=option: answer(o))
            self.chips_row.addWidget(chip)
        self.chips_row.addStretch(1)

    # -- rollback and combination ----------------------------------------------------

    def show_rollback_menu(self) -> None:
        self._show_menu(self._rollback_menu())

    def show_combine_menu(self) -> None:
        self._show_menu(self._combine_menu())

    def _rollback_menu(self) -> QMenu:
        menu = QMenu(self)
        controller = self._controller()
        choices = controller.rollback_choices() if controller else []
        self._add_phrases(menu, choices)
        if not choices:
            menu.addAction("No earlier turns yet").setEnabled(False)
        return menu

    def _combine_menu(self) -> QMenu:
        menu = QMenu(self)
        controller = self._controller()
        choices = controller.keep_choices() if controller else []
        for index, facets in choices:
            self._add_phrases(menu.addMenu(f"From turn {index}"), facets)
        if not choices:
            menu.addAction("No earlier turns yet").setEnabled(False)
        return menu

    def _add_phrases(self, menu: QMenu, choices: list[tuple[str, str]]) -> None:
        """One action per (label, phrase): choosing it puts the phrase before the text."""
        for label, phrase in choices:
            action = QAction(label, menu)
            action.triggered.connect(lambda _=False, p=phrase: self._prefix(p))
            menu.addAction(action)

    def _show_menu(self, menu: QMenu) -> None:
        menu.popup(self.text.mapToGlobal(self.text.rect().bottomLeft()))

    def _prefix(self, phrase: str) -> None:
        self.text.setText(RetrievalController.with_phrase(phrase, self.text.text()))
        self.text.setFocus()
