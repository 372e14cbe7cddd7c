"""What every team-server queue shares: a ``Client`` with its outbox behind one of the
queue interfaces, whatever the items are (pairs to caption, captions to review).

The item on screen, the one before it (to step back from "all done"), what the last call
to the server learnt (``online``), the last figures it gave; asking for the next item,
Previous / Next, renewing the lease, letting it go, and learning later what became of an
edit that waited in the outbox. A subclass names the client's calls for its items and
turns the server's answers into its item records; the edits (drafts, decisions, skips)
and what can be taken back are its own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from studio.errors import StudioError
from studio.server.client import Client, Offline
from studio.work_queue.protocol import Progress

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

# Items and the records of edits are frozen dataclasses: a renewed lease or a late answer
# is a copy with that field changed.
Item = TypeVar("Item", bound="DataclassInstance")
Outcome = TypeVar("Outcome", bound="DataclassInstance")


def refusal(answer: tuple[int, Any]) -> str | None:
    """The server's words when it refused an edit; None: it was applied."""
    if answer[0] < 300:
        return None
    body = answer[1]
    return str(body.get("error") if isinstance(body, dict) else body)


class RemoteQueue(Generic[Item]):
    """A team server's queue of ``Item``; see the module's docstring."""

    # What needs the server now, with the line said when it does not answer.
    OFFLINE: Mapping[str, str] = {}
    NO_ITEM = ""  # said for the actions below when nothing is on screen
    NEEDS_ITEM: tuple[str, ...] = ()
    UNDO = ""  # the action that takes an edit back, and what is said when none can be
    NOTHING_TO_UNDO = ""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.online = True  # what the last call to the server learnt
        self._current: Item | None = None
        self._last: int | None = None  # the item before, to step back from "all done"
        self._progress = Progress(0, 0)

    # -- what a subclass names ---------------------------------------------------------

    def _item(self, answer: dict[str, Any] | None) -> Item | None:
        """The server's answer as an item record."""
        raise NotImplementedError

    def _key(self, item: Item) -> int:
        """The item's id, as the server's routes name it."""
        raise NotImplementedError

    def _next(self) -> dict[str, Any] | None:
        """The item held, else the next one with a new lease."""
        raise NotImplementedError

    def _step_from(self, here: int, forward: bool) -> dict[str, Any] | None:
        """Previous or next from item ``here``, held."""
        raise NotImplementedError

    def _back_to(self, last: int) -> dict[str, Any] | None:
        """From "all done" back to the item before, held."""
        raise NotImplementedError

    def _figures(self) -> dict[str, int]:
        """This person's figures: done and remaining."""
        raise NotImplementedError

    def _undoable(self) -> int:
        """How many edits of this session can be taken back."""
        raise NotImplementedError

    # -- reading -----------------------------------------------------------------------

    @property
    def current(self) -> Item | None:
        return self._current

    def can(self, action: str) -> str | None:
        if action == self.UNDO and not self._undoable():
            return self.NOTHING_TO_UNDO
        if not self.online and action in self.OFFLINE:
            return self.OFFLINE[action]
        if action in self.NEEDS_ITEM and self._current is None:
            return self.NO_ITEM
        return None

    # -- the server's answers ----------------------------------------------------------

    def _ask(self, call: Callable[..., Any], *args: Any) -> Any:
        """One call that needs the server; ``Offline`` is remembered and raised."""
        try:
            answer = call(*args)
        except Offline:
            self.online = False
            raise
        self.online = True
        return answer

    def _sent(self, uid: str) -> tuple[int, Any] | None:
        """The answer to an edit just kept (None: it waits in the outbox)."""
        answer = self.client.answer(uid)
        self.online = answer is not None
        return answer

    def _go(self, item: Item | None) -> Item | None:
        if self._current is not None:
            self._last = self._key(self._current)
        self._current = item
        return item

    def _move_on(self) -> Item | None:
        """After an edit that finishes the item: the next one, when the server can hand
        it."""
        self._go(None)
        try:
            return self._go(self._item(self._ask(self._next)))
        except Offline:
            return None

    def _outcome(self, record: Outcome) -> Outcome:
        """What became of an edit that waited (a ``Submitted`` or ``Decided``): the same
        record while it still waits, else with the server's answer."""
        receipt = getattr(record, "receipt", None)
        if not getattr(record, "waiting", False) or receipt is None:
            return record
        answer = self.client.answer(receipt)
        if answer is None:
            return record
        return replace(record, waiting=False, refused=refusal(answer))

    # -- moving ------------------------------------------------------------------------

    def progress(self) -> Progress:
        try:
            figures = self._ask(self._figures)
        except Offline:
            return self._progress
        self._progress = Progress(int(figures["done"]), int(figures["remaining"]))
        return self._progress

    def take_next(self) -> Item | None:
        try:
            item = self._item(self._ask(self._next))
        except Offline:
            return self._current
        if self._current is None or item is None or self._key(item) != self._key(self._current):
            return self._go(item)
        self._current = item
        return item

    def step(self, forward: bool) -> Item | None:
        try:
            if self._current is not None:
                answer = self._ask(self._step_from, self._key(self._current), forward)
            elif forward or self._last is None:
                return self.take_next()
            else:  # all done: back to the item before
                answer = self._ask(self._back_to, self._last)
        except Offline:
            return self._current
        item = self._item(answer)
        return self._go(item) if item is not None else self._current

    def hold(self) -> Item | None:
        item = self._current
        lease_id = getattr(item, "lease_id", None)
        if item is None or lease_id is None:
            return item
        try:
            lease = self._ask(Client.renew, self.client, lease_id)
        except Offline:
            return item
        except StudioError:  # the lease expired meanwhile: the server says what is held
            return self.take_next()
        self._current = replace(item, expires_at=lease["expires_at"])
        return self._current

    def _skip_leased(self) -> Item | None:
        """Skip a leased item: the server lets it go and hands it back after the others
        (not kept for later offline: the skip is what frees it for someone else). None
        when nothing is on screen; the item skipped otherwise."""
        item = self._current
        lease_id = getattr(item, "lease_id", None)
        if lease_id is not None:
            try:
                self._ask(self.client.skip, lease_id)
            except Offline:
                raise StudioError(self.OFFLINE["skip"]) from None
        return item

    def release(self) -> None:
        """Stop holding the current item: its lease is no longer renewed and expires (the
        server has no "give back without skipping" of its own; a lease's end is that)."""
        self._go(None)
