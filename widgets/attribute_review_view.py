"""Deciding attribute suggestions image by image, one view for both faces: bound to an
``AttributeReviewQueue``: the project open here (``LocalAttributeQueue``, the Attributes
pane's "Undecided, image by image" tab) or a team server (``RemoteAttributeQueue``, when an
annotator is connected).

The queue hands the next image with undecided suggestions; keys: A accepts and R rejects
the current attribute (Shift: every undecided one), Up/Down move, Enter keeps the image's
decisions (one edit) and brings the next image, Ctrl+K skips it (it comes back after the
others). The picture comes from the pane's ``ImagePictures`` (the project's files through
the thumbnail cache, or the team connection). A team server's image is held while on
screen (``LeaseKeeper`` through ``queue.hold()``); decisions wait in the client's outbox
while the server is away.

Every call to the queue runs through the ``QueueCalls`` the pane gives, one at a time in
the order made (``CallLine``), the answer applied here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, cast

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from studio.attributes.records import AttributeState, AttributeType
from studio.errors import StudioError
from studio.work_queue.attribute_protocol import (
    NO_DECISIONS,
    AttributeImage,
    AttributeReviewQueue,
    AttributesDecided,
)
from studio.work_queue.protocol import Progress
from studio.workspace import Workspace
from widgets import actions
from widgets.attribute_chips import AttributeChips
from widgets.elided_label import ElidedLabel, WrappedLabel
from widgets.queue_calls import CallLine, QueueCalls
from widgets.queue_form import LeaseWhileShown
from widgets.team_connection import TeamConnection
from widgets.team_lease import LeaseKeeper
from widgets.team_pictures import TeamPicture
from widgets.thumbnail_cache import ThumbnailCache

HINT = ("A accept · R reject (Shift: every undecided) · ↑/↓ move · Enter keep and next image "
        "· Ctrl+K skip (it comes back after the others)")
ASKING = "Asking for the next image with suggestions…"


class ImagePictures(Protocol):
    """Where the view's picture comes from: its widget, and the image to draw in it."""

    widget: QWidget

    def show(self, image_id: str | None) -> None:
        """Draw ``image_id`` (None: nothing)."""
        ...


@dataclass(frozen=True)
class Shown:
    """What the view shows after asking its queue: the image, the figures, why none."""

    item: AttributeImage | None
    progress: Progress
    why: str | None


def _next_of(queue: AttributeReviewQueue) -> Shown:
    """Worker lane: the queue's next image and what goes with it."""
    item = queue.take_next()
    return Shown(item, queue.progress(), queue.can("next"))


def _decide(queue: AttributeReviewQueue, decisions: dict[str, str]) -> tuple[
        AttributesDecided, Shown]:
    decided = queue.decide(decisions)
    return decided, Shown(queue.current, queue.progress(), queue.can("next"))


def _skip(queue: AttributeReviewQueue) -> Shown:
    item = queue.skip()
    return Shown(item, queue.progress(), queue.can("next"))


def outcome_line(decided: AttributesDecided) -> str:
    if decided.waiting:
        return (f"Image {decided.image_id}: decisions kept on this computer; sent when the "
                "server answers.")
    if decided.refused:
        return f"Image {decided.image_id}: the server did not take the decisions: " \
               f"{decided.refused}"
    return f"Image {decided.image_id}: decisions saved."


