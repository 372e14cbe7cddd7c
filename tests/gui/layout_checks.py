"""Geometry checks that a window shows its widgets whole ("nothing cut"), without grabbing.

Qt squeezes a layout below its minimum size when the window is too small: labels are cut
mid-word, buttons lose their text and widgets slide over each other. These checks read
the geometry Qt computed and name every widget that suffers, so a failing test says
what is cut and where. A label that elides (``ElidedLabel``) is whole when its tooltip
holds the whole text; a wrapped label is whole when it has the height its text needs.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractScrollArea,
    QComboBox,
    QLabel,
    QWidget,
)

from widgets.elided_label import ElidedLabel


def _describe(widget: QWidget) -> str:
    text = ""
    if isinstance(widget, (QLabel, QAbstractButton)):
        text = widget.text()[:40]
    elif isinstance(widget, QComboBox):
        text = widget.currentText()[:40]
    return f"{type(widget).__name__}({widget.objectName() or text!r})"


def _inside_scrolled_content(widget: QWidget, root: QWidget) -> bool:
    """Widgets inside a scroll area's or item view's viewport may be scrolled out of view."""
    parent = widget.parentWidget()
    while parent is not None and parent is not root:
        if isinstance(parent, (QAbstractScrollArea, QAbstractItemView, QComboBox)):
            return True
        parent = parent.parentWidget()
    return False


def cut_widgets(root: QWidget) -> list[str]:
    """Every visible widget under ``root`` that is cut, squeezed or outside its window."""
    problems: list[str] = []
    window = root.window()
    window_rect = QRect(0, 0, window.width(), window.height())
    for widget in root.findChildren(QWidget):
        if not widget.isVisible() or widget.isWindow() or widget.width() <= 0:
            continue
        if _inside_scrolled_content(widget, root):
            continue
        name = _describe(widget)
        top_left = widget.mapTo(window, widget.rect().topLeft())
        placed = QRect(top_left, _size(widget))
        if not window_rect.contains(placed):
            problems.append(f"{name} reaches outside the window: {placed} not in {window_rect}")
        layout = widget.layout()
        if layout is not None and not isinstance(widget, QAbstractScrollArea):
            needed = layout.minimumSize()
            if widget.width() < needed.width() or widget.height() < needed.height():
                problems.append(
                    f"{name} is squeezed: {widget.width()}x{widget.height()} < "
                    f"{needed.width()}x{needed.height()}"
                )
        if isinstance(widget, ElidedLabel):
            if widget.is_elided() and widget.text() not in widget.toolTip():
                problems.append(f"{name} is elided without its whole text in the tooltip")
            continue
        if isinstance(widget, QLabel) and widget.wordWrap() and widget.text():
            wanted_height = widget.heightForWidth(widget.width())
            if widget.height() < wanted_height:
                problems.append(f"{name} wrapped text is cut: {widget.height()} < "
                                f"{wanted_height} px high")
        plain_label = isinstance(widget, QLabel) and not widget.wordWrap() and widget.text()
        if plain_label and (widget.pixmap() is None or widget.pixmap().isNull()):
            wanted = widget.sizeHint().width()
            if widget.width() < wanted:
                problems.append(f"{name} text is cut: {widget.width()} < {wanted} px")
        if isinstance(widget, QAbstractButton) and widget.text():
            text = widget.text().replace("&&", "&")
            wanted = widget.fontMetrics().horizontalAdvance(text) + 6
            if widget.width() < wanted:
                problems.append(f"{name} text is cut: {widget.width()} < {wanted} px")
        if isinstance(widget, QComboBox) and not widget.isEditable() and widget.currentText():
            wanted = widget.fontMetrics().horizontalAdvance(widget.currentText()) + 24
            if widget.width() < wanted:
                problems.append(f"{name} text is cut: {widget.width()} < {wanted} px")
    return problems


def fully_visible(widget: QWidget) -> bool:
    """Is ``widget`` shown whole: every ancestor's rectangle contains it?"""
    rect = QRect(widget.mapTo(widget.window(), widget.rect().topLeft()), _size(widget))
    parent = widget.parentWidget()
    while parent is not None:
        top_left = parent.mapTo(widget.window(), parent.rect().topLeft())
        if not QRect(top_left, _size(parent)).contains(rect):
            return False
        if parent.isWindow():
            break
        parent = parent.parentWidget()
    return True


def _size(widget: QWidget) -> QSize:
    return QSize(widget.width(), widget.height())  # some widgets shadow size()
