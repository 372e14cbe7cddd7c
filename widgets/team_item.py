"""What every team view shares: ask the server for the item held (or the next one), ask
again when the server answers again, and say in one line why nothing came.

The attribute view and the rating view differ in what an item
is and how it is shown (``_got``); asking, the "offline" and refusal lines and, for the
leased kinds, holding the lease only while the view is on screen, are the same and
live here. A mixin, not a base widget: the views derive from different Qt classes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from studio.errors import StudioError
from studio.server.client import Offline

if TYPE_CHECKING:
    from widgets.team_connection import TeamConnection
    from widgets.team_lease import LeaseKeeper


class TeamItemAsker:
    connection: TeamConnection
    item: dict[str, Any] | None
    _asking: bool
    asking_text = ""  # shown while the first item is asked for ("" shows nothing)
    offline_text = "The team server does not answer."

    def next_request(self) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        """The client method that asks for this view's item, and its arguments."""
        raise NotImplementedError

    def say(self, text: str) -> None:
        """Show one line about the item (the view's info or message label)."""
        raise NotImplementedError

    def _got(self, item: dict[str, Any] | None) -> None:
        raise NotImplementedError

    def nothing_came(self) -> None:
        """No item and none held (offline or refused): the view's own clean-up."""

    def start(self) -> None:
        if self._asking or not self.connection.connected:
            return
        self._asking = True
        if self.item is None and self.asking_text:
            self.say(self.asking_text)
        method, args = self.next_request()
        self.connection.run(method, *args, done=self._answered_with, failed=self._not_got,
                            owner=self)

    def _answered_with(self, item: dict[str, Any] | None) -> None:
        self._asking = False
        self._got(item)

    def _not_got(self, error: BaseException) -> None:
        self._asking = False
        if self.item is not None:
            return  # still working on the item held
        if isinstance(error, Offline):
            self.say(self.offline_text)
        elif isinstance(error, StudioError):
            self.say(str(error))
        else:
            raise error
        self.nothing_came()

    def _on_back_online(self) -> None:
        if self.item is None and self.isVisible():
            self.start()


class LeasedItemView(TeamItemAsker):
    """A view whose items are leased: it holds a lease only while it is on screen."""

    lease: LeaseKeeper

    def restart(self) -> None:
        """Another connection (or person): what was asked of the last one is forgotten."""
        self._asking = False
        self.item = None
        if self.isVisible():
            self.start()  # else when it shows: a hidden view holds no lease

    def showEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """Shown again: ask what is held (the server renews that lease, or hands the next
        item if it ended meanwhile)."""
        super().showEvent(event)
        self.start()

    def hideEvent(self, event) -> None:  # noqa: N802 (Qt name)
        self.lease.pause()
        super().hideEvent(event)
