"""Issue 27, as a new user meets it: focus, stale messages, names, empty states, wording."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from studio.pairs.mining import mine_pairs
from studio.store import Project

CTRL = Qt.KeyboardModifier.ControlModifier


def press_pane_key(qtbot, window, number: int) -> None:
    """Ctrl+<number> as the person presses it, wherever the focus is."""
    target = QApplication.focusWidget() or window
    qtbot.keyClick(target, getattr(Qt.Key, f"Key_{number}"), CTRL)
    QApplication.processEvents()


def test_each_pane_takes_the_keyboard_when_shown(window, demo_project_dir, qtbot) -> None:
    """D9: after Ctrl+3 the review keys (J, A, R, U) work without clicking into the pane."""
    with Project.open(demo_project_dir) as project:
        mine_pairs(project, "tfidf", 6)
    assert window.open_project(demo_project_dir)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    press_pane_key(qtbot, window, 3)
    attributes = window.panes[2]
    assert window.stack.currentWidget() is attributes
    single = attributes.single
    assert single.index == 0
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_J)
    assert single.index == 1  # J went to the review, not nowhere
    press_pane_key(qtbot, window, 2)
    captions = window.panes[1]
    assert QApplication.focusWidget() is captions.writer.editor
    press_pane_key(qtbot, window, 1)
    assert QApplication.focusWidget() is window.panes[0].table
    press_pane_key(qtbot, window, 3)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_J)
    assert single.index == 2


def test_a_packages_person_stays_with_the_package(
    window, tmp_path, event_loop_qt, qtbot
) -> None:
    """D2: "Work as this package's person" holds in the package only; back in the
    coordinator's project captions are stored under the name chosen there. D12: the
    package's status message does not follow into the next project."""
    from studio.captions import store
    from studio.settings import Settings
    from studio.team.rehearsal import build_project

    coordinator = tmp_path / "project"
    build_project(coordinator, ["ann", "bob"], n_pairs=8).close()
    window.workspace.settings.user_name = "zoe"
    window.workspace.settings.save()
    assert window.open_project(coordinator)
    package = tmp_path / "ann.cirdb"
    event_loop_qt.run_until_complete(window.team_menu.pack_for("ann", package, False))
    assert window.open_project(package)
    window.team_menu._enable()
    window.team_menu.work_as_action.trigger()
    captions = window.panes[1]
    qtbot.waitUntil(lambda: "<b>ann</b>" in captions.user_label.text())
    assert Settings.load().user_name == "zoe"  # the saved name is untouched
    assert "here only" in captions.user_label.text()  # visible, and says for how long
    # Back to the coordinator's project: zoe again, and nothing said about the package.
    assert window.open_project(coordinator)
    assert "Work package" not in window.statusBar().currentMessage()
    window.show_pane(1)
    assert window.workspace.user_name == "zoe"
    assert "<b>zoe</b>" in captions.user_label.text()
    writer = captions.writer
    pair = writer.session.current
    assert pair is not None
    writer.editor.setFocus()
    qtbot.keyClicks(writer.editor, "is longer")
    qtbot.keyClick(writer.editor, Qt.Key.Key_Return, CTRL)
    with Project.open(coordinator) as project:
        authors = {c.author for c in store.captions_for_pair(project, pair) if c.text == "is longer"}
    assert authors == {"zoe"}


def test_the_pairs_message_goes_with_its_project(
    window, demo_project_dir, tmp_path, event_loop_qt
) -> None:
    """D12: "Added 6 tfidf pairs." is not shown in a project created afterwards."""
    assert window.open_project(demo_project_dir)
    pairs = window.panes[0]
    event_loop_qt.run_until_complete(pairs.mine("tfidf", 6))
    assert "Added" in pairs.message.text()
    window.workspace.create_project(tmp_path / "fresh", image_root=demo_project_dir)
    window.show_pane(0)
    assert pairs.message.text() == ""


def test_a_finished_rating_sample_says_so_without_the_last_scores(
    window, demo_project_dir, qtbot
) -> None:
    """D16: after the last item, "finished" (not "press Start"), and no scores left over."""
    from tests.gui.test_walk_defects_gui import rating_sample

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


def test_the_bulk_view_opens_on_an_attribute_with_images(window, demo_project_dir) -> None:
    """D16: the "One attribute, many images" tab does not open on an attribute with 0."""
    from studio.attributes.extract import extract_from_text

    with Project.open(demo_project_dir) as project:
        extract_from_text(project, "importer")
    assert window.open_project(demo_project_dir)
    window.show_pane(2)
    pane = window.panes[2]
    pane.tabs.setCurrentWidget(pane.bulk)
    QApplication.processEvents()
    assert pane.bulk.attribute.currentText()
    assert pane.bulk.grid.count() > 0 and not pane.bulk.empty.isVisible()


