"""Keeping a team-server lease alive while its item is on screen.

The server hands out an item with a lease that expires unless renewed (so an item a
person walked away from goes back to the queue). ``LeaseKeeper`` renews it a third of the
way to its end (at most every minute, at least every 5 s) on the net lane. Offline it
just tries again later: the person keeps working and the edits wait in the outbox. A
lease the server no longer knows (it expired, or was released elsewhere) calls ``lost``,
and the view asks the server what it holds now. A hidden view pauses its lease: a
person deciding attributes does not keep a pair from the captions queue.

The caption writer and reviewer renew through their queues (``hold``: ``WorkQueue.hold()`` on the
queue's lane, which answers the lease's new end, or None when the item is no longer
held); the other team views renew the lease by its id.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer

from studio.server.client import Client, Offline
from widgets.team_connection import TeamConnection

RENEW_MIN_S, RENEW_MAX_S = 5.0, 60.0
# hold(renewed(expires_at or None), failed(error)): renew the lease of the item held
Hold = Callable[[Callable[[float | None], Any], Callable[[BaseException], Any]], Any]


class LeaseKeeper(QObject):
    def __init__(self, connection: TeamConnection | None, lost: Callable[[], Any],
                 parent: QObject | None = None, hold: Hold | None = None) -> None:
        super().__init__(parent)
        self.connection = connection
        self.lost = lost
        self.hold = hold
        self.item: Any = None  # a dict, or a queue's item record
        self._expires_at = 0.0
        self._timer = QTimer(self, singleShot=True)
        self._timer.timeout.connect(self._renew)

    def keep(self, item: Any) -> None:
        """Renew this item's lease from now on (None, or an item without a lease: nothing
        to renew). An item is the server's answer (a dict) or a queue's record (with
        ``lease_id`` and ``expires_at``)."""
        if item is not None and not isinstance(item, dict) and item.lease_id is None:
            item = None
        self.item = item
        if isinstance(item, dict):
            self._expires_at = float(item.get("expires_at", 0))
        elif item is not None:
            self._expires_at = float(item.expires_at or 0)
        self._schedule()

    def stop(self) -> None:
        self.item = None
        self._timer.stop()

    def pause(self) -> None:
        """The view went out of sight: stop renewing, so an item nobody looks at goes back
        to the queue when its lease ends (the view asks again when it shows)."""
        self._timer.stop()

    def _schedule(self) -> None:
        if self.item is None:
            self._timer.stop()
            return
        left = self._expires_at - time.time()
        self._timer.start(int(1000 * max(RENEW_MIN_S, min(RENEW_MAX_S, left / 3))))

    def _renew(self) -> None:
        item = self.item
        if item is None:
            return

        def renewed(expires_at: float | None) -> None:
            if self.item is not item:
                return
            if expires_at is None:  # no longer held: the view asks what is held now
                self.stop()
                self.lost()
                return
            self._expires_at = float(expires_at)
            if isinstance(item, dict):
                item["expires_at"] = self._expires_at
            self._schedule()

        def not_renewed(error: BaseException) -> None:
            if self.item is not item:
                return
            if isinstance(error, Offline):
                self._schedule()  # keep working; try again later
            else:
                self.stop()
                self.lost()

        if self.hold is not None:
            self.hold(renewed, not_renewed)
        elif self.connection is not None and isinstance(item, dict):
            self.connection.run(
                Client.renew, int(item["lease_id"]),
                done=lambda answer: renewed(answer.get("expires_at", self._expires_at)),
                failed=not_renewed, owner=self)


def same_item(held: dict[str, Any] | None, answer: dict[str, Any] | None, key: str) -> bool:
    """The server handed back the item already on screen (asked again after a pause)."""
    return held is not None and answer is not None and held.get(key) == answer.get(key)
