"""Where the rating view gets a turn's pictures: the project open here or a team server.

A ``RatingCard`` names its images by id only (blind, the same from either queue); a
picture source turns one of its turns into a strip to show, reference → text → target.
``LocalPictures`` draws the project's files (``TurnStrip``, with the images' captions);
``TeamTurnPictures`` asks the team connection for them (``TeamPictures``: a local copy of
the image root, else the server, read on the net lane).
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Protocol

from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from studio.quality.ratings import ImageView, TurnView
from studio.work_queue.local_rating import LocalRatingQueue
from studio.work_queue.rating_protocol import RatingTurn
from widgets.team_connection import TeamConnection
from widgets.team_pictures import TeamPictures
from widgets.turn_strip import TurnStrip


class PictureSource(Protocol):
    def strip(self, turn: RatingTurn, compact: bool, size: int | None = None) -> QWidget:
        """One turn as a rater sees it; ``compact`` for an earlier turn."""
        ...


class LocalPictures:
    """The pictures of the item a ``LocalRatingQueue`` holds, from the project's files."""

    def __init__(self, queue: LocalRatingQueue) -> None:
        self.queue = queue

    def _image(self, image_id: str) -> ImageView:
        return self.queue.image(image_id) or ImageView(image_id, Path())

    def strip(self, turn: RatingTurn, compact: bool, size: int | None = None) -> QWidget:
        view = TurnView(turn.index, self._image(turn.reference_id),
                        self._image(turn.target_id), turn.text)
        return TurnStrip(view, compact=compact, size=size)


def turn_line(turn: RatingTurn, bold: bool = False) -> str:
    text = html.escape(turn.text)
    return f"Turn {turn.index}: " + (f"<b>{text}</b>" if bold else text)


class TeamTurn(QWidget):
    """One turn from a team server: its number and text beside its two pictures."""

    def __init__(self, connection: TeamConnection, turn: RatingTurn, compact: bool,
                 size: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.heading = QLabel(turn_line(turn, bold=not compact))
        self.heading.setWordWrap(True)
        self.pictures = TeamPictures(connection, size=size, headings=("Reference", "Target"))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.heading, 1)
        layout.addWidget(self.pictures, 2)
        self.pictures.show_item({"reference_id": turn.reference_id,
                                 "target_id": turn.target_id})


class TeamTurnPictures:
    """The pictures of a team server's rating item, through the connection."""

    EARLIER = 120  # the pictures of an earlier turn

    def __init__(self, connection: TeamConnection) -> None:
        self.connection = connection

    def strip(self, turn: RatingTurn, compact: bool, size: int | None = None) -> QWidget:
        return TeamTurn(self.connection, turn, compact,
                        self.EARLIER if compact else size or 240)
