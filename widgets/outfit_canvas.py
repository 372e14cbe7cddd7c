"""The Outfit view's picture: zoom, regions drawn over it, drawing and moving regions.

Scene coordinates are image pixels. The picture is a pixmap decoded once, scaled down to
at most ``DISPLAY_SIZE`` on its long side off the UI thread, and drawn scaled up by the
view's transform, so a 4,000 × 6,000 photograph costs a paint of a 2,048-pixel pixmap,
never of the full image. Outlines use cosmetic pens (the same width at any zoom).

Modes: select (click a region; drag the selected one to move it, or drag one of its
handles — a polygon point or a box corner — to reshape it), box (drag a rectangle),
polygon (click the points; Enter or a double click closes, Esc drops it).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QPen,
    QPixmap,
    QPolygonF,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QGraphicsPathItem,
    QGraphicsPixmapItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QWidget,
)

from widgets import actions

DISPLAY_SIZE = 2048
HANDLE = 8  # screen pixels: the selected region's vertex handles
ROLE_COLOURS = {"garment": QColor("#2f6fed"), "part": QColor("#e8590c")}
MODES = ("select", "box", "polygon")


@dataclass(frozen=True)
class RegionShape:
    """What the canvas draws for one region (image pixels)."""

    id: int
    role: str
    label: str
    box: tuple[float, float, float, float] | None
    polygon: tuple[tuple[float, ...], ...] | None
    status: str = "accepted"


def region_path(shape: RegionShape) -> QPainterPath:
    path = QPainterPath()
    if shape.polygon:
        for ring in shape.polygon:
            points = [QPointF(ring[i], ring[i + 1]) for i in range(0, len(ring) - 1, 2)]
            path.addPolygon(QPolygonF(points))
            path.closeSubpath()
    elif shape.box is not None:
        path.addRect(QRectF(*shape.box))
    return path


class OutfitCanvas(QGraphicsView):
    region_clicked = Signal(int)
    shape_drawn = Signal(object, object)  # box (x, y, w, h), polygon rings or None
    region_moved = Signal(int, float, float)  # region id, dx, dy in image pixels
    region_reshaped = Signal(int, object, object)  # region id, new box, new polygon rings

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._keys = self._key_map()
        self.setScene(QGraphicsScene(self))
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setBackgroundBrush(QColor("#1f2329"))
        self.mode = "select"
        self.image_size = (0, 0)
        self._pixmap_item: QGraphicsPixmapItem | None = None
        self._items: dict[int, QGraphicsPathItem] = {}
        self._labels: list[QGraphicsSimpleTextItem] = []
        self.selected: int | None = None
        self._press: QPointF | None = None
        self._rubber: QGraphicsRectItem | None = None
        self._points: list[QPointF] = []
        self._sketch: QGraphicsPathItem | None = None
        self._fitted = False
        self._shapes: dict[int, RegionShape] = {}
        self._handles: list[QGraphicsRectItem] = []
        self._vertex: tuple[int, int] | None = None  # (ring, point) or (-1, corner) dragged

    # -- content ----------------------------------------------------------------------

    def set_picture(self, pixmap: QPixmap | None, width: int, height: int) -> None:
        """Show ``pixmap`` (any size) stretched over ``width`` × ``height`` image pixels."""
        new_size = (width, height) != self.image_size
        self.image_size = (width, height)
        if self._pixmap_item is not None:
            self.scene().removeItem(self._pixmap_item)
            self._pixmap_item = None
        if pixmap is not None and not pixmap.isNull() and width and height:
            item = QGraphicsPixmapItem(pixmap)
            item.setTransformationMode(Qt.TransformationMode.SmoothTransformation)
            item.setScale(width / pixmap.width())
            item.setZValue(-1)
            self.scene().addItem(item)
            self._pixmap_item = item
        self.scene().setSceneRect(QRectF(0, 0, max(width, 1), max(height, 1)))
        if new_size or not self._fitted:
            self.fit()

    def set_regions(self, shapes: list[RegionShape], selected: int | None) -> None:
        for item in [*self._items.values(), *self._labels, *self._handles]:
            self.scene().removeItem(item)
        self._items.clear()
        self._labels.clear()
        self._handles.clear()
        self._shapes = {shape.id: shape for shape in shapes}
        self.selected = selected
        for shape in shapes:
            colour = ROLE_COLOURS.get(shape.role, QColor("#888888"))
            chosen = shape.id == selected
            pen = QPen(colour.lighter(130) if chosen else colour, 3 if chosen else 1.6)
            pen.setCosmetic(True)
            if shape.status != "accepted":
                pen.setStyle(Qt.PenStyle.DashLine)
            item = QGraphicsPathItem(region_path(shape))
            item.setPen(pen)
            if chosen:  # a translucent fill costs a blend per pixel: only the selected one
                fill = QColor(colour)
                fill.setAlpha(70)
                item.setBrush(QBrush(fill))
            # Outlines are drawn once per zoom level and blitted while panning.
            item.setCacheMode(QGraphicsPathItem.CacheMode.DeviceCoordinateCache)
            item.setData(0, shape.id)
            item.setZValue(2 if chosen else (1 if shape.role == "part" else 0))
            item.setToolTip(shape.label)
            self.scene().addItem(item)
            self._items[shape.id] = item
            if chosen:
                text = QGraphicsSimpleTextItem(shape.label)
                text.setBrush(QColor("#ffffff"))
                text.setFlag(text.GraphicsItemFlag.ItemIgnoresTransformations)
                rect = item.path().boundingRect()
                text.setPos(rect.left(), rect.top())
                text.setZValue(3)
                self.scene().addItem(text)
                self._labels.append(text)
                for x, y in self._vertices(shape):
                    self._add_handle(x, y, colour)

    def _add_handle(self, x: float, y: float, colour: QColor) -> None:
        handle = QGraphicsRectItem(QRectF(-HANDLE / 2, -HANDLE / 2, HANDLE, HANDLE))
        handle.setPos(x, y)
        handle.setFlag(handle.GraphicsItemFlag.ItemIgnoresTransformations)
        handle.setBrush(QColor("#ffffff"))
        pen = QPen(colour, 1)
        pen.setCosmetic(True)
        handle.setPen(pen)
        handle.setZValue(4)
        self.scene().addItem(handle)
        self._handles.append(handle)

    @staticmethod
    def _vertices(shape: RegionShape) -> list[tuple[float, float]]:
        """Where the selected region's handles go: polygon points, else box corners."""
        if shape.polygon:
            return [(ring[i], ring[i + 1]) for ring in shape.polygon
                    for i in range(0, len(ring) - 1, 2)]
        if shape.box is not None:
            x, y, w, h = shape.box
            return [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
        return []

    def _vertex_at(self, point: QPointF) -> tuple[int, int] | None:
        """The handle of the selected region under ``point`` (within a few screen pixels)."""
        shape = self._shapes.get(self.selected) if self.selected is not None else None
        if shape is None:
            return None
        reach = HANDLE / max(self.transform().m11(), 1e-6)
        if shape.polygon:
            for r, ring in enumerate(shape.polygon):
                for i in range(0, len(ring) - 1, 2):
                    if abs(ring[i] - point.x()) <= reach and abs(ring[i + 1] - point.y()) <= reach:
                        return (r, i // 2)
            return None
        for corner, (x, y) in enumerate(self._vertices(shape)):
            if abs(x - point.x()) <= reach and abs(y - point.y()) <= reach:
                return (-1, corner)
        return None

    def _reshaped(self, shape: RegionShape, vertex: tuple[int, int], point: QPointF
                  ) -> tuple[tuple[float, ...] | None, tuple[tuple[float, ...], ...] | None]:
        """The region's new box and polygon with one vertex (or box corner) moved."""
        x, y = round(point.x(), 1), round(point.y(), 1)
        ring_index, index = vertex
        if ring_index >= 0 and shape.polygon:
            rings = [list(ring) for ring in shape.polygon]
            rings[ring_index][2 * index : 2 * index + 2] = [x, y]
            xs = [v for ring in rings for v in ring[0::2]]
            ys = [v for ring in rings for v in ring[1::2]]
            box = (min(xs), min(ys), round(max(xs) - min(xs), 1), round(max(ys) - min(ys), 1))
            return box, tuple(tuple(ring) for ring in rings)
        assert shape.box is not None
        corners = self._vertices(shape)
        opposite = corners[(index + 2) % 4]
        left, right = sorted((x, opposite[0]))
        top, bottom = sorted((y, opposite[1]))
        return (left, top, round(right - left, 1), round(bottom - top, 1)), None

    def item(self, region_id: int) -> QGraphicsPathItem | None:
        return self._items.get(region_id)

    # -- view -------------------------------------------------------------------------

    def fit(self) -> None:
        if self.image_size[0] and self.image_size[1]:
            self.fitInView(self.sceneRect(), Qt.AspectRatioMode.KeepAspectRatio)
            self._fitted = True

    def zoom(self, factor: float) -> None:
        current = self.transform().m11()
        if 0.02 < current * factor < 40:
            self.scale(factor, factor)

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 (Qt name)
        self.zoom(1.25 if event.angleDelta().y() > 0 else 0.8)

    def resizeEvent(self, event) -> None:  # noqa: N802, ANN001
        super().resizeEvent(event)
        if self._fitted and self.transform().m11() <= self._fit_scale() * 1.01:
            self.fit()

    def _fit_scale(self) -> float:
        width, height = self.image_size
        if not width or not height:
            return 1.0
        view = self.viewport().rect()
        return min(view.width() / width, view.height() / height)

    def set_mode(self, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown canvas mode {mode!r}")
        self._drop_sketch()
        self.mode = mode
        self.setCursor(Qt.CursorShape.ArrowCursor if mode == "select"
                       else Qt.CursorShape.CrossCursor)

    # -- mouse ------------------------------------------------------------------------

    def _clamp(self, point: QPointF) -> QPointF:
        width, height = self.image_size
        return QPointF(min(max(point.x(), 0.0), float(width)),
                       min(max(point.y(), 0.0), float(height)))

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        if event.button() != Qt.MouseButton.LeftButton:
            super().mousePressEvent(event)
            return
        point = self._clamp(self.mapToScene(event.position().toPoint()))
        self.setFocus()
        if self.mode == "box":
            self._press = point
            self._rubber = QGraphicsRectItem(QRectF(point, point))
            pen = QPen(QColor("#ffd43b"), 1.5)
            pen.setCosmetic(True)
            self._rubber.setPen(pen)
            self._rubber.setZValue(5)
            self.scene().addItem(self._rubber)
        elif self.mode == "polygon":
            self._points.append(point)
            self._draw_sketch()
        else:
            self._vertex = self._vertex_at(point)
            if self._vertex is not None:
                self._press = point
                return
            hit = self._region_at(point)
            if hit is not None:
                self.region_clicked.emit(hit)
                self._press = point if hit == self.selected else None

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        point = self._clamp(self.mapToScene(event.position().toPoint()))
        if self.mode == "box" and self._rubber is not None and self._press is not None:
            self._rubber.setRect(QRectF(self._press, point).normalized())
        elif self.mode == "select" and self._press is not None and self.selected is not None:
            item = self._items.get(self.selected)
            shape = self._shapes.get(self.selected)
            if self._vertex is not None and item is not None and shape is not None:
                box, polygon = self._reshaped(shape, self._vertex, point)
                item.setPath(region_path(RegionShape(shape.id, shape.role, shape.label,
                                                     box, polygon)))  # type: ignore[arg-type]
            elif item is not None:
                item.setPos(point - self._press)
        else:
            super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        point = self._clamp(self.mapToScene(event.position().toPoint()))
        if self.mode == "box" and self._press is not None:
            rect = QRectF(self._press, point).normalized()
            self._press = None
            if self._rubber is not None:
                self.scene().removeItem(self._rubber)
                self._rubber = None
            if rect.width() >= 2 and rect.height() >= 2:
                self.shape_drawn.emit(
                    (round(rect.x(), 1), round(rect.y(), 1), round(rect.width(), 1),
                     round(rect.height(), 1)),
                    None,
                )
        elif self.mode == "select" and self._press is not None and self.selected is not None:
            delta = point - self._press
            self._press = None
            vertex, self._vertex = self._vertex, None
            shape = self._shapes.get(self.selected)
            if abs(delta.x()) < 1 and abs(delta.y()) < 1:
                return
            if vertex is not None and shape is not None:
                box, polygon = self._reshaped(shape, vertex, point)
                self.region_reshaped.emit(self.selected, box, polygon)
            else:
                self.region_moved.emit(self.selected, round(delta.x(), 1), round(delta.y(), 1))
        else:
            super().mouseReleaseEvent(event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        if self.mode == "polygon":
            self.close_polygon()
        else:
            super().mouseDoubleClickEvent(event)

    def _key_map(self) -> actions.KeyMap:
        """Keys that mean nothing at the moment (Enter outside polygon mode, Esc with no
        shape begun) return False and go on to the Outfit view."""

        def close_polygon() -> bool:
            if self.mode != "polygon":
                return False
            self.close_polygon()
            return True

        def drop_sketch() -> bool:
            if not (self._points or self._rubber):
                return False
            self._drop_sketch()
            return True

        return actions.KeyMap({
            "attributes.outfit.canvas.close_polygon": close_polygon,
            "attributes.outfit.escape": drop_sketch,
            "attributes.outfit.canvas.zoom_in": lambda: self.zoom(1.25),
            "attributes.outfit.canvas.zoom_out": lambda: self.zoom(0.8),
            "attributes.outfit.canvas.fit": self.fit,
        })

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        """The keys of ``attributes.outfit.canvas`` in the key map (widgets/actions.py)."""
        if not self._keys.handle(event):
            event.ignore()  # the Outfit view's keys

    # -- polygon sketch ---------------------------------------------------------------

    def close_polygon(self) -> None:
        points = self._points
        if len(points) >= 3:
            ring = tuple(v for p in points for v in (round(p.x(), 1), round(p.y(), 1)))
            xs, ys = ring[0::2], ring[1::2]
            box = (min(xs), min(ys), round(max(xs) - min(xs), 1), round(max(ys) - min(ys), 1))
            self._drop_sketch()
            self.shape_drawn.emit(box, (ring,))
        else:
            self._drop_sketch()

    def _draw_sketch(self) -> None:
        path = QPainterPath()
        path.addPolygon(QPolygonF(self._points))
        if self._sketch is None:
            self._sketch = QGraphicsPathItem()
            pen = QPen(QColor("#ffd43b"), 1.5)
            pen.setCosmetic(True)
            self._sketch.setPen(pen)
            self._sketch.setZValue(5)
            self.scene().addItem(self._sketch)
        self._sketch.setPath(path)

    def _drop_sketch(self) -> None:
        self._points = []
        if self._sketch is not None:
            self.scene().removeItem(self._sketch)
            self._sketch = None
        if self._rubber is not None:
            self.scene().removeItem(self._rubber)
            self._rubber = None
        self._press = None

    def _region_at(self, point: QPointF) -> int | None:
        """The smallest region under the point (a part before the garment it sits on)."""
        hits = [
            (item.path().boundingRect().width() * item.path().boundingRect().height(), rid)
            for rid, item in self._items.items() if item.path().contains(point)
        ]
        return min(hits)[1] if hits else None
