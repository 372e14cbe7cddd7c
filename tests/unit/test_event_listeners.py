"""Event listeners: a closed view is not kept alive, and one failing view stops no other."""

from __future__ import annotations

import gc

from studio.events import Event


class View:
    def __init__(self) -> None:
        self.seen: list[int] = []

    def update(self, value: int) -> None:
        self.seen.append(value)

    def broken(self, value: int) -> None:
        raise ValueError(f"cannot draw {value}")


def test_a_view_that_is_gone_is_dropped_not_kept_alive() -> None:
    event = Event()
    view = View()
    event.connect(view.update)
    event.emit(1)
    assert view.seen == [1]
    del view
    gc.collect()
    event.emit(2)  # would raise or keep a dead view drawing if it were held strongly
    assert len(event) == 0


def test_one_failing_listener_does_not_stop_the_others(monkeypatch) -> None:
    event = Event()
    first, second = View(), View()
    reported: list[str] = []
    monkeypatch.setattr(Event, "error_hook", lambda error, _listener: reported.append(str(error)))
    event.connect(first.broken)
    event.connect(second.update)
    event.emit(3)
    assert second.seen == [3]
    assert reported == ["cannot draw 3"]


def test_functions_are_kept_and_disconnect_works_for_bound_methods() -> None:
    event = Event()
    seen: list[int] = []
    event.connect(lambda value: seen.append(value))  # nothing else holds it: kept strongly
    view = View()
    event.connect(view.update)
    event.connect(view.update)  # connecting twice calls once
    gc.collect()
    event.emit(4)
    event.disconnect(view.update)
    event.emit(5)
    assert seen == [4, 5] and view.seen == [4]
