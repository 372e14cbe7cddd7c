"""Outfit view: annotate a picture head to toe — garments, their parts, attributes.

The picture with its regions on the left (``OutfitCanvas``), the current region's
category, garment and attribute chips on the right, then the outfit's own values and
descriptions. Keyboard first: ] / [ next / previous region, J / K next / previous
picture, B box, P polygon, S select (drag the selected region to move it, or a handle
of it to reshape it), C type a
category, A type an attribute, O type an outfit value, Y accept / X reject the region's
suggestions, G attach the region to the garment under it in the list, Delete remove,
Ctrl+Z undo, + / − / 0 zoom. A drawn shape takes the category typed in the category box.
Every change is saved at once (descriptions after a short pause, and when leaving).
The state lives in the Qt-free ``OutfitController``.
"""

from __future__ import annotations

from PySide6.QtCore import QStringListModel, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QCompleter,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from studio.errors import StudioError
from studio.outfits.controller import OutfitController, completion_text
from studio.outfits.editing import OUTFIT_LABELS, REGION_LABELS
from studio.outfits.records import Label
from studio.store import Project
from studio.workspace import Workspace
from widgets import actions
from widgets.elided_label import ElidedLabel
from widgets.flow_layout import FlowLayout
from widgets.outfit_canvas import DISPLAY_SIZE, OutfitCanvas, RegionShape
from widgets.outfit_chips import OutfitChips
from widgets.project_signals import follow, follow_closing
from widgets.thumbnail_cache import ThumbnailCache

AUTOSAVE_MS = 700
HINT = ("] / [ region · J / K picture · B box · P polygon · S select/move · C category · "
        "A attribute · O outfit value · Y / X accept / reject suggestions · Del remove · "
        "Ctrl+Z undo · +/−/0 zoom")


def folded(labels: list[Label]) -> list[tuple[int, str, float | None, str]]:
    """One (value id, status, confidence, sources) per fact: a decision beats a suggestion."""
    by_value: dict[int, list[Label]] = {}
    for label in sorted(labels, key=lambda item: (item.position, item.id)):
        by_value.setdefault(label.value_id, []).append(label)
    out = []
    for value_id, rows in by_value.items():
        statuses = {row.status for row in rows}
        status = ("rejected" if "rejected" in statuses
                  else "accepted" if "accepted" in statuses else "suggested")
        confidence = max((r.confidence for r in rows if r.confidence is not None), default=None)
        sources = "\n".join(
            f"{r.source}{' ' + r.model if r.model else ''}"
            f"{' by ' + r.author if r.author else ''}: {r.status}"
            f"{', reviewed by ' + r.reviewer if r.reviewer else ''}"
            for r in rows
        )
        out.append((value_id, status, confidence, sources))
    return out


IMPORTS = {"fashionpedia": "Fashionpedia file…", "fashionx": "FashionX file…"}
EXPORTS = {"fashionpedia": "Fashionpedia file…", "fashionx": "FashionX file…",
           "omnifashion": "OmniFashion samples (JSON Lines)…"}


