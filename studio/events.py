"""A minimal observer, so Qt-free models can announce changes that views subscribe to.

This is the napari pattern (``model.events.x.connect(view.update)``) without Qt: the
core stays importable and testable with no event loop. As in napari's ``EventEmitter``:

- a bound method is held by a weak reference, so a view that is gone is not kept alive
  by the model it listened to, and its dead listener is dropped at the next emission;
  plain functions and lambdas are held strongly (nothing else would keep them alive);
- one listener's error does not stop the others: it goes to ``Event.error_hook`` (the
  GUI's error reporter installs itself there; by default it is logged).
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable
from types import MethodType
from typing import Any

Listener = Callable[..., Any]
ErrorHook = Callable[[BaseException, Listener], None]

log = logging.getLogger(__name__)


def _log_error(error: BaseException, listener: Listener) -> None:
    log.error("An event listener failed: %r", listener, exc_info=error)


class _Ref:
    """A listener as held: weakly for a bound method, strongly for anything else."""

    __slots__ = ("_strong", "_weak")

    def __init__(self, listener: Listener) -> None:
        self._weak: weakref.WeakMethod | None = None
        self._strong: Listener | None = None
        if isinstance(listener, MethodType):
            self._weak = weakref.WeakMethod(listener)
        else:
            self._strong = listener

    def get(self) -> Listener | None:
        return self._weak() if self._weak is not None else self._strong

    def matches(self, listener: Listener) -> bool:
        return self.get() == listener


class Event:
    """One kind of change; listeners are called in connection order with the payload."""

    error_hook: ErrorHook = staticmethod(_log_error)

    def __init__(self, on_connect: Callable[[], None] | None = None) -> None:
        self._listeners: list[_Ref] = []
        # called after each connect: a source that costs something to watch (another
        # process's commits) starts watching once somebody listens
        self._on_connect = on_connect

    def connect(self, listener: Listener) -> None:
        if not any(ref.matches(listener) for ref in self._listeners):
            self._listeners.append(_Ref(listener))
        if self._on_connect is not None:
            self._on_connect()

    def disconnect(self, listener: Listener) -> None:
        self._listeners = [ref for ref in self._listeners if not ref.matches(listener)]

    def __len__(self) -> int:
        """Listeners still alive (a test checks that closed views are dropped)."""
        return sum(ref.get() is not None for ref in self._listeners)

    def emit(self, *args: Any) -> None:
        dead = False
        for ref in list(self._listeners):
            listener = ref.get()
            if listener is None:
                dead = True
                continue
            try:
                listener(*args)
            except Exception as error:  # noqa: BLE001 (one listener never stops the rest)
                Event.error_hook(error, listener)
        if dead:
            self._listeners = [ref for ref in self._listeners if ref.get() is not None]
