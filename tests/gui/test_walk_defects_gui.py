"""Defects found walking through the studio as a new user (issue 18), each as a user sees it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QPushButton

from studio.attributes.extract import extract_from_text
from studio.attributes.query import attribute_states
from studio.captions.records import CaptionPolicy
from studio.captions.store import submit_caption
from studio.pairs.mining import mine_pairs
from studio.store import Project


def pane_named(window, title: str):
    window.show_pane(window.pane_titles().index(title))
    QApplication.processEvents()
    return window.stack.currentWidget()


def states(project, image_id: str) -> dict[str, str]:
    return {s.attribute: s.status for s in attribute_states(project, image_id)}


# -- Pairs -----------------------------------------------------------------------------


def test_pairs_zoom_keys_work_with_the_focus_on_the_list(window, demo_project_dir, qtbot) -> None:
    with Project.open(demo_project_dir) as project:
        mine_pairs(project, "tfidf", 10)
    assert window.open_project(demo_project_dir)
    pane = pane_named(window, "Pairs")
    pane.select_row(0)
    pane.table.setFocus()
    assert pane.table.hasFocus()
    before = pane.view.image_size
    qtbot.keyClick(pane.table, Qt.Key.Key_Plus, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(pane.table, Qt.Key.Key_Plus, Qt.KeyboardModifier.ControlModifier)
    assert pane.view.zoom_percent == 200 and pane.view.image_size > before
    QApplication.processEvents()
    bar = pane.view.reference.scroll.horizontalScrollBar()
    assert bar.maximum() > 0
    assert abs(bar.value() - bar.maximum() / 2) <= 1  # the garment stays in the middle
    pane.search.setFocus()
    qtbot.keyClick(pane.search, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    assert pane.view.zoom_percent == 100


def test_pairs_with_no_match_say_so(window, demo_project_dir, qtbot) -> None:
    with Project.open(demo_project_dir) as project:
        mine_pairs(project, "tfidf", 10)
    assert window.open_project(demo_project_dir)
    pane = pane_named(window, "Pairs")
    pane.search.setText("no such garment anywhere")
    pane.apply_filters()
    assert pane.model.rowCount() == 0
    assert pane.no_match.isVisible()
    assert "No pair matches" in pane.no_match.text()
    pane.search.clear()
    pane.apply_filters()
    assert not pane.no_match.isVisible()


# -- Captions ----------------------------------------------------------------------------


def test_review_says_when_the_only_captions_waiting_are_your_own(
    window, demo_project_dir, qtbot
) -> None:
    with Project.open(demo_project_dir) as project:
        mine_pairs(project, "tfidf", 5)
        pair_ids = [r[0] for r in project.db.execute("SELECT id FROM pairs ORDER BY id")]
        for pair_id in pair_ids[:2]:
            submit_caption(
                project, pair_id, "Ana", "is red with longer sleeves", CaptionPolicy(2, True)
            )
    window.workspace.settings.user_name = "Ana"
    assert window.open_project(demo_project_dir)
    pane = pane_named(window, "Captions")
    pane.set_mode(1)
    reviewer = pane.reviewer
    assert "every submitted caption has been reviewed" not in reviewer.info.text()
    assert "the 2 captions waiting for review are your own" in reviewer.info.text()
    assert not reviewer.buttons["accept"].isEnabled()
    assert not reviewer.buttons["reject"].isEnabled()


# -- Attributes --------------------------------------------------------------------------


def test_attributes_u_undoes_the_last_decision_after_the_cursor_moved(
    window, demo_project_dir, qtbot
) -> None:
    assert window.open_project(demo_project_dir)
    window.workspace.settings.user_name = "Ana"
    project = window.workspace.project
    extract_from_text(project, "importer")
    pane = pane_named(window, "Attributes")
    pane.refresh()
    single = pane.single
    image = single.current_image()
    first = single.chips.current_name()
    single.setFocus()
    qtbot.keyClick(single, Qt.Key.Key_A)
    assert states(project, image)[first] == "accepted"
    assert single.chips.current_name() != first  # the cursor moved on
    qtbot.keyClick(single, Qt.Key.Key_U)
    assert states(project, image)[first] == "suggested"
    assert single.chips.current_name() == first
    qtbot.keyClick(single, Qt.Key.Key_R)
    qtbot.keyClick(single, Qt.Key.Key_J)  # even after moving to the next image
    assert single.current_image() != image
    qtbot.keyClick(single, Qt.Key.Key_U)
    assert single.current_image() == image
    assert states(project, image)[first] == "suggested"


def test_an_image_without_labels_says_so(window, demo_project_dir) -> None:
    assert window.open_project(demo_project_dir)  # nothing extracted yet
    pane = pane_named(window, "Attributes")
    single = pane.single
    assert single.chips_empty.isVisible()
    assert "No labels on this image yet" in single.chips_empty.text()
    extract_from_text(window.workspace.project, "importer")
    pane.refresh()
    assert not single.chips_empty.isVisible()


def test_a_bulk_attribute_with_no_images_says_so(window, demo_project_dir) -> None:
    assert window.open_project(demo_project_dir)
    extract_from_text(window.workspace.project, "importer")
    pane = pane_named(window, "Attributes")
    pane.tabs.setCurrentWidget(pane.bulk)
    pane.bulk.show_attribute("sequin")
    assert pane.bulk.grid.count() == 0
    assert pane.bulk.empty.isVisible()
    assert "sequin" in pane.bulk.empty.text()
    pane.bulk.show_attribute("floral")
    assert pane.bulk.grid.count() > 0 and not pane.bulk.empty.isVisible()


# -- Quality -----------------------------------------------------------------------------


def test_no_transactions_message_goes_once_there_are_some(window, demo_project_dir) -> None:
    from studio.transactions.records import Transaction, sequential_turns
    from studio.transactions.store import save_transactions

    assert window.open_project(demo_project_dir)
    pane = pane_named(window, "Quality")
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
    pane = pane_named(window, "Quality")
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
    pane = pane_named(window, "Quality")
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
    pane = pane_named(window, "Quality")
    pane.tabs.setCurrentWidget(pane.report)
    run_until(event_loop_qt, lambda: pane.report.report is not None)
    assert jobs == ["Building the quality report"]
    assert pane.report.table.item(0, 1).text() == "50.0 %\n(0.0–100.0) †"
    assert "fewer than 3 items" in pane.report.notes.text()


# -- Dashboard ---------------------------------------------------------------------------


def test_dashboard_charts_show_captions_labels_and_ratings(window, demo_project_dir) -> None:
    from studio.demo.showcase import fill_showcase

    assert window.open_project(demo_project_dir)
    pane = pane_named(window, "Dashboard")
    texts = pane.charts.panel_texts()
    assert "No captions submitted yet" in texts["captions"]
    assert "No attribute labels yet" in texts["labels"]
    assert "No ratings assigned yet" in texts["ratings"]
    fill_showcase(window.workspace.project, captions=8)
    pane.refresh(window.workspace.project)  # project events call this when something changes
    texts = pane.charts.panel_texts()
    assert texts["captions"] == "Captions per day per annotator"
    assert "Labels decided per type" in texts["labels"] and "undecided" in texts["labels"]
    assert "8 / 18" in texts["ratings"]
    captions_axes = pane.charts.canvas.figure.axes[0]
    assert sorted(p.get_height() for p in captions_axes.patches) == [4, 4]
    assert pane.charts.canvas.isVisible()


def test_the_mine_dialog_asks_whether_to_allow_mirrored_pairs(qtbot) -> None:
    from widgets.mine_dialog import MineDialog

    dialog = MineDialog(["dress"], ["train"], embedding=False)
    qtbot.addWidget(dialog)
    assert dialog.values()["mirrored"] is False  # off unless asked
    dialog.mirrored.setChecked(True)
    assert dialog.values()["mirrored"] is True
    assert "B→A" in dialog.mirrored.text()
