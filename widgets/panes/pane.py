"""What every pane shares: a title, a shortcut, and a project it follows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from studio.store import Project

if TYPE_CHECKING:
    from widgets.services import Services


class Pane(QWidget):
    """A page of the main window. Subclasses set ``title`` and implement ``show_project``.

    It receives the application services: the workspace, the job runner (GPU/model lane),
    the shared thumbnail cache, the resolved device and the error reporter. A pane makes
    no thread of its own; ``scope`` is its share of the lanes, ended with the pane.
    """

    title = "Pane"
    tooltip = ""

    def __init__(self, services: Services, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.workspace = services.workspace
        self.runner = services.runner
        self.thumbnails = services.thumbnails
        self.scope = services.scope(self)
        self.workspace.project_changed.connect(self.show_project)

    def show_project(self, project: Project | None) -> None:
        """Called whenever the workspace opens, creates or closes a project."""

    def focus_widget(self) -> QWidget | None:
        """Where this pane's keys work (the editor, the review view); None: the pane itself."""
        return None

    def take_focus(self) -> None:
        """Put keyboard focus where the pane's keys work, so they work as soon as it shows."""
        widget = self.focus_widget()
        if widget is None or not widget.isVisibleTo(self) or not widget.isEnabled():
            widget = self
        widget.setFocus(Qt.FocusReason.OtherFocusReason)


def empty_state(text: str, detail: str = "") -> QWidget:
    """A centred message for a pane with nothing to show yet, saying what to do next."""
    widget = QWidget()
    layout = QVBoxLayout(widget)
    layout.addStretch(1)
    heading = QLabel(text)
    heading.setObjectName("emptyStateHeading")
    heading.setAlignment(Qt.AlignmentFlag.AlignCenter)
    heading.setWordWrap(True)
    layout.addWidget(heading)
    if detail:
        body = QLabel(detail)
        body.setObjectName("emptyStateDetail")
        body.setAlignment(Qt.AlignmentFlag.AlignCenter)
        body.setWordWrap(True)
        layout.addWidget(body)
    layout.addStretch(2)
    return widget
