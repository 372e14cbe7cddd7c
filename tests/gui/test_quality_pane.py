"""The Quality pane: raters score turns by keyboard, blind; the report shows the criteria."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QComboBox, QLabel, QLineEdit, QTableWidget, QWidget

from studio.quality.sampling import SampleOptions, create_sample
from studio.store import Project
from studio.transactions.records import Transaction, sequential_turns
from studio.transactions.store import iter_transactions, save_transactions
from tests.gui.async_helpers import run_until

DATASET = "SecretSetXYZ"
KEYS = "45342"  # accuracy … coverage


def prepare(folder: Path, raters: tuple[str, ...] = ("Ana", "Ben")) -> None:
    with Project.open(folder) as project:
        chains = [
            Transaction(DATASET, f"k{n}", tuple(f"{c}-{n + k:05d}" for k in range(3)),
                        sequential_turns(["is red with long sleeves", "is shorter"]))
            for n, c in enumerate(["dress", "shirt", "toptee"] * 2)
        ]
        save_transactions(project, chains, "lead")
        create_sample(project, SampleOptions(raters=raters, share=0.5), "lead")


def visible_text(root: QWidget) -> str:
    """Everything a person could read on screen inside ``root``."""
    parts: list[str] = []
    for widget in [root, *root.findChildren(QWidget)]:
        if not widget.isVisible():
            continue
        if isinstance(widget, (QLabel, QAbstractButton, QLineEdit)):
            parts.append(widget.text())
        if isinstance(widget, QLineEdit):
            parts.append(widget.placeholderText())
        if isinstance(widget, QComboBox):
            parts += [widget.itemText(i) for i in range(widget.count())]
        if isinstance(widget, QTableWidget):
            parts += [widget.item(r, c).text() for r in range(widget.rowCount())
                      for c in range(widget.columnCount()) if widget.item(r, c)]
        parts.append(widget.toolTip())
        parts.append(widget.windowTitle())
    return "\n".join(parts)


def open_quality(window, folder: Path):
    assert window.open_project(folder)
    window.show_pane(window.pane_titles().index("Quality"))
    pane = window.stack.currentWidget()
    assert pane.title == "Quality"
    return pane


def choose_rater(qtbot, view, name: str) -> None:
    editor = view.rater.lineEdit()
    editor.clear()
    qtbot.keyClicks(editor, name)
    qtbot.keyClick(editor, Qt.Key.Key_Return)


def test_two_raters_rate_their_queues_by_keyboard_blind(
    window, qtbot, demo_project_dir, event_loop_qt
) -> None:
    prepare(demo_project_dir)
    pane = open_quality(window, demo_project_dir)
    view = pane.rating
    assert pane.tabs.tabText(pane.tabs.currentIndex()) == "Rate"
    rubric = visible_text(pane)
    for name in ("Accuracy", "Historical Awareness", "Granularity", "Consistency", "Coverage"):
        assert name in rubric
    assert "actual differences" in rubric and "earlier turns" in rubric
    rated = 0
    for rater in ("Ana", "Ben"):
        choose_rater(qtbot, view, rater)
        while view.item is not None:
            assert DATASET not in visible_text(window)
            current = view.item.assignment_id
            for key in KEYS:
                qtbot.keyClick(view.form, key)
            qtbot.keyClick(view.form, Qt.Key.Key_Return)
            assert view.item is None or view.item.assignment_id != current
            rated += 1
        assert "Nothing left to rate" in view.message.text()
    with Project.open(demo_project_dir) as project:
        rows = project.db.execute(
            "SELECT a.status, r.accuracy, r.historical_awareness, r.granularity, r.consistency, "
            "r.coverage FROM rating_assignments a JOIN ratings r ON r.assignment_id = a.id"
        ).fetchall()
        per_item = project.db.execute(
            "SELECT count(*) FROM rating_assignments WHERE status = 'done' "
            "GROUP BY transaction_id, turn_index").fetchall()
    assert rated == len(rows) == 12  # half of 12 turns, two raters each
    assert {tuple(r) for r in rows} == {("done", 4, 5, 3, 4, 2)}
    assert {n for (n,) in per_item} == {2}

    pane.tabs.setCurrentWidget(pane.report)
    run_until(event_loop_qt, lambda: pane.report.report is not None)  # built as a job
    table = pane.report.table
    headings = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    assert headings[:7] == ["Dataset", "Acc", "HA", "Gra", "Con", "Cov", "Mean"]
    assert table.item(0, 0).text() == DATASET
    assert table.item(0, 1).text().startswith("75.0 %")  # every accuracy was 4
    assert "(mean score − 1) / 4 × 100" in pane.report.method.text()
    assert pane.report.canvas is not None


def test_tab_arrows_skip_and_flag(window, qtbot, demo_project_dir) -> None:
    prepare(demo_project_dir)
    view = open_quality(window, demo_project_dir).rating
    choose_rater(qtbot, view, "Ana")
    form = view.form
    assert form.current == 0
    qtbot.waitUntil(form.hasFocus)  # keys go to the form without a click
    qtbot.keyClick(form, Qt.Key.Key_Tab)
    qtbot.keyClick(form, Qt.Key.Key_Down)
    assert form.current_key() == "granularity"
    qtbot.keyClick(form, "5")  # scores granularity and moves on
    assert form.current_key() == "consistency"
    qtbot.keyClick(form, Qt.Key.Key_Up)
    qtbot.keyClick(form, Qt.Key.Key_Backtab)
    assert form.current_key() == "historical_awareness"
    assert form.scores()["granularity"] == 5  # autosaved at once:
    with Project.open(demo_project_dir) as project:
        assert project.db.execute("SELECT granularity FROM ratings").fetchone() == (5,)
    first = view.item.assignment_id
    qtbot.keyClick(form, Qt.Key.Key_Return)  # not every criterion scored yet
    assert view.item.assignment_id == first and "Score every criterion" in view.message.text()
    qtbot.keyClick(form, "s")
    assert view.item.assignment_id != first
    second = view.item.assignment_id
    view.note.setText("the target is the same garment")
    qtbot.keyClick(form, "f")
    with Project.open(demo_project_dir) as project:
        statuses = dict(project.db.execute(
            "SELECT id, status FROM rating_assignments WHERE id IN (?, ?)", [first, second]
        ).fetchall())
        note = project.db.execute("SELECT note FROM ratings WHERE assignment_id = ?",
                                  [second]).fetchone()[0]
    assert statuses == {first: "skipped", second: "flagged"}
    assert note == "the target is the same garment"


def test_a_rater_without_a_queue_is_told_so(window, qtbot, demo_project_dir) -> None:
    prepare(demo_project_dir)
    view = open_quality(window, demo_project_dir).rating
    choose_rater(qtbot, view, "Zed")
    assert view.item is None and "Zed has no items" in view.message.text()


def test_builder_dialog_drafts_and_accepts(window, qtbot, demo_project_dir) -> None:
    from widgets.transaction_builder_dialog import TransactionBuilderDialog

    assert window.open_project(demo_project_dir)
    project = window.workspace.project
    dialog = TransactionBuilderDialog(project, "Ana", window)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.count.setValue(2)
    dialog.draft()
    assert dialog.list.count() == 2
    dialog.editors[0].setText("is navy with a v-neck")
    qtbot.keyClick(dialog.editors[0], Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert dialog.list.count() == 1
    accepted = [t for t in iter_transactions(project, origin="built")
                if all(turn.status == "accepted" for turn in t.turns)]
    assert len(accepted) == 1 and accepted[0].turns[0].text == "is navy with a v-neck"


@pytest.mark.parametrize("tab", ["Report", "Transactions"])
def test_other_tabs_work_without_ratings(window, demo_project_dir, tab, event_loop_qt) -> None:
    pane = open_quality(window, demo_project_dir)
    index = [pane.tabs.tabText(i) for i in range(pane.tabs.count())].index(tab)
    pane.tabs.setCurrentIndex(index)
    if tab == "Report":
        run_until(event_loop_qt, lambda: pane.report.report is not None)
    text = visible_text(pane)
    assert ("No finished ratings yet" in text) if tab == "Report" else ("No transactions" in text)
