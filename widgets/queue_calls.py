"""Where a work queue's calls run, and the line that runs them one at a time.

The caption writer, reviewer and rating view call their queue (``studio.work_queue``)
through a ``QueueCalls`` the pane gives: the services' IO lane for a project (``at_once``
for the rating queue, whose calls are a row each), the team connection's net lane for a
server. ``CallLine`` runs those calls one at a time, in the order made,
and applies each answer on the UI thread (where the lane's ``done`` runs); answers meant
for a queue bound before are dropped. It makes no thread of its own.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class QueueCalls:
    """Where a queue's calls run. ``run(function, *args, done=..., failed=...)`` on a
    worker lane, the answer applied on the UI thread (returns its future, None when it
    cannot run); ``run_now(function, *args)`` waited for here (closing, leaving a mode)."""

    run: Callable[..., Future | None]
    run_now: Callable[..., Any]
    # The first item asked for here, at once (a project answers in milliseconds): keys
    # typed right after a project opens then reach an item instead of a disabled editor.
    first_at_once: bool = False


@dataclass
class Call:
    function: Callable[..., Any]
    args: tuple[Any, ...]
    done: Callable[[Any], Any]
    failed: Callable[[BaseException], Any]
    save_of: int | None = None  # a draft save of this pair (a newer one replaces it)


class CallLine:
    """A queue's calls, one at a time on ``calls``' lane."""

    def __init__(self) -> None:
        self.calls: QueueCalls | None = None
        self.waiting: deque[Call] = deque()
        self.busy = False
        self.in_flight: Future | None = None
        self._generation = 0

    def reset(self, calls: QueueCalls | None) -> None:
        """Run on ``calls`` from now on; what waited, or runs, for the last is dropped."""
        self.calls = calls
        self._generation += 1
        self.waiting.clear()
        self.busy, self.in_flight = False, None

    def settled(self) -> bool:
        """No call is running or waiting."""
        return not self.busy and not self.waiting

    def add(self, function: Callable[..., Any], *args: Any, done: Callable[[Any], Any],
            failed: Callable[[BaseException], Any], save_of: int | None = None) -> None:
        """Run ``function(*args)`` after the calls before it; a draft save of a pair
        replaces the one of the same pair still waiting."""
        if save_of is not None and self.waiting and self.waiting[-1].save_of == save_of:
            self.waiting.pop()
        self.waiting.append(Call(function, args, done, failed, save_of))
        self._next()

    def drop_saves(self, pair_id: int | None = None) -> bool:
        """Drop the draft saves waiting last (of ``pair_id``, or of any pair); whether any
        was dropped."""
        dropped = False
        while self.waiting and self.waiting[-1].save_of is not None and (
                pair_id is None or self.waiting[-1].save_of == pair_id):
            self.waiting.pop()
            dropped = True
        return dropped

    def _next(self) -> None:
        if self.busy or not self.waiting or self.calls is None:
            return
        call = self.waiting.popleft()
        generation = self._generation
        self.busy = True

        def finished(apply: Callable[[Any], Any], value: Any) -> None:
            if generation != self._generation:
                return
            self.busy, self.in_flight = False, None
            try:
                apply(value)
            finally:
                self._next()

        self.in_flight = self.calls.run(
            call.function, *call.args,
            done=lambda value: finished(call.done, value),
            failed=lambda error: finished(call.failed, error),
        )
        if self.in_flight is None:  # nothing to run it on (disconnected)
            self.busy = False
            self.waiting.clear()


def at_once() -> QueueCalls:
    """Calls run here, now, on the UI thread: for a queue whose every call is a few
    milliseconds of the project open here (the rating queue: one row read or written)."""

    def run(function: Callable[..., Any], *args: Any, done: Callable[[Any], Any],
            failed: Callable[[BaseException], Any]) -> Future:
        future: Future = Future()
        try:
            value = function(*args)
        except Exception as error:  # noqa: BLE001 (``failed`` says it or raises it on)
            future.set_exception(error)
            failed(error)
            return future
        future.set_result(value)
        done(value)
        return future

    return QueueCalls(run, lambda function, *args: function(*args), first_at_once=True)
