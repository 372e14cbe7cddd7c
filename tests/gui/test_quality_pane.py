"""The Quality pane: raters score turns by keyboard, blind; the report shows the criteria."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QComboBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QWidget,
)

from studio.quality.sampling import SampleOptions, create_sample
from studio.store import Project
from studio.transactions.records import Transaction, sequential_turns
from studio.transactions.store import iter_transactions, save_transactions
from tests.gui.async_helpers import run_until
from tests.gui.window_panes import show_pane_titled

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
            "SELECT id, status FROM rating_assignments WHERE id IN (:first, :second)", {
                "first": first,
                "second": second,
            }
        ).fetchall())
        note = project.db.execute("SELECT note FROM ratings WHERE assignment_id = :second",
                                  {"second": second}).fetchone()[0]
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


def test_a_finished_rating_sample_says_so_without_the_last_scores(
    window, demo_project_dir, qtbot
) -> None:
    """After the last item, "finished" (not "press Start"), and no scores left over."""
    rating_sample(demo_project_dir)
    window.workspace.settings.user_name = "Ana"
    assert window.open_project(demo_project_dir)
    window.show_pane(4)
    view = window.panes[4].rating
    view.rater.setCurrentText("Ana")
    qtbot.mouseClick(view.start_button, Qt.MouseButton.LeftButton)
    while view.item is not None:
        for key in (Qt.Key.Key_4, Qt.Key.Key_5, Qt.Key.Key_3, Qt.Key.Key_4, Qt.Key.Key_2):
            qtbot.keyClick(view.form, key)
        qtbot.keyClick(view.form, Qt.Key.Key_Return)
    qtbot.wait(50)  # the ratings event reaches the pane
    assert set(view.form.scores().values()) == {None}
    window.workspace.events.emit("ratings")  # another rater's work arrives: still finished
    qtbot.wait(50)
    assert "finished" in view.message.text() and "press Start" not in view.message.text()
    assert not view.form.isEnabled()


def test_no_transactions_message_goes_once_there_are_some(window, demo_project_dir) -> None:
    from studio.transactions.records import Transaction, sequential_turns
    from studio.transactions.store import save_transactions

    assert window.open_project(demo_project_dir)
    pane = show_pane_titled(window, "Quality")
    view = pane.transactions
    pane.tabs.setCurrentWidget(view)
    assert "No transactions yet" in view.status.text()
    save_transactions(
        window.workspace.project,
        [Transaction("mt", "k0", ("dress-00000", "dress-00001"), sequential_turns(["is red"]))],
        "lead",
    )
    view.refresh()
    assert view.table.rowCount() == 1
    assert "No transactions yet" not in view.status.text()


def test_the_draft_dialog_has_a_close_button(window, demo_project_dir, qtbot) -> None:
    from widgets.transaction_builder_dialog import TransactionBuilderDialog

    assert window.open_project(demo_project_dir)
    dialog = TransactionBuilderDialog(window.workspace.project, "lead", window)
    qtbot.addWidget(dialog)
    dialog.show()
    closes = [b for b in dialog.findChildren(QPushButton) if b.text() == "Close"]
    assert len(closes) == 1 and closes[0].isVisible()
    closes[0].click()
    assert not dialog.isVisible()


def rating_sample(folder: Path, turns: int = 3) -> None:
    from studio.quality.sampling import SampleOptions, create_sample
    from studio.transactions.records import Transaction, sequential_turns
    from studio.transactions.store import save_transactions

    texts = ["is red with long sleeves", "is shorter", "has a v-neck", "is striped"][:turns]
    with Project.open(folder) as project:
        chains = [
            Transaction(
                "mt",
                f"k{n}",
                tuple(f"dress-{n + k:05d}" for k in range(turns + 1)),
                sequential_turns(texts),
            )
            for n in range(4)
        ]
        save_transactions(project, chains, "lead")
        create_sample(project, SampleOptions(raters=("Ana",), share=1.0, per_item=1), "lead")


def test_number_keys_score_right_after_start(window, demo_project_dir, qtbot) -> None:
    rating_sample(demo_project_dir)
    window.workspace.settings.user_name = "Ana"
    assert window.open_project(demo_project_dir)
    pane = show_pane_titled(window, "Quality")
    view = pane.rating
    view.rater.setCurrentText("Ana")
    qtbot.mouseClick(view.start_button, Qt.MouseButton.LeftButton)
    assert view.item is not None
    focused = QApplication.focusWidget()
    qtbot.keyClick(focused, Qt.Key.Key_4)
    assert view.form.scores()["accuracy"] == 4
    # Under a real display the click leaves the focus on Start: the keys still score.
    view.start_button.setFocus()
    qtbot.keyClick(view.start_button, Qt.Key.Key_2)
    assert view.form.scores()["historical_awareness"] == 2
    view.note.setFocus()  # but a text field keeps its typing
    qtbot.keyClick(view.note, Qt.Key.Key_3)
    assert view.note.text() == "3" and view.form.scores()["granularity"] is None


def test_the_turn_being_rated_is_in_view_with_its_images_side_by_side(
    window, demo_project_dir, qtbot
) -> None:
    from tests.gui.layout_checks import fully_visible

    rating_sample(demo_project_dir, turns=4)
    window.workspace.settings.user_name = "Ana"
    assert window.open_project(demo_project_dir)
    window.resize(1024, 700)
    pane = show_pane_titled(window, "Quality")
    view = pane.rating
    view.rater.setCurrentText("Ana")
    view.load_next()
    while view.item is not None and len(view.item.history) < 2:  # a turn with earlier turns
        view.finish("skipped")
    assert view.item is not None and len(view.item.history) >= 2
    QApplication.processEvents()
    strip = view.current_strip
    assert fully_visible(strip), "the turn being rated needs scrolling to be seen"
    reference, target = strip.reference_tile, strip.target_tile
    gap = target.mapTo(strip, target.rect().topLeft()).x() - (
        reference.mapTo(strip, reference.rect().topLeft()).x() + reference.width()
    )
    assert 0 <= gap <= 320  # side by side, the text between them, not at the two edges


def test_the_report_builds_as_a_job_and_marks_what_is_unreliable(
    window, demo_project_dir, qtbot, event_loop_qt
) -> None:
    from studio.quality.criteria import CRITERION_KEYS
    from studio.quality.ratings import next_item, save_scores, set_status
    from tests.gui.async_helpers import run_until

    rating_sample(demo_project_dir, turns=1)
    with Project.open(demo_project_dir) as project:
        for score in (1, 5):
            item = next_item(project, "main", "Ana")
            save_scores(project, item.assignment_id, "Ana", dict.fromkeys(CRITERION_KEYS, score))
            set_status(project, item.assignment_id, "Ana", "done")
    assert window.open_project(demo_project_dir)
    jobs: list[str] = []
    window.runner.started.connect(lambda _id, label: jobs.append(label))
    pane = show_pane_titled(window, "Quality")
    pane.tabs.setCurrentWidget(pane.report)
    run_until(event_loop_qt, lambda: pane.report.report is not None)
    assert jobs == ["Building the quality report"]
    assert pane.report.table.item(0, 1).text() == "50.0 %\n(0.0–100.0) †"
    assert "fewer than 3 items" in pane.report.notes.text()
