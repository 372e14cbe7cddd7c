"""The UI-thread collector: threshold collections skip generation 2 and the frozen
long-lived heap, and garbage kept there is still freed at the next pause (a project
closed, the window left)."""

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


def test_closing_a_project_collects_the_whole_heap_and_opening_one_does_not(
    services, demo_project_dir: Path
) -> None:
    collector = services.collector
    node = _Node()
    alive = weakref.ref(node)
    collector.freeze()
    del node
    before = collector.full_collections
    services.workspace.open_project(demo_project_dir)  # the person types at once: no pause
    assert collector.full_collections == before
    assert alive() is not None
    services.workspace.close_project()
    assert collector.full_collections == before + 1
    assert alive() is None


def test_threshold_checks_never_scan_generation_two_and_freeze_a_bulk_load(services) -> None:
    from widgets.ui_gc import BULK_YOUNG

    collector = services.collector
    collector.collect_all()
    node = _Node()
    alive = weakref.ref(node)
    gc.collect(1)
    gc.collect(1)  # the cycle survived two young collections: it sits in generation 2
    del node
    for _ in range(3 * gc.get_threshold()[2]):
        gc.collect(1)  # the counts say generation 2 is due
    collector.check()
    assert alive() is not None  # generation 2 waits for a pause
    frozen = gc.get_freeze_count()
    bulk = [[n] for n in range(BULK_YOUNG + 1000)]  # a worker's bulk load (tracked lists)
    collector.check()
    assert collector.bulk_freezes >= 1
    assert gc.get_freeze_count() >= frozen + len(bulk)
    collector.collect_all()
    assert alive() is None


def test_leaving_the_window_collects_everything(services, qapp) -> None:
    collector = services.collector
    before = collector.full_collections
    collector._state_changed(Qt.ApplicationState.ApplicationInactive)
    assert collector.full_collections == before + 1
    collector._state_changed(Qt.ApplicationState.ApplicationActive)
    assert collector.full_collections == before + 1