class OutfitView(QWidget):
    import_requested = Signal(str)  # fashionpedia | fashionx (the pane runs the job)
    export_requested = Signal(str)  # fashionpedia | fashionx | omnifashion

    def __init__(self, workspace: Workspace, thumbnails: ThumbnailCache,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.thumbnails = thumbnails
        self.controller: OutfitController | None = None
        self._picture_key: tuple[str, int] | None = None
        self._saving = False
        self._dirty = False  # descriptions typed and not saved yet
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

        self.canvas = OutfitCanvas()
        self.canvas.region_clicked.connect(self._on_region_clicked)
        self.canvas.shape_drawn.connect(self._on_shape_drawn)
        self.canvas.region_moved.connect(self._on_region_moved)
        self.canvas.region_reshaped.connect(self._on_region_reshaped)

        side = QWidget()
        panel = QVBoxLayout(side)
        # Rows that wrap (FlowLayout) rather than widen the panel beyond what it is given:
        # at 1024 × 700 the panel is under 300 px and nothing in it may be cut.
        nav = FlowLayout()
        self.previous_button = QPushButton("◀")
        self.previous_button.setToolTip("Previous picture (K)")
        self.previous_button.clicked.connect(lambda: self.go(-1))
        self.next_button = QPushButton("▶")
        self.next_button.setToolTip("Next picture (J)")
        self.next_button.clicked.connect(lambda: self.go(1))
        self.position = ElidedLabel()
        self.all_images = QCheckBox("All images")
        self.all_images.setToolTip("Show every image of the project, not only outfit pictures")
        self.all_images.toggled.connect(lambda _=False: self.reload())
        for widget in (self.previous_button, self.next_button, self.all_images):
            widget.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            nav.addWidget(widget)
        for text, choices, signal in (("Import", IMPORTS, self.import_requested),
                                      ("Export", EXPORTS, self.export_requested)):
            button = QToolButton()
            button.setText(text)
            button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
            menu = QMenu(button)
            for kind, label in choices.items():
                menu.addAction(label, lambda k=kind, s=signal: s.emit(k))
            button.setMenu(menu)
            nav.addWidget(button)
        panel.addLayout(nav)
        panel.addWidget(self.position)
        modes = FlowLayout()
        self.mode_group = QButtonGroup(self)
        for mode, text, tip in (("select", "Select", "S: select and move"),
                                ("box", "Box", "B: drag a box"),
                                ("polygon", "Polygon", "P: click points, Enter closes")):
            button = QPushButton(text)
            button.setCheckable(True)
            button.setToolTip(tip)
            button.setProperty("mode", mode)
            button.clicked.connect(lambda _=False, m=mode: self.set_mode(m))
            self.mode_group.addButton(button)
            modes.addWidget(button)
        self.mode_group.buttons()[0].setChecked(True)
        fit = QPushButton("Fit")
        fit.setToolTip("Fit the picture (0)")
        fit.clicked.connect(self.canvas.fit)
        modes.addWidget(fit)
        panel.addLayout(modes)
        self.region_list = QListWidget()
        self.region_list.setMaximumHeight(170)
        self.region_list.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # letters stay the view's keys
        self.region_list.itemClicked.connect(
            lambda item: self._select(item.data(Qt.ItemDataRole.UserRole)))
        panel.addWidget(self.region_list)
        self.category = QLineEdit()
        self.category.setPlaceholderText("Category (C): type to search; Enter sets it")
        self.category_completer = QCompleter([], self.category)
        self.category_completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.category_completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.category.setCompleter(self.category_completer)
        self.category.returnPressed.connect(self._category_entered)
        panel.addWidget(self.category)
        garment_row = QHBoxLayout()
        garment_row.addWidget(QLabel("Part of"))
        self.garment = QComboBox()
        self.garment.setToolTip("The garment this part belongs to (G attaches to the garment "
                                "above it in the list)")
        self.garment.activated.connect(self._garment_chosen)
        garment_row.addWidget(self.garment, 1)
        panel.addLayout(garment_row)
        self.region_chips = OutfitChips("Region attributes",
                                        "Attribute (A): type to search the ontology")
        self.region_chips.added.connect(self._attribute_typed)
        self.region_chips.removed.connect(lambda v: self._edit("set_attribute_id", v, False))
        self.region_chips.accepted.connect(
            lambda v: self._review(REGION_LABELS, self._region_id(), v, "accepted"))
        panel.addWidget(self.region_chips)
        self.outfit_chips = OutfitChips("Outfit: style, occasion, season, scene",
                                        "Outfit value (O): type to search")
        self.outfit_chips.added.connect(self._outfit_typed)
        self.outfit_chips.removed.connect(lambda v: self._edit("set_outfit_value_id", v, False))
        self.outfit_chips.accepted.connect(
            lambda v: self._review(OUTFIT_LABELS, self._image_id(), v, "accepted"))
        panel.addWidget(self.outfit_chips)
        panel.addWidget(QLabel("Description (general, then concise)"))
        self.general = QPlainTextEdit()
        self.general.setMaximumHeight(70)
        self.concise = QLineEdit()
        self.concise.setPlaceholderText("Concise description")
        self.autosave = QTimer(self)
        self.autosave.setSingleShot(True)
        self.autosave.setInterval(AUTOSAVE_MS)
        self.autosave.timeout.connect(self.save_descriptions)
        self.general.textChanged.connect(self._typed)
        self.concise.textChanged.connect(self._typed)
        panel.addWidget(self.general)
        panel.addWidget(self.concise)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #b91c1c;")
        panel.addWidget(self.message)
        hint = QLabel(HINT)
        hint.setWordWrap(True)
        hint.setObjectName("emptyStateDetail")
        panel.addWidget(hint)
        panel.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidget(side)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(300)
        self.side_scroll = scroll
        splitter = QSplitter()
        splitter.addWidget(self.canvas)
        splitter.addWidget(scroll)
        splitter.setCollapsible(1, False)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([900, 460])
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)
        actions.bind(self, "attributes.outfit.undo", self.undo)
        self._keys = self._key_map()
        thumbnails.ready.connect(self._on_picture_ready)
        follow(self, workspace, ("outfits", "images"), self._on_project_data)
        follow_closing(self, workspace, self.save_descriptions)

    # -- project ----------------------------------------------------------------------

    def show_project(self, project: Project | None) -> None:
        self.controller = None if project is None else OutfitController(
            project, self.workspace.user_name)
        self.reload()

    def reload(self) -> None:
        controller = self.controller
        if controller is None:
            return
        images = None
        if self.all_images.isChecked():
            images = [image.id for image in controller.project.iter_images()]
        controller.reload(images)
        if not controller.image_ids and not self.all_images.isChecked():
            controller.reload([image.id for image in controller.project.iter_images()])
        self.category_completer.setModel(
            QStringListModel(controller.category_choices(), self.category_completer))
        self.region_chips.set_choices(controller.attribute_choices())
        self.outfit_chips.set_choices(controller.outfit_choices())
        self.show_current(load_picture=True)

    def _on_project_data(self) -> None:
        """Another writer (an import job, a merge, another window) changed outfits or
        images: re-read the picture list too, keeping the current picture and region."""
        if self.controller is not None and not self._saving:
            self.reload()

    # -- showing ----------------------------------------------------------------------

    def show_current(self, load_picture: bool = True) -> None:
        controller = self.controller
        if controller is None:
            return
        image_id = controller.image_id
        total = len(controller.image_ids)
        self.position.setText(f"{controller.index + 1} / {total} · {image_id}" if image_id
                              else "No pictures")
        if load_picture:
            self._show_picture()
        shapes = []
        self.region_list.clear()
        for region in controller.regions():
            name = controller.name(region.category_id)
            indent = "    " if region.role == "part" and region.garment_id else ""
            marker = "" if region.status == "accepted" else f" ({region.status})"
            item = QListWidgetItem(f"{indent}{name}{marker}")
            item.setData(Qt.ItemDataRole.UserRole, region.id)
            self.region_list.addItem(item)
            if region.id == controller.region_id:
                self.region_list.setCurrentItem(item)
            shapes.append(RegionShape(region.id, region.role, name, region.bounds()
                                      if region.polygon is None else region.box,
                                      region.polygon, region.status))
        self.canvas.set_regions(shapes, controller.region_id)
        region = controller.region()
        self.garment.clear()
        self.garment.addItem("(no garment)", None)
        if controller.outfit is not None:
            for garment in controller.outfit.garments():
                self.garment.addItem(f"{controller.name(garment.category_id)} #{garment.id}",
                                     garment.id)
        if region is not None:
            entry = controller.ontology.by_id.get(region.category_id)
            if not self.category.hasFocus() and entry is not None:
                self.category.setText(completion_text(entry))
            self.garment.setCurrentIndex(max(0, self.garment.findData(region.garment_id)))
            self.garment.setEnabled(region.role == "part")
        self.region_chips.setEnabled(region is not None)
        labels = controller.outfit.region_labels.get(region.id, []) if (
            region is not None and controller.outfit is not None) else []
        self.region_chips.set_chips(self._chips(labels))
        outfit_labels = controller.outfit.outfit_labels if controller.outfit else []
        self.outfit_chips.set_chips(self._chips(outfit_labels, with_field=True))
        if controller.outfit is not None and not self._descriptions_dirty():
            self._set_descriptions(controller.outfit.picture.general,
                                   controller.outfit.picture.concise)
        elif controller.outfit is None and not self._descriptions_dirty():
            self._set_descriptions("", "")

    def _chips(self, labels: list[Label], with_field: bool = False
               ) -> list[tuple[int, str, str, str]]:
        controller = self.controller
        assert controller is not None
        out = []
        for value_id, status, confidence, sources in folded(labels):
            entry = controller.ontology.by_id.get(value_id)
            if entry is None:
                continue
            text = f"{entry.supercategory}: {entry.name}" if with_field else entry.name
            if confidence is not None and status == "suggested":
                text += f" · {confidence:.2f}"
            out.append((value_id, text, status, f"{entry.label}\n{sources}"))
        return out

    def _show_picture(self) -> None:
        controller = self.controller
        image = controller.project.image(controller.image_id) if (
            controller is not None and controller.image_id) else None
        if image is None or controller is None:
            self._picture_key = None
            self.canvas.set_picture(None, 0, 0)
            return
        path = controller.project.image_file(image)
        width, height = image.width or 0, image.height or 0
        if path is None or image.missing:
            self._picture_key = None
            self.canvas.set_picture(None, width or 600, height or 800)
            return
        self._picture_key = (str(path), DISPLAY_SIZE)
        pixmap = self.thumbnails.cached(str(path), DISPLAY_SIZE)
        if pixmap is None:
            self.thumbnails.get(str(path), DISPLAY_SIZE)  # decoded off the UI thread
        if not width or not height:
            width, height = (pixmap.width(), pixmap.height()) if pixmap else (600, 800)
        self.canvas.set_picture(pixmap, width, height)

    def _on_picture_ready(self, path: str, size: int) -> None:
        if self._picture_key == (path, size):
            self._show_picture()

    # -- actions ----------------------------------------------------------------------

    def _image_id(self) -> str | None:
        return self.controller.image_id if self.controller else None

    def _region_id(self) -> int | None:
        return self.controller.region_id if self.controller else None

    def _run(self, action, *args) -> bool:  # noqa: ANN001
        self.message.clear()
        if self.controller is not None:
            self.controller.actor = self.workspace.user_name  # who edits now
        self._saving = True
        try:
            action(*args)
        except StudioError as error:
            self.message.setText(str(error))
            return False
        finally:
            self._saving = False
        self.show_current(load_picture=False)
        return True

    def go(self, step: int) -> None:
        if self.controller is not None:
            self.save_descriptions()
            self.controller.go(step)
            self._set_descriptions("", "")
            self.show_current()

    def _select(self, region_id: int | None) -> None:
        if self.controller is not None:
            self.controller.select(region_id)
            self._clear_entries()
            self.show_current(load_picture=False)

    def step_region(self, step: int) -> None:
        if self.controller is not None:
            self.controller.step_region(step)
            self._clear_entries()
            self.show_current(load_picture=False)

    def _clear_entries(self) -> None:
        """Another region: what was typed for the last one goes."""
        self.category.clear()
        self.region_chips.clear_entry()
        self.outfit_chips.clear_entry()

    def set_mode(self, mode: str) -> None:
        self.canvas.set_mode(mode)
        for button in self.mode_group.buttons():
            button.setChecked(button.property("mode") == mode)

    def _on_region_clicked(self, region_id: int) -> None:
        self._select(region_id)

    def _typed_category(self):  # noqa: ANN202
        if self.controller is None:
            return None
        return self.controller.lookup("category", self.category.text())

    def _on_shape_drawn(self, box, polygon) -> None:  # noqa: ANN001
        controller = self.controller
        if controller is None:
            return
        category = self._typed_category()
        current = controller.region()
        if category is None and current is not None and self.category.text() == "":
            category = controller.ontology.by_id.get(current.category_id)
        if category is None:
            self.message.setText("Type a category first (C), then draw the region.")
            return
        self._run(controller.add_region, category, box, polygon)
        self.category.clear()

    def _on_region_moved(self, region_id: int, dx: float, dy: float) -> None:
        if self.controller is not None and region_id == self.controller.region_id:
            self._run(self.controller.move_region, dx, dy)

    def _on_region_reshaped(self, region_id: int, box, polygon) -> None:  # noqa: ANN001
        controller = self.controller
        region = controller.region() if controller else None
        if controller is None or region is None or region.id != region_id:
            return
        # A box-only region keeps no polygon; a polygon's box follows its points.
        self._run(controller.reshape, box, polygon if region.polygon else None)

    def _category_entered(self) -> None:
        controller = self.controller
        if controller is None:
            return
        entry = self._typed_category()
        if entry is None:
            self.message.setText(f"{self.category.text()!r} is not a category of the ontology.")
            return
        if controller.region() is not None and controller.ontology.by_id.get(
                controller.region().category_id) != entry:  # type: ignore[union-attr]
            self._run(controller.set_category, entry)
        self.canvas.setFocus()

    def _garment_chosen(self, index: int) -> None:
        if self.controller is not None:
            self._run(self.controller.attach, self.garment.itemData(index))

    def attach_to_garment_above(self) -> None:
        controller = self.controller
        region = controller.region() if controller else None
        if controller is None or region is None or region.role != "part":
            return
        ordered = controller.regions()
        above = [r for r in ordered[: ordered.index(region)] if r.role == "garment"]
        if above:
            self._run(controller.attach, above[-1].id)

    def _attribute_typed(self, text: str) -> None:
        controller = self.controller
        entry = controller.lookup("attribute", text) if controller else None
        if entry is None or controller is None:
            if controller is not None:
                self.message.setText(controller.explain_unknown("attribute", text))
                self.region_chips.show_choices()
            return
        if self._run(controller.set_attribute, entry, True):
            self.region_chips.clear_entry()

    def _outfit_typed(self, text: str) -> None:
        controller = self.controller
        entry = controller.lookup("outfit", text) if controller else None
        if entry is None or controller is None:
            if controller is not None:
                self.message.setText(controller.explain_unknown("outfit", text))
                self.outfit_chips.show_choices()
            return
        if self._run(controller.set_outfit_value, entry, True):  # one-valued fields replace
            self.outfit_chips.clear_entry()

    def _edit(self, what: str, value_id: int, present: bool) -> None:
        controller = self.controller
        if controller is None:
            return
        entry = controller.ontology.by_id.get(value_id)
        if entry is None:
            return
        if what == "set_attribute_id":
            self._run(controller.set_attribute, entry, present)
        else:
            self._run(controller.set_outfit_value, entry, present)

    def _review(self, table: str, owner, value_id: int, status: str) -> None:  # noqa: ANN001
        if self.controller is not None and owner is not None:
            self._run(self.controller.review, table, owner, value_id, status)

    def review_suggestions(self, status: str) -> None:
        controller = self.controller
        region = controller.region() if controller else None
        if controller is None or region is None or controller.outfit is None:
            return
        if region.status == "suggested":  # a region a model proposed: decide it first
            self._run(controller.review_region, status)
        labels = controller.outfit.region_labels.get(region.id, []) if controller.outfit else []
        for value_id, state, _, _ in folded(labels):
            if state == "suggested":
                self._review(REGION_LABELS, region.id, value_id, status)

    def delete_region(self) -> None:
        if self.controller is not None:
            self._run(self.controller.delete_region)

    def undo(self) -> None:
        if self.controller is not None:
            self.save_descriptions()
            if self._run(self.controller.undo):
                self._set_descriptions("", "")
                self.show_current(load_picture=True)

    # -- descriptions -----------------------------------------------------------------

    def _set_descriptions(self, general: str, concise: str) -> None:
        for widget, text in ((self.general, general), (self.concise, concise)):
            widget.blockSignals(True)
            if isinstance(widget, QPlainTextEdit):
                if widget.toPlainText() != text:
                    widget.setPlainText(text)
            elif widget.text() != text:
                widget.setText(text)
            widget.blockSignals(False)

    def _descriptions_dirty(self) -> bool:
        return self._dirty

    def _typed(self) -> None:
        self._dirty = True
        self.autosave.start()

    def save_descriptions(self) -> None:
        """Autosave: write what was typed (called by the timer, on leaving, on closing)."""
        if not self._dirty:
            return
        self._dirty = False
        self.autosave.stop()
        controller = self.controller
        if controller is None or controller.image_id is None:
            return
        self._run(controller.describe, self.general.toPlainText(), self.concise.text())

    def hideEvent(self, event) -> None:  # noqa: N802, ANN001
        self.save_descriptions()
        super().hideEvent(event)

    # -- keys -------------------------------------------------------------------------

    def _key_map(self) -> actions.KeyMap:
        return actions.KeyMap({
            "attributes.outfit.next_region": lambda: self.step_region(1),
            "attributes.outfit.previous_region": lambda: self.step_region(-1),
            "attributes.outfit.next_image": lambda: self.go(1),
            "attributes.outfit.previous_image": lambda: self.go(-1),
            "attributes.outfit.box": lambda: self.set_mode("box"),
            "attributes.outfit.polygon": lambda: self.set_mode("polygon"),
            "attributes.outfit.select": lambda: self.set_mode("select"),
            "attributes.outfit.category": lambda: self._focus(self.category),
            "attributes.outfit.region_attribute": lambda: self._focus(self.region_chips.entry),
            "attributes.outfit.outfit_attribute": lambda: self._focus(self.outfit_chips.entry),
            "attributes.outfit.accept_suggestions": lambda: self.review_suggestions("accepted"),
            "attributes.outfit.reject_suggestions": lambda: self.review_suggestions("rejected"),
            "attributes.outfit.attach": self.attach_to_garment_above,
            "attributes.outfit.delete": self.delete_region,
            "attributes.outfit.escape": self.canvas.setFocus,
        })

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        """The keys of ``attributes.outfit`` in the key map (widgets/actions.py)."""
        if not self._keys.handle(event):
            super().keyPressEvent(event)

    def _focus(self, widget: QWidget) -> None:
        widget.setFocus()
        if isinstance(widget, QLineEdit):
            widget.selectAll()
