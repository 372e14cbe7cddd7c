"""Shared set-up for the matplotlib charts embedded in panes.

``note_layout`` builds the grey note label and zero-margin layout a chart widget starts
with; ``make_canvas`` creates the canvas on first draw (matplotlib is imported then, not
with the window, so start-up stays fast) and adds it to that layout.
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget


def note_layout(widget: QWidget, text: str) -> tuple[QLabel, QVBoxLayout]:
    """A word-wrapped grey note in a zero-margin layout on ``widget``."""
    note = QLabel(text)
    note.setWordWrap(True)
    note.setStyleSheet("color: #6b7280;")
    layout = QVBoxLayout(widget)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(note)
    return note, layout


def make_canvas(layout: QVBoxLayout, figsize: tuple[float, float], min_height: int):
    """A constrained-layout FigureCanvasQTAgg added to ``layout``."""
    from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
    from matplotlib.figure import Figure

    canvas = FigureCanvasQTAgg(Figure(figsize=figsize, layout="constrained"))
    canvas.setMinimumHeight(min_height)
    layout.addWidget(canvas)
    return canvas