class AttributeReviewView(LeaseWhileShown, QWidget):
    labels_changed = Signal(str)  # image id whose decisions were kept

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("attribute_review")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.queue: AttributeReviewQueue | None = None
        self.calls: QueueCalls | None = None
        self.pictures: ImagePictures | None = None
        self.item: AttributeImage | None = None
        self.decisions: dict[str, str] = {}  # this image's, not yet kept
        self._line = CallLine()
        self._moving = False
        self._unsent: AttributesDecided | None = None
        self.info = ElidedLabel()
        self.picture_box = QVBoxLayout()
        self.chips = AttributeChips()
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.chips)
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.state = WrappedLabel()
        self.state.setWordWrap(True)
        hint = QLabel(HINT)
        hint.setStyleSheet("color: #6b7280; font-size: 11px;")
        hint.setWordWrap(True)
        row = QHBoxLayout()
        row.addLayout(self.picture_box, 1)
        row.addWidget(scroll, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.info)
        layout.addLayout(row, 1)
        layout.addWidget(self.state)
        layout.addWidget(hint)
        self.lease = LeaseKeeper(None, self.refresh, self, hold=self._hold)
        actions.bind(self, "attributes.team.skip", self.skip)
        self._keys = self._key_map()

    # -- the queue ---------------------------------------------------------------------

    def bind(self, queue: AttributeReviewQueue | None, calls: QueueCalls | None = None,
             pictures: ImagePictures | None = None) -> None:
        """Decide this queue's images from now on (None: nothing); its next is asked for."""
        self.lease.stop()
        self.queue, self.calls = queue, calls
        self._line.reset(calls)
        self._moving = False
        self._unsent = None
        if pictures is not self.pictures:
            if self.pictures is not None:
                self.pictures.widget.setParent(None)
            self.pictures = pictures
            if pictures is not None:
                self.picture_box.addWidget(pictures.widget)
        self._show(None)
        self.state.setText("")
        if queue is not None:
            self.info.setText(ASKING)
            if self.isVisible():
                self.refresh()  # else when it shows: a hidden view holds no lease

    def settled(self) -> bool:
        """No call to the queue is running or waiting."""
        return self._line.settled()

    def _call(self, function: Callable[..., Any], *args: Any, done: Callable[[Any], Any],
              failed: Callable[[BaseException], Any] | None = None) -> None:
        self._line.add(function, *args, done=done, failed=failed or self._failed)

    def _failed(self, error: BaseException) -> None:
        self._moving = False
        if isinstance(error, StudioError):
            self.state.setText(str(error))
            return
        self.state.setText(f"The attribute queue failed ({error}).")
        raise error  # unexpected: Qt hands it to the error reporter's hook

    def refresh(self) -> None:
        """Ask the queue for the image held, or the next."""
        queue = self.queue
        if queue is None:
            return
        self._call(_next_of, queue, done=self._took)

    def idle_refresh(self) -> None:
        """New suggestions, or the server answers again: with none on screen, ask."""
        if self.queue is not None and self.item is None and self.settled() and \
                self.isVisible():
            self.refresh()

    def check_waiting(self) -> None:
        """The server answered again: decisions that waited say the server's answer."""
        unsent, queue = self._unsent, self.queue
        if unsent is None or queue is None or queue.can("next") is not None:
            return

        def learnt(record: AttributesDecided) -> None:
            if self._unsent is unsent and not record.waiting:
                self._unsent = None
                if self.state.text() == outcome_line(unsent):
                    self.state.setText(outcome_line(record))

        self._call(queue.outcome, unsent, done=learnt, failed=lambda _error: None)

    def _hold(self, renewed: Callable[[float | None], Any],
              failed: Callable[[BaseException], Any]) -> None:
        """The lease keeper's renewal: ``queue.hold()`` on the queue's lane."""
        queue = self.queue
        if queue is None:
            return

        def held(item: AttributeImage | None) -> None:
            if item is not None and self.item is not None and \
                    item.image_id == self.item.image_id:
                self.item = item
                renewed(item.expires_at)
            else:  # the lease ended and the server holds another image (or none)
                self._took(Shown(item, Progress(0, 0), queue.can("next")), figures=False)

        self._call(queue.hold, done=held, failed=failed)

    # -- showing -----------------------------------------------------------------------

    def _took(self, shown: Shown, line: str = "", figures: bool = True) -> None:
        self._moving = False
        item = shown.item
        if item is not None and self.item is not None and item.image_id == self.item.image_id:
            self.item = item  # asked again: keep the decisions being made
            self.lease.keep(item)
            self._info(item, shown.progress if figures else None)
            return
        self._show(item)
        if item is None:
            self.info.setText(shown.why or "")
        else:
            self._info(item, shown.progress if figures else None)
        if line or item is None:
            self.state.setText(line)

    def _info(self, item: AttributeImage, progress: Progress | None) -> None:
        text = f"Image {item.image_id} · {item.position:,} of {item.queue_size:,}"
        if progress is not None:
            text += f" · {progress.done:,} decided, {progress.remaining:,} to decide"
        self.info.setText(text)

    def _show(self, item: AttributeImage | None) -> None:
        self.item = item
        self.decisions = {}
        self.lease.keep(item)
        self._draw()
        if self.pictures is not None:
            self.pictures.show(None if item is None else item.image_id)
        if item is not None:
            undecided = self.chips.names("suggested")  # in the order shown
            if undecided:
                self.chips.select(self.chips.names().index(undecided[0]))
            self.setFocus()

    def _states(self) -> list[AttributeState]:
        if self.item is None:
            return []
        return [AttributeState(0, s.attribute, cast(AttributeType, s.type),
                               self.decisions.get(s.attribute, s.status),  # type: ignore[arg-type]
                               (("model", "", s.score),) if s.score is not None else ())
                for s in self.item.suggestions]

    def _draw(self) -> None:
        self.chips.set_states(self._states(), keep=self.chips.current_name())

    # -- deciding ----------------------------------------------------------------------

    def decide(self, status: str, every: bool = False) -> None:
        if self.item is None or self._moving:
            return
        current = self.chips.current_name()
        if current is None:
            return
        names = self.chips.names("suggested") if every else [current]
        for name in names:
            self.decisions[name] = status
        self._draw()
        if not every:
            following = self.chips.next_undecided_after(current)
            if following is not None:
                self.chips.select(self.chips.names().index(following))

    def send_and_next(self) -> None:
        queue, item = self.queue, self.item
        if queue is None or item is None or self._moving:
            return
        if not self.decisions:
            self.state.setText(NO_DECISIONS)
            return
        self._moving = True
        decisions = dict(self.decisions)

        def kept(answer: tuple[AttributesDecided, Shown]) -> None:
            decided, shown = answer
            if decided.waiting:
                self._unsent = decided
            self.labels_changed.emit(decided.image_id)
            self._took(shown, outcome_line(decided))

        self._call(_decide, queue, decisions, done=kept)

    def skip(self) -> None:
        queue, item = self.queue, self.item
        if queue is None or item is None or self._moving:
            return
        why = queue.can("skip")
        if why is not None:
            self.state.setText(why)
            return
        self._moving = True
        self._call(_skip, queue,
                   done=lambda shown: self._took(shown, f"Image {item.image_id} skipped: it "
                                                        "comes back after the others."))

    def _key_map(self) -> actions.KeyMap:
        return actions.KeyMap({
            "attributes.team.accept": lambda: self.decide("accepted", False),
            "attributes.team.reject": lambda: self.decide("rejected", False),
            "attributes.team.accept_rest": lambda: self.decide("accepted", True),
            "attributes.team.reject_rest": lambda: self.decide("rejected", True),
            "attributes.team.next_attribute": lambda: self.chips.step(1),
            "attributes.team.previous_attribute": lambda: self.chips.step(-1),
            "attributes.team.send": self.send_and_next,
        })

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt name)
        """The keys of ``attributes.team`` in the key map (widgets/actions.py)."""
        if not self._keys.handle(event):
            super().keyPressEvent(event)



