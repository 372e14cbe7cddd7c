"""The UI-thread collector: threshold collections skip the frozen long-lived heap, and
garbage frozen with it is still freed at the next pause (a project opened or closed)."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

from PySide6.QtCore import Qt


class _Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the cyclic collector frees it


def test_frozen_cycles_wait_for_the_next_full_collection(services) -> None:
    collector = services.collector
    assert not gc.isenabled()  # workers never collect: the UI thread does
    node = _Node()
    alive = weakref.ref(node)
    collector.freeze()  # e.g. right after a ranker loaded
    assert gc.get_freeze_count() > 0
    del node
    gc.collect(2)  # a threshold collection while someone types: the frozen heap is skipped
    assert alive() is not None
    collector.collect_all()
    assert alive() is None
    assert gc.get_freeze_count() > 0  # the survivors are frozen again


def test_opening_and_closing_a_project_is_when_the_whole_heap_is_collected(
    services, demo_project_dir: Path
) -> None:
    collector = services.collector
    node = _Node()
    alive = weakref.ref(node)
    collector.freeze()
    del node
    before = collector.full_collections
    services.workspace.open_project(demo_project_dir)
    assert collector.full_collections == before + 1
    assert alive() is None
    services.workspace.close_project()
    assert collector.full_collections == before + 2


def test_leaving_the_window_collects_everything(services, qapp) -> None:
    collector = services.collector
    before = collector.full_collections
    collector._state_changed(Qt.ApplicationState.ApplicationInactive)
    assert collector.full_collections == before + 1
    collector._state_changed(Qt.ApplicationState.ApplicationActive)
    assert collector.full_collections == before + 1
