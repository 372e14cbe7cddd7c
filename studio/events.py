"""A minimal observer, so Qt-free models can announce changes that views subscribe to.

This is the napari pattern (``model.events.x.connect(view.update)``) without Qt: the
core stays importable and testable with no event loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Listener = Callable[..., Any]


class Event:
    """One kind of change; listeners are called in connection order with the payload."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []

    def connect(self, listener: Listener) -> None:
        if listener not in self._listeners:
            self._listeners.append(listener)

    def disconnect(self, listener: Listener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def emit(self, *args: Any) -> None:
        for listener in list(self._listeners):
            listener(*args)
