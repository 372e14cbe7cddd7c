"""The UI-thread collector: no whole-heap scan while the person types, and garbage among
the frozen survivors is still freed once the person is idle."""

from __future__ import annotations

import gc
import time
import weakref

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from widgets import ui_gc


class _Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the cyclic collector frees it


def test_no_full_collection_while_typing_then_one_when_idle(services, qtbot) -> None:
    collector = services.collector
    editor = QLineEdit()
    qtbot.addWidget(editor)
    editor.show()
    collector.last_full = float("-inf")  # a full collection is due
    qtbot.keyClick(editor, Qt.Key.Key_A)  # the person is typing
    before = collector.full_collections
    collector.check()
    assert collector.full_collections == before
    assert not gc.isenabled()  # workers never collect: the UI thread does
    collector.last_input = time.monotonic() - ui_gc.IDLE_S - 0.1  # idle since
    collector.check()
    assert collector.full_collections == before + 1
    assert gc.get_freeze_count() > 0  # the survivors are skipped by the next collections


def test_cycles_frozen_while_alive_are_freed_at_the_next_idle_collection(services) -> None:
    collector = services.collector
    node = _Node()
    alive = weakref.ref(node)
    collector.collect_all()  # node survives and is frozen
    del node
    gc.collect(2)  # a threshold collection while typing: the frozen cycle is not scanned
    assert alive() is not None
    collector.last_input = time.monotonic() - ui_gc.IDLE_S - 0.1
    collector.last_full = float("-inf")
    collector.check()
    assert alive() is None
