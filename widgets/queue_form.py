"""A caption form bound to a work queue (``studio.work_queue``): what the caption writer and
the caption reviewer share beyond the form itself.

Binding a queue and the lane its calls run on (``QueueCalls``), one call at a time in the
order made (``CallLine``), each answer applied here on the UI thread; the item held or the
next one (the first at once for a project); the lease kept while the item is on screen
(``LeaseKeeper``, through ``queue.hold()``); showing an item or why there is none
(``queue.can("next")``); Previous/Next; moving on after an edit, with its line; an edit
that waited in the outbox saying the server's answer once it answers; asking again when
shown or when the server answers. A subclass names what it shows of an item and what its
edits are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Signal

from studio.errors import StudioError
from widgets.caption_form import CaptionForm
from widgets.queue_calls import CallLine, QueueCalls
from widgets.team_lease import LeaseKeeper


class LeaseWhileShown:
    """A queue's view holds its item's lease only while on screen: shown again, it asks
    what is held (a team server renews that lease, or hands the next item if it ended
    meanwhile); out of sight, the lease is no longer renewed. Mixed in before the Qt
    class (``queue``, ``lease``, ``_moving`` and ``refresh`` are the view's)."""

    queue: Any
    lease: LeaseKeeper
    _moving: bool

    def refresh(self) -> None:
        raise NotImplementedError

    def showEvent(self, event) -> None:  # noqa: N802 (Qt name)
        super().showEvent(event)  # type: ignore[misc]
        if self.queue is not None and not self._moving:
            self.refresh()

    def hideEvent(self, event) -> None:  # noqa: N802 (Qt name)
        self.lease.pause()
        super().hideEvent(event)  # type: ignore[misc]


class QueueForm(LeaseWhileShown, CaptionForm):
    """Base of ``CaptionWriter`` and ``CaptionReviewer``: a ``CaptionForm`` on a queue."""

    item_changed = Signal(object)  # the item on screen, or None

    ASKING = ""  # said while the first item is asked for
    ALL_DONE = ""  # said when the queue has nothing and says no reason

    def __init__(self, *form: Any) -> None:
        """``form``: the ``CaptionForm``'s arguments (its key context, buttons, slots, hint,
        reason prompt and parent)."""
        super().__init__(*form)
        self.queue: Any = None
        self.calls: QueueCalls | None = None
        self.item: Any = None  # the item on screen
        self.lease = LeaseKeeper(None, self.refresh, self, hold=self._hold)
        self._line = CallLine()  # the queue's calls, one at a time on its lane
        self._moving = False  # an edit or a step is on its way
        self._unsent: tuple[Any, str] | None = None  # an edit that waits, and its line
        self._checking = False  # its outcome is being asked

    # -- what a subclass names ---------------------------------------------------------

    def _key(self, item: Any) -> int:
        """Which item it is (two answers about one item have the same key)."""
        raise NotImplementedError

    def _fill(self, item: Any) -> None:
        """Show ``item`` (the editor is enabled, its text not yet set)."""
        raise NotImplementedError

    def _clear(self) -> None:
        """Show that no item is on screen, beyond the editor and the lines."""

    def _note(self, item: Any) -> str:
        """The state line of an item just shown."""
        return ""

    def _outcome(self, record: Any) -> str:
        """What became of an edit (a submission, a decision), in one line."""
        raise NotImplementedError

    def _before_move(self) -> None:
        """Before a step or an edit that leaves the item (the writer saves what is typed)."""

    # -- the queue ---------------------------------------------------------------------

    def settled(self) -> bool:
        """No call to the queue is running or waiting (what is shown is its last answer)."""
        return self._line.settled()

    def bind(self, queue: Any, calls: QueueCalls | None = None) -> None:
        """Work on this queue from now on (None: nothing); its first item is asked for."""
        self.lease.stop()
        self.queue, self.calls = queue, calls
        self._line.reset(calls)
        self._moving = self._checking = False
        self._unsent = None
        self._show(None, say="" if queue is None else self.ASKING)
        if queue is not None and self.isVisible():
            self.refresh()  # else when it shows: a hidden form holds no lease

    def _call(self, function: Callable[..., Any], *args: Any, done: Callable[[Any], Any],
              failed: Callable[[BaseException], Any] | None = None,
              save_of: int | None = None) -> None:
        """Run ``function(*args)`` on the queue's lane after the calls before it."""
        self._line.add(function, *args, done=done, failed=failed or self._failed,
                       save_of=save_of)

    def _failed(self, error: BaseException) -> None:
        raise NotImplementedError

    def refresh(self) -> None:
        """Ask the queue for the item held, or the next (when none is on screen: after the
        server answers again, or new items came)."""
        queue, calls = self.queue, self.calls
        if queue is None:
            return
        if (self.item is None and calls is not None and calls.first_at_once
                and self.settled()):
            try:
                item = calls.run_now(queue.take_next)
            except StudioError as error:
                self._failed(error)
                return
            self._took(item)
            return
        self._call(queue.take_next, done=self._took)

    def _same(self, item: Any) -> bool:
        """Whether ``item`` is the one on screen."""
        return item is not None and self.item is not None and self._key(item) == self._key(
            self.item)

    def _took(self, item: Any) -> None:
        if self._same(item):
            self.item = item  # asked again: the lease, not the text being edited, is news
            self.lease.keep(item)
            return
        self._show(item, keep_line=self.item is None)

    def _hold(self, renewed: Callable[[float | None], Any],
              failed: Callable[[BaseException], Any]) -> None:
        """The lease keeper's renewal: ``queue.hold()`` on the queue's lane."""
        queue = self.queue
        if queue is None:
            return

        def held(item: Any) -> None:
            if self._same(item):
                self.item = item
                renewed(item.expires_at)
            else:  # the lease ended and the server holds another item (or none)
                self._show(item)

        self._call(queue.hold, done=held, failed=failed)

    # -- showing -----------------------------------------------------------------------

    def _show(self, item: Any, keep_line: bool = False, say: str | None = None) -> None:
        self.item = item
        self.reason.hide()
        self.lease.keep(item)
        self._moving = False
        if item is None:
            queue = self.queue
            why = queue.can("next") if queue is not None else None
            self.info.setText(say if say is not None else why or self.ALL_DONE)
            self.editor.clear()
            self.editor.setEnabled(False)
            self._clear()
            if not keep_line:
                self.state.setText("")
            self.pair_changed.emit(None)
            self.item_changed.emit(None)
            return
        self.editor.setEnabled(True)
        self._fill(item)
        note = self._note(item)
        if note or not keep_line:
            self.state.setText(note)
        self.editor.setFocus()
        self.pair_changed.emit(item.pair_id)
        self.item_changed.emit(item)

    def show_again(self) -> None:
        """Redraw the item's pair (the pane's shared pictures)."""
        self.pair_changed.emit(None if self.item is None else self.item.pair_id)

    # -- moving ------------------------------------------------------------------------

    def _refused(self, action: Any) -> bool:
        """Say in one line why the queue cannot do ``action`` now."""
        why = self.queue.can(action) if self.queue is not None else None
        if why is not None:
            self.state.setText(why)
        return why is not None

    def _go(self, function: Callable[..., Any], *args: Any, done: Callable[[Any], Any],
            failed: Callable[[BaseException], Any] | None = None) -> None:
        """Leave the item on screen through ``function(*args)``; ``done`` shows where."""
        self._before_move()
        self._moving = True
        self.editor.setEnabled(False)
        self._call(function, *args, done=done, failed=failed or self._not_done)

    def _not_done(self, error: BaseException) -> None:
        """Refused at once: the item stays."""
        self._moving = False
        if self.item is not None:
            self.editor.setEnabled(True)
            self.editor.setFocus()
        self._failed(error)

    def _moved(self, item: Any, line: str) -> None:
        self._show(item)
        note = self.state.text()
        self.state.setText(line + (f" · {note}" if note else ""))

    def _finished(self, record: Any, changed: Any) -> None:
        """An edit that finishes the item was kept (or waits): say so, emit ``changed``
        and show the queue's next item."""
        line = self._outcome(record)
        if record.waiting:
            self._unsent = (record, line)
        changed.emit()
        self._moved(self.queue.current if self.queue is not None else None, line)

    def step(self, forward: bool) -> None:
        queue = self.queue
        if queue is None or self._moving or self._refused("previous"):
            return
        before = None if self.item is None else self._key(self.item)

        def stepped(item: Any) -> None:
            if item is None or self._key(item) != before:
                self._show(item)
                return
            self._moving = False
            self.editor.setEnabled(True)
            self._refused("previous")  # it could not ask: say why

        self._go(queue.step, forward, done=stepped)

    # -- the server answers again ------------------------------------------------------

    def check_waiting(self) -> None:
        """The server answered again: an edit that waited says the server's answer
        instead, unless something newer was said meanwhile."""
        unsent, queue = self._unsent, self.queue
        if unsent is None or queue is None or self._checking or queue.can("previous"):
            return
        self._checking = True  # one question at a time, however often the connection says

        def learnt(record: Any) -> None:
            self._checking = False
            if self._unsent is not unsent or record.waiting:
                return
            self._unsent = None
            if self.state.text().startswith(unsent[1]):
                self.state.setText(self._outcome(record))

        def not_learnt(_error: BaseException) -> None:
            self._checking = False  # asked again the next time the connection hears

        self._call(queue.outcome, unsent[0], done=learnt, failed=not_learnt)

    def idle_refresh(self) -> None:
        """New items, or the server answers again: with none on screen, ask for one."""
        if self.item is None and self.isVisible() and not self._moving:
            self.refresh()