def test_the_dashboard_counts_imported_captions_and_keeps_legends_in_their_charts(
    window, demo_project_dir, tmp_path, fashioniq_fixtures
) -> None:
    """D16: imported captions are captions ("12 captions, all imported", not "No captions
    submitted yet"); D20: each legend sits inside its own chart, not between two."""
    import json

    from studio.demo.showcase import fill_showcase
    from studio.importers import import_fashioniq

    entries = json.loads((fashioniq_fixtures / "captions/cap.dress.val.json").read_text())[:6]
    root = tmp_path / "fiq"
    (root / "captions").mkdir(parents=True)
    (root / "image_splits").mkdir(parents=True)
    (root / "captions/cap.dress.val.json").write_text(json.dumps(entries))
    gallery = sorted({e[k] for e in entries for k in ("candidate", "target")})
    (root / "image_splits/split.dress.val.json").write_text(json.dumps(gallery))
    with Project.create(tmp_path / "imported") as project:
        import_fashioniq(project, root)
    assert window.open_project(tmp_path / "imported")
    window.show_pane(5)
    texts = window.panes[5].charts.panel_texts()
    assert "No captions submitted yet" not in texts["captions"]
    assert "12 captions, all imported" in texts["captions"]
    # Legends: with captions, labels and ratings drawn, each legend lies inside its axes.
    assert window.open_project(demo_project_dir)
    fill_showcase(window.workspace.project, captions=8)
    charts = window.panes[5].charts
    charts.refresh(window.workspace.project)
    figure = charts.canvas.figure
    renderer = charts.canvas.get_renderer()
    legends = 0
    for axes in figure.axes:
        legend = axes.get_legend()
        if legend is None:
            continue
        legends += 1
        box, frame = legend.get_window_extent(renderer), axes.get_window_extent(renderer)
        assert frame.x0 - 1 <= box.x0 and box.x1 <= frame.x1 + 1, axes.get_title()
        assert frame.y0 - 1 <= box.y0 and box.y1 <= frame.y1 + 1, axes.get_title()
    assert legends >= 2


def test_rank_line_and_session_list_fit_their_text_at_1024(
    window, indexed_demo_dir, qtbot
) -> None:
    """D20: "Target rank: 1,278 (was 4,423)" stays on one line at 1024×700; the recorded
    sessions list is wide enough for its dates."""
    from studio.sessions.setup import load_session_context
    from studio.sessions.store import SessionRecorder
    from widgets.recorded_sessions_dialog import RecordedSessionsDialog

    with Project.open(indexed_demo_dir) as project:
        context = load_session_context(project, "demo", "cpu")
        session = context.new_session("history")
        recorder = SessionRecorder(project, "ana")
        recorder.start(session, "demo")
        recorder.record(session.composed_turn("is red with long sleeves"))
    window.resize(1024, 700)
    assert window.open_project(indexed_demo_dir)
    window.show_pane(3)
    pane = window.panes[3]
    pane._stack.setCurrentIndex(2)  # the session view, as after Load
    text = "Target rank: 1,278 (was 4,423)"
    pane.target_label.setText(text)
    QApplication.processEvents()
    assert pane.target_label.width() >= pane.target_label.fontMetrics().horizontalAdvance(text)
    dialog = RecordedSessionsDialog(window.workspace.project, "ana", window)
    qtbot.addWidget(dialog)
    dialog.show()
    QApplication.processEvents()
    item = dialog.sessions.item(0)
    assert item.text().endswith(item.text()[-16:]) and ":" in item.text()[-5:]  # the time
    room = dialog.sessions.viewport().width()
    assert dialog.sessions.fontMetrics().horizontalAdvance(item.text()) <= room


def test_a_refused_import_says_what_to_do_in_the_window(window, tmp_path, event_loop_qt) -> None:
    """D20: no "use --skip-invalid" (a command-line flag) in the window."""
    root = tmp_path / "bad"
    (root / "captions").mkdir(parents=True)
    (root / "captions" / "cap.dress.val.json").write_text(
        '[{"target": "a", "candidate": "b", "captions": ["x"]}, {"candidate": "c"}]'
    )
    window.workspace.create_project(tmp_path / "p")
    pane = window.panes[0]
    assert event_loop_qt.run_until_complete(pane.run_import("fashioniq", root)) is None
    shown = pane.message.text() + " " + pane.problem_box.text()
    assert "--skip-invalid" not in shown
    assert "“Import the valid entries” imports the rest" in pane.message.text()
    assert "3 problems; nothing was written" in pane.problem_box.text()
