"""A pane whose feature lands in a later release: says what it will do, keeps navigation."""

from __future__ import annotations

from PySide6.QtWidgets import QVBoxLayout, QWidget

from studio.workspace import Workspace
from widgets.panes.pane import Pane, empty_state


class ComingPane(Pane):
    def __init__(
        self,
        workspace: Workspace,
        title: str,
        promise: str,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(workspace, parent)
        self.title = title
        self.tooltip = promise
        layout = QVBoxLayout(self)
        layout.addWidget(empty_state(f"{title} is coming", promise))
