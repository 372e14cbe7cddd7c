"""A change made in one pane shows in every other pane at once, without switching panes."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from studio.pairs.mining import mine_pairs
from studio.quality.sampling import SampleOptions, create_sample
from studio.store import Project
from studio.transactions.records import Transaction, sequential_turns
from studio.transactions.store import save_transactions
from widgets.panes.captions_pane import CaptionsPane
from widgets.panes.dashboard_pane import DashboardPane
from widgets.panes.pairs_pane import PairsPane
from widgets.panes.quality_pane import QualityPane
from widgets.settings_dialog import SettingsDialog

CTRL = Qt.KeyboardModifier.ControlModifier


def pane_of(window, kind):
    return next(pane for pane in window.panes if isinstance(pane, kind))


def annotators(pane: CaptionsPane) -> dict[str, str]:
    table = pane.progress.table
    return {table.item(r, 0).text(): table.item(r, 1).text() for r in range(table.rowCount())}


@pytest.fixture
def pairs_demo(demo_project_dir: Path) -> Path:
    with Project.open(demo_project_dir) as project:
        mine_pairs(project, "tfidf", 6)
    return demo_project_dir


def test_mined_pairs_reach_the_dashboard_and_the_pairs_list(
    window, demo_project_dir, event_loop_qt, qtbot
) -> None:
    window.open_project(demo_project_dir)
    dashboard, pairs = pane_of(window, DashboardPane), pane_of(window, PairsPane)
    window.show_pane(window.panes.index(pairs))
    assert dashboard.count_labels["pairs"].text() == "0"
    report = event_loop_qt.run_until_complete(pairs.mine("tfidf", 7))
    assert report is not None and report.added == 7
    # Mining wrote from the job's thread; the dashboard (never shown since) follows.
    qtbot.waitUntil(lambda: dashboard.count_labels["pairs"].text() == "7")
    qtbot.waitUntil(lambda: pairs.count_label.text() == "7 pairs")
    assert pairs.model.rowCount() == 7


def test_a_written_caption_reaches_the_dashboard_and_the_annotator_table(
    window, pairs_demo, qtbot
) -> None:
    window.workspace.settings.user_name = "ana"
    window.open_project(pairs_demo)
    dashboard, captions = pane_of(window, DashboardPane), pane_of(window, CaptionsPane)
    window.show_pane(window.panes.index(captions))
    assert dashboard.count_labels["captions"].text() == "0"
    assert "ana" not in annotators(captions)
    qtbot.waitUntil(lambda: captions.writer.editor.isEnabled())  # the first pair came
    captions.writer.editor.setFocus()
    qtbot.keyClicks(captions.writer.editor, "is red with longer sleeves")
    qtbot.keyClick(captions.writer.editor, Qt.Key.Key_Return, CTRL)
    qtbot.waitUntil(lambda: dashboard.count_labels["captions"].text() == "1")
    qtbot.waitUntil(lambda: annotators(captions).get("ana") == "1")
    assert dashboard.count_labels["people"].text() == "1"


def test_a_new_name_in_settings_reaches_captions_and_the_rater_box_at_once(
    window, pairs_demo, qtbot
) -> None:
    with Project.open(pairs_demo) as project:
        chains = [
            Transaction(
                "set",
                f"k{n}",
                (f"dress-{n:05d}", f"dress-{n + 1:05d}"),
                sequential_turns(["is red"]),
            )
            for n in range(3)
        ]
        save_transactions(project, chains, "lead")
        create_sample(project, SampleOptions(raters=("Old", "Other"), share=1.0), "lead")
    window.workspace.settings.user_name = "Old"
    window.open_project(pairs_demo)
    captions, quality = pane_of(window, CaptionsPane), pane_of(window, QualityPane)
    window.show_pane(window.panes.index(captions))
    assert "Old" in captions.user_label.text()
    assert quality.rating.rater_name() == "Old"

    def rename() -> None:
        dialog = next(
            w
            for w in QApplication.topLevelWidgets()
            if isinstance(w, SettingsDialog) and w.isVisible()
        )
        dialog.user_name.setText("New Name")
        dialog.accept()

    QTimer.singleShot(0, rename)
    window.show_settings()  # the real dialog, saved as a person would
    # Neither pane is shown again, and Quality was never shown at all.
    qtbot.waitUntil(lambda: "New Name" in captions.user_label.text())
    assert captions.writing is not None and captions.writing.author == "New Name"
    qtbot.waitUntil(lambda: quality.rating.rater_name() == "New Name")


def test_mined_pairs_reach_an_idle_writer_and_the_window_title_follows_a_rename(
    window, demo_project_dir, event_loop_qt, qtbot
) -> None:
    window.open_project(demo_project_dir)
    captions, pairs = pane_of(window, CaptionsPane), pane_of(window, PairsPane)
    window.show_pane(window.panes.index(captions))
    assert captions.writing is not None and captions.writing.current is None  # no pairs yet
    event_loop_qt.run_until_complete(pairs.mine("tfidf", 3))
    qtbot.waitUntil(lambda: captions.writing.current is not None)
    assert captions.writer.editor.isEnabled()
    window.workspace.project.set_meta("name", "Renamed")
    qtbot.waitUntil(lambda: window.windowTitle() == "CIR Studio — Renamed")


def test_a_draft_is_kept_when_another_project_opens(window, pairs_demo, tmp_path, qtbot) -> None:
    window.workspace.settings.user_name = "ana"
    window.open_project(pairs_demo)
    captions = pane_of(window, CaptionsPane)
    window.show_pane(window.panes.index(captions))
    qtbot.waitUntil(lambda: captions.writer.editor.isEnabled())  # the first pair came
    pair = captions.writer.pair_id
    captions.writer.editor.setFocus()
    qtbot.keyClicks(captions.writer.editor, "is blue and shorter")  # autosave not yet due
    window.workspace.create_project(tmp_path / "other", name="Other")
    with Project.open(pairs_demo) as first:
        [draft] = [c for c in first.db.query("SELECT pair_id, text, status FROM captions")]
    assert draft == {"pair_id": pair, "text": "is blue and shorter", "status": "draft"}
    assert captions.project is window.workspace.project and captions.writing.current is None


def test_a_locked_project_is_a_message_not_a_traceback(window, pairs_demo, qtbot) -> None:
    import sqlite3

    window.workspace.settings.user_name = "ana"
    window.open_project(pairs_demo)
    captions = pane_of(window, CaptionsPane)
    window.show_pane(window.panes.index(captions))
    project = window.workspace.project
    qtbot.waitUntil(lambda: captions.writer.editor.isEnabled())  # the first pair came
    pair = captions.writer.pair_id
    blocker = sqlite3.connect(str(project.path))
    blocker.execute("BEGIN IMMEDIATE")  # another program holds the write lock
    try:
        captions.writer.editor.setFocus()
        qtbot.keyClicks(captions.writer.editor, "is red")
        qtbot.keyClick(captions.writer.editor, Qt.Key.Key_Return, CTRL)
        # the submission waits for the lock on the IO lane (its busy timeout), then says so
        qtbot.waitUntil(lambda: "busy" in captions.writer.state.text(), timeout=20000)
        assert captions.writer.pair_id == pair  # nothing moved on, the text is still there
        assert captions.writer.editor.text() == "is red"
        assert captions.writer.editor.isEnabled()
    finally:
        blocker.rollback()
        blocker.close()
    qtbot.keyClick(captions.writer.editor, Qt.Key.Key_Return, CTRL)
    qtbot.waitUntil(lambda: captions.writer.pair_id != pair)  # saved once the lock is gone


def test_a_read_only_project_keeps_the_policy_and_says_why(window, pairs_demo) -> None:
    window.open_project(pairs_demo)
    captions = pane_of(window, CaptionsPane)
    window.show_pane(window.panes.index(captions))
    # What a read-only file looks like to SQLite (the tests run as root, so no chmod).
    window.workspace.project.db.execute("PRAGMA query_only = ON")
    before = captions.per_pair.value()
    captions.per_pair.setValue(before + 1)
    assert "read-only" in captions.writer.state.text()
    assert captions.per_pair.value() == before  # the control shows what the project holds


def test_captions_written_elsewhere_reach_the_dashboard_chart_when_it_shows(
    window, pairs_demo, qtbot
) -> None:
    window.workspace.settings.user_name = "ana"
    window.open_project(pairs_demo)
    dashboard, captions = pane_of(window, DashboardPane), pane_of(window, CaptionsPane)
    window.show_pane(window.panes.index(captions))
    qtbot.waitUntil(lambda: captions.writer.editor.isEnabled())  # the first pair came
    captions.writer.editor.setFocus()
    qtbot.keyClicks(captions.writer.editor, "is red with longer sleeves")
    qtbot.keyClick(captions.writer.editor, Qt.Key.Key_Return, CTRL)
    qtbot.waitUntil(lambda: dashboard.count_labels["captions"].text() == "1")
    window.show_pane(window.panes.index(dashboard))
    qtbot.waitUntil(
        lambda: dashboard.charts.data is not None
        and sum(dashboard.charts.data.captions_per_day.get("ana", {}).values()) == 1
    )


def test_the_dashboard_counts_drafts_apart_from_written_captions(window, pairs_demo) -> None:
    from studio.captions import store

    with Project.open(pairs_demo) as project:
        first, second = [r[0] for r in project.db.execute("SELECT id FROM pairs ORDER BY id")][:2]
        store.submit_caption(project, first, "ana", "is red")
        store.save_draft(project, second, "ben", "is blu")
    window.open_project(pairs_demo)
    dashboard = pane_of(window, DashboardPane)
    assert dashboard.count_labels["captions"].text() == "1 (+1 draft)"
