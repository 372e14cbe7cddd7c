"""Show a pane of the main window by its title, as a click in the navigation would."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication


def show_pane_titled(window, title: str):
    """Show the pane called ``title`` and return it, its show-time work done."""
    pane = next(pane for pane in window.panes if pane.title == title)
    window.show_pane(window.panes.index(pane))
    QApplication.processEvents()
    return pane
