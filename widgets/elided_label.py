"""Labels whose text never sets a window's width: one line elided, or wrapped anywhere.

A plain ``QLabel`` asks for the width of its whole text, so one long message (a Fashion
IQ path, a team server's explanation) makes the window wider than the screen. Qt's word
wrap does not help with a path: it has no spaces, so the label still asks for all of it.

- ``ElidedLabel``: one line; when the space is short it shows "…" (in the middle, so a
  path keeps its file name) and the tooltip holds the whole text. ``text()`` is the whole
  text.
- ``WrappedLabel``: wraps at spaces and, inside a word too long for a line, anywhere; it
  asks for the height the wrapped text needs at the width it gets. Plain text unless
  ``setTextFormat(Qt.TextFormat.RichText)``.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QAbstractTextDocumentLayout, QPainter, QTextDocument, QTextOption
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

SHORTEST_CHARS = 12  # the least a wrapped label asks for, in average characters
HINT_CHARS = 40  # an elided label asks for no more than this (it takes more when given)


class ElidedLabel(QLabel):
    def __init__(self, text: str = "", parent: QWidget | None = None,
                 mode: Qt.TextElideMode = Qt.TextElideMode.ElideMiddle) -> None:
        super().__init__(parent)
        self._mode = mode
        self._own_tip = ""
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802 (Qt name)
        super().setText(text)
        self._update_tip()

    def setToolTip(self, tip: str) -> None:  # noqa: N802
        self._own_tip = tip
        self._update_tip()

    def shown_text(self) -> str:
        """What is on screen: the text, elided to the width the label has."""
        return self.fontMetrics().elidedText(self.text(), self._mode, self._room())

    def is_elided(self) -> bool:
        return self.shown_text() != self.text()

    def sizeHint(self) -> QSize:  # noqa: N802
        """The whole text up to HINT_CHARS characters: a long one does not squeeze the
        buttons and boxes beside it below their own size hints."""
        hint = super().sizeHint()
        margins = self.contentsMargins()
        most = (self.fontMetrics().averageCharWidth() * HINT_CHARS + margins.left()
                + margins.right() + 2 * self.margin())
        return QSize(min(hint.width(), most), hint.height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        hint = super().minimumSizeHint()
        metrics = self.fontMetrics()
        least = metrics.horizontalAdvance(self.text()[:3] + "…")
        margins = self.contentsMargins()
        return QSize(min(hint.width(), least + margins.left() + margins.right()
                         + 2 * self.margin()), hint.height())

    def resizeEvent(self, event) -> None:  # noqa: N802, ANN001
        super().resizeEvent(event)
        self._update_tip()

    def paintEvent(self, _event) -> None:  # noqa: N802, ANN001
        painter = QPainter(self)
        rect = self.contentsRect().adjusted(self.margin(), self.margin(),
                                            -self.margin(), -self.margin())
        self.style().drawItemText(painter, rect, int(self.alignment()), self.palette(),
                                  self.isEnabled(), self.shown_text(), self.foregroundRole())

    def _room(self) -> int:
        return max(0, self.contentsRect().width() - 2 * self.margin())

    def _update_tip(self) -> None:
        tip = self._own_tip
        if self.text() and self.is_elided():
            tip = self.text() + (f"\n\n{tip}" if tip else "")
        super().setToolTip(tip)


class WrappedLabel(QLabel):
    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        self._sizes: dict[tuple[object, ...], tuple[float, float]] = {}
        super().__init__(text, parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(True)
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def _laid_out(self, width: float | None) -> tuple[float, float]:
        """The width and height of the text laid out at ``width``, remembered per text,
        font and width: a layout asks each label for its height at a width again and again
        (27,000 times while a window opens and resizes), each a new text document."""
        key = (self.text(), self.textFormat(), self.font().key(), int(self.alignment()), width)
        size = self._sizes.get(key)
        if size is None:
            if len(self._sizes) > 64:
                self._sizes.clear()
            laid = self._document(width).size()
            size = self._sizes[key] = (laid.width(), laid.height())
        return size

    def _document(self, width: float | None) -> QTextDocument:
        """The text laid out at ``width`` (None: on as few lines as it has)."""
        document = QTextDocument()
        document.setDefaultFont(self.font())
        document.setDocumentMargin(0)
        option = QTextOption(self.alignment())
        option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        document.setDefaultTextOption(option)
        if self.textFormat() == Qt.TextFormat.RichText:
            document.setHtml(self.text())
        else:
            document.setPlainText(self.text())
        if width is not None:
            document.setTextWidth(max(1.0, width))
        return document

    def _extra(self) -> tuple[int, int]:
        margins = self.contentsMargins()
        return (margins.left() + margins.right() + 2 * self.margin(),
                margins.top() + margins.bottom() + 2 * self.margin())

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        if not self.text():
            return super().heightForWidth(width)
        extra_w, extra_h = self._extra()
        return math.ceil(self._laid_out(width - extra_w)[1]) + extra_h

    def sizeHint(self) -> QSize:  # noqa: N802
        extra_w, _ = self._extra()
        natural = math.ceil(self._laid_out(None)[0]) + extra_w
        width = min(natural, self.fontMetrics().averageCharWidth() * 80 + extra_w)
        return QSize(width, self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        """Narrow (a dozen characters) and one line high: layouts give it the height its
        real width needs (``heightForWidth``)."""
        extra_w, extra_h = self._extra()
        hint = self.sizeHint()
        width = min(hint.width(), self.fontMetrics().averageCharWidth() * SHORTEST_CHARS
                    + extra_w)
        return QSize(width, min(hint.height(), self.fontMetrics().lineSpacing() + extra_h))

    def paintEvent(self, _event) -> None:  # noqa: N802, ANN001
        painter = QPainter(self)
        rect = self.contentsRect().adjusted(self.margin(), self.margin(),
                                            -self.margin(), -self.margin())
        document = self._document(rect.width())
        painter.translate(rect.topLeft())
        context = QAbstractTextDocumentLayout.PaintContext()
        palette = self.palette()
        palette.setColor(palette.ColorRole.Text, palette.color(self.foregroundRole()))
        context.palette = palette
        document.documentLayout().draw(painter, context)
