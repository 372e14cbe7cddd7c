"""Review one image at a time: its picture and text, its chips, and keys for every action.

Keys: A accept and R reject the current chip (Shift: every undecided chip of the image),
U undo the last decision (wherever the cursor went since), Up/Down move between chips, J or → next image, K or ← previous,
N or / to add an attribute by typing (Enter adds it as accepted, Esc goes back).
After a decision the cursor moves to the next undecided chip, so reviewing an image is a
run of A and R presses. The picture is decoded off the UI thread by the shared
``ThumbnailCache`` (a placeholder shows meanwhile); the next image's is read ahead, so
stepping with J shows it at once.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCompleter,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from studio.attributes.labels import review
from studio.attributes.query import attribute_states
from studio.attributes.vocabulary import load_vocabulary
from studio.errors import StudioError
from studio.workspace import Workspace
from widgets import actions
from widgets.attribute_chips import AttributeChips
from widgets.elided_label import ElidedLabel, WrappedLabel
from widgets.thumbnail_cache import ThumbnailCache

IMAGE_SIZE = 360
HINT = ("A accept · R reject · Shift+A/R all undecided · U undo · ↑↓ chip · "
        "J/→ next · K/← previous · N add")


class SingleImageReview(QWidget):
    labels_changed = Signal(str)  # image id

    def __init__(
        self, workspace: Workspace, thumbnails: ThumbnailCache, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.thumbnails = thumbnails
        self.image_ids: list[str] = []
        self.index = -1
        self._picture_path: str | None = None  # the file shown, or awaited from the cache
        # Decisions of this session, last on top: (image id, {attribute: status before}).
        self.undo_stack: list[tuple[str, dict[str, str]]] = []
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

        self.picture = QLabel()
        self.picture.setFixedSize(IMAGE_SIZE, IMAGE_SIZE)
        self.picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.picture.setStyleSheet("background: #f3f4f6;")
        self.position = ElidedLabel()
        self.title = WrappedLabel()
        self.title.setObjectName("paneHeading")
        self.title.setWordWrap(True)
        self.description = QLabel()
        self.description.setWordWrap(True)
        self.chips = AttributeChips()
        self.chips_empty = QLabel(
            "No labels on this image yet. Press N to add one, or run “Extract from text” or "
            "“Suggest with model” above to label every image."
        )
        self.chips_empty.setObjectName("emptyStateDetail")
        self.chips_empty.setWordWrap(True)
        self.chips_empty.hide()
        self.add_box = QLineEdit()
        self.add_box.setPlaceholderText("Add an attribute (N): type to search the vocabulary")
        self.add_box.returnPressed.connect(self._add_typed)
        self.add_box.installEventFilter(self)
        self._keys = self._key_map()
        self._add_keys = actions.KeyMap({"attributes.image.leave_add": self._leave_add})
        self.message = WrappedLabel()
        self.message.setStyleSheet("color: #b91c1c;")
        hint = QLabel(HINT)
        hint.setStyleSheet("color: #6b7280;")
        hint.setWordWrap(True)  # two lines in a small window rather than a cut one

        left = QVBoxLayout()
        left.addWidget(self.picture)
        left.addWidget(self.position)
        left.addStretch(1)
        right = QVBoxLayout()
        right.addWidget(self.title)
        right.addWidget(self.description)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.chips)
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        right.addWidget(self.chips_empty)
        right.addWidget(scroll, 1)
        right.addWidget(self.add_box)
        right.addWidget(self.message)
        right.addWidget(hint)
        layout = QHBoxLayout(self)
        layout.addLayout(left)
        layout.addLayout(right, 1)
        thumbnails.ready.connect(self._on_picture)

    # -- data ------------------------------------------------------------------------

    def set_images(self, image_ids: list[str]) -> None:
        """Review these images, starting at the first (or staying on the current one)."""
        current = self.current_image()
        self.image_ids = list(image_ids)
        self.refresh_vocabulary()
        start = self.image_ids.index(current) if current in self.image_ids else 0
        self.show_index(start if self.image_ids else -1)

    def refresh_vocabulary(self) -> None:
        project = self.workspace.project
        names = [e.name for e in load_vocabulary(project)] if project else []
        completer = QCompleter(names, self.add_box)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.add_box.setCompleter(completer)

    def current_image(self) -> str | None:
        return self.image_ids[self.index] if 0 <= self.index < len(self.image_ids) else None

    def show_index(self, index: int, keep: str | None = None) -> None:
        project = self.workspace.project
        self.message.clear()
        if project is None or not self.image_ids or index < 0:
            self.index = -1
            self._picture_path = None
            self.picture.clear()
            self.title.setText("No images to review")
            self.description.clear()
            self.position.clear()
            self.chips.set_states([])
            self.chips_empty.hide()
            return
        self.index = max(0, min(index, len(self.image_ids) - 1))
        image = project.image(self.image_ids[self.index])
        if image is None:
            return
        self._read_ahead(self.index + 1)  # asked first: the cache decodes the last asked first
        path = project.image_file(image)  # None: its stored path leaves the image root
        self._picture_path = str(path or "")
        self.picture.setPixmap(
            self.thumbnails.get(self._picture_path, IMAGE_SIZE, image.missing or path is None)
        )
        self.position.setText(f"{image.id} · {image.category} · "
                              f"{self.index + 1:,} of {len(self.image_ids):,}")
        self.title.setText(image.title or image.id)
        self.description.setText(image.description)
        chips = attribute_states(project, image.id)
        self.chips.set_states(chips, keep=keep)
        self.chips_empty.setVisible(not chips)

    def _on_picture(self, path: str, size: int) -> None:
        if path == self._picture_path and size == IMAGE_SIZE:
            self.picture.setPixmap(self.thumbnails.cached(path, size))

    def _read_ahead(self, index: int) -> None:
        """Start decoding the picture J would show next."""
        project = self.workspace.project
        if project is None or not 0 <= index < len(self.image_ids):
            return
        image = project.image(self.image_ids[index])
        path = project.image_file(image) if image is not None and not image.missing else None
        if path is not None:
            self.thumbnails.get(path, IMAGE_SIZE)

    def step_image(self, delta: int) -> None:
        if self.image_ids:
            self.show_index((self.index + delta) % len(self.image_ids))

    # -- decisions -------------------------------------------------------------------

    def decide(self, status: str, everything_undecided: bool = False) -> None:
        project, image_id = self.workspace.project, self.current_image()
        current = self.chips.current_name()
        if project is None or image_id is None or current is None:
            return
        names = self.chips.names("suggested") if everything_undecided else [current]
        if not names:
            return
        before = {s.attribute: s.status for s in attribute_states(project, image_id)}
        try:
            review(project, self.workspace.user_name, image_id, names, status)
        except StudioError as error:
            self.message.setText(str(error))
            return
        self.undo_stack.append((image_id, {name: before.get(name, "suggested") for name in names}))
        self.show_index(self.index, keep=current)
        if status != "suggested" and not everything_undecided:
            following = self.chips.next_undecided_after(current)
            if following is not None:
                self.chips.select(self.chips.names().index(following))
        self.labels_changed.emit(image_id)

    def undo(self) -> None:
        """Take back the last decision: its image comes back with the chip selected."""
        project = self.workspace.project
        if project is None or not self.undo_stack:
            self.message.setText("Nothing to undo.")
            return
        image_id, before = self.undo_stack.pop()
        try:
            for status in dict.fromkeys(before.values()):
                names = [name for name, old in before.items() if old == status]
                review(project, self.workspace.user_name, image_id, names, status)
        except StudioError as error:
            self.message.setText(str(error))
            return
        if image_id in self.image_ids:
            self.show_index(self.image_ids.index(image_id), keep=next(iter(before)))
        self.message.setText(f"Undone: {', '.join(before)} on {image_id}.")
        self.labels_changed.emit(image_id)

    def add_attribute(self, name: str) -> bool:
        """Accept ``name`` on the current image (added as a person's label if new)."""
        project, image_id = self.workspace.project, self.current_image()
        if project is None or image_id is None or not name.strip():
            return False
        before = {s.attribute: s.status for s in attribute_states(project, image_id)}
        try:
            review(project, self.workspace.user_name, image_id, [name.strip()], "accepted")
        except StudioError as error:
            self.message.setText(str(error))
            return False
        self.undo_stack.append((image_id, {name.strip(): before.get(name.strip(), "suggested")}))
        self.show_index(self.index, keep=name.strip())
        self.labels_changed.emit(image_id)
        return True

    def _add_typed(self) -> None:
        if self.add_attribute(self.add_box.text()):
            self.add_box.clear()
            self.setFocus()

    # -- keys ------------------------------------------------------------------------

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt name)
        if (watched is self.add_box and event.type() == event.Type.KeyPress
                and self._add_keys.handle(event)):
            return True
        return super().eventFilter(watched, event)

    def _key_map(self) -> actions.KeyMap:
        return actions.KeyMap({
            "attributes.image.accept": lambda: self.decide("accepted"),
            "attributes.image.reject": lambda: self.decide("rejected"),
            "attributes.image.accept_rest": lambda: self.decide(
                "accepted", everything_undecided=True),
            "attributes.image.reject_rest": lambda: self.decide(
                "rejected", everything_undecided=True),
            "attributes.image.undo": self.undo,
            "attributes.image.next_image": lambda: self.step_image(1),
            "attributes.image.previous_image": lambda: self.step_image(-1),
            "attributes.image.next_attribute": lambda: self.chips.step(1),
            "attributes.image.previous_attribute": lambda: self.chips.step(-1),
            "attributes.image.add": self.add_box.setFocus,
        })

    def _leave_add(self) -> None:
        self.add_box.clear()
        self.setFocus()

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """The keys of ``attributes.image`` in the key map (widgets/actions.py)."""
        if not self._keys.handle(event):
            super().keyPressEvent(event)

    def focusNextPrevChild(self, next: bool) -> bool:  # noqa: N802, A002 (Qt name)
        """Tab moves between chips while the review has focus, not between widgets."""
        if self.hasFocus():
            self.chips.step(1 if next else -1)
            return True
        return super().focusNextPrevChild(next)