class LocalImagePicture:
    """The project's file of an image, decoded off the UI thread by the thumbnail cache."""

    SIZE = 360

    def __init__(self, workspace: Workspace, thumbnails: ThumbnailCache) -> None:
        self.workspace = workspace
        self.thumbnails = thumbnails
        self.widget = QLabel()
        self.widget.setFixedSize(self.SIZE, self.SIZE)
        self.widget.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.widget.setStyleSheet("background: #f3f4f6;")
        self._path: str | None = None
        thumbnails.ready.connect(self._ready)

    def show(self, image_id: str | None) -> None:
        project = self.workspace.project
        image = None if project is None or image_id is None else project.image(image_id)
        if project is None or image is None:
            self._path = None
            self.widget.clear()
            return
        path = project.image_file(image)  # None: its stored path leaves the image root
        self._path = str(path or "")
        self.widget.setPixmap(self.thumbnails.get(self._path, self.SIZE,
                                                  image.missing or path is None))

    def _ready(self, path: str, size: int) -> None:
        if path == self._path and size == self.SIZE:
            self.widget.setPixmap(self.thumbnails.cached(path, size))


class TeamImagePicture:
    """An image of the team server's, through the connection (its local copy or the
    server)."""

    def __init__(self, connection: TeamConnection) -> None:
        self.connection = connection
        self.widget = TeamPicture("Image")
        self._shown: str | None = None

    def show(self, image_id: str | None) -> None:
        self._shown = image_id
        if image_id is None:
            self.widget.say("")
            return
        self.widget.load(self.connection, image_id, lambda i=image_id: self._shown == i)
