"""File → Team in the window: assign work, pack it, open a package, merge it back."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from studio.captions.store import submit_caption
from studio.store import Project
from studio.team.rehearsal import build_project
from widgets.team_assign_dialog import TeamAssignDialog
from widgets.team_pack_dialog import TeamPackDialog


@pytest.fixture
def coordinator(tmp_path: Path) -> Path:
    build_project(tmp_path / "project", ["ann", "bob"], n_pairs=8).close()
    return tmp_path / "project"


def test_the_file_menu_has_the_team_actions(window, coordinator) -> None:
    texts = [a.text() for a in window.team_menu.menu.actions() if not a.isSeparator()]
    assert texts[:3] == ["&Assign work…", "&Create work package…", "&Merge work…"]
    window.open_project(coordinator)
    window.team_menu._enable()
    menu = window.team_menu
    assert all(a.isEnabled() for a in (menu.assign_action, menu.pack_action, menu.merge_action))
    assert not menu.work_as_action.isEnabled()  # only in a work package


def test_assigning_shows_on_the_dashboard(window, coordinator, qtbot) -> None:
    window.open_project(coordinator)
    dialog = TeamAssignDialog(window.workspace.project, "lead", window)
    qtbot.addWidget(dialog)
    dialog.people.setText("dee, eve")
    dialog.kind.setCurrentText("Attribute labels to decide")
    dialog.category.setCurrentIndex(dialog.category.count() - 1)  # not handed out yet
    dialog.accept()
    assert dialog.result() == dialog.DialogCode.Accepted
    assert set(dialog.given or {}) == {"dee", "eve"} and all((dialog.given or {}).values())
    window.workspace.project_changed.emit(window.workspace.project)
    table = window.panes[-1].team_progress.table
    names = [table.item(row, 0).text() for row in range(table.rowCount())]
    assert {"ann", "bob", "dee", "eve"} <= set(names)
    dialog = TeamAssignDialog(window.workspace.project, "lead", window)
    qtbot.addWidget(dialog)
    dialog.accept()  # nobody named: the dialog says so and stays open
    assert "at least one person" in dialog.error.text()


def test_pack_open_work_and_merge_back_through_the_window(
    window, coordinator, tmp_path, event_loop_qt, qtbot
) -> None:
    window.open_project(coordinator)
    dialog = TeamPackDialog(window.workspace.project, window)
    qtbot.addWidget(dialog)
    assert dialog.person.count() == 2 and dialog.ok.isEnabled()
    dialog.image_root.setText("/mnt/shared/images")
    assert dialog.choice()[3] == "/mnt/shared/images"
    dialog.with_images.setChecked(True)  # copied images: no root to give
    assert dialog.choice()[2:] == (True, None) and not dialog.image_root.isEnabled()
    out = tmp_path / "ann.cirdb"
    event_loop_qt.run_until_complete(window.team_menu.pack_for("ann", out, False))
    assert out.is_file()
    window.workspace.settings.user_name = "zoe"
    window.open_project(out)
    assert "Work package for ann" in window.statusBar().currentMessage()
    assert "work as 'ann' in this package" in window.statusBar().currentMessage()
    window.team_menu._enable()
    assert not window.team_menu.merge_action.isEnabled()  # a package is not a coordinator
    assert window.team_menu.work_as_action.isEnabled()
    window.team_menu.work_as_action.trigger()
    assert window.workspace.user_name == "ann"
    assert "Work package for ann" in window.statusBar().currentMessage()
    assert "You work as ann in this package only; zoe returns" in (
        window.statusBar().currentMessage()
    )
    with Project.open(out) as package:
        pair = package.db.execute(
            "SELECT p.id FROM pairs p JOIN team_assignments t ON t.item = p.uid "
            "WHERE t.kind = 'caption' ORDER BY p.id LIMIT 1"
        ).fetchone()[0]
        submit_caption(package, pair, "ann", "is red and sleeveless")
    window.open_project(coordinator)
    event_loop_qt.run_until_complete(window.team_menu.merge_paths([out]))
    summary = window.team_menu.summary
    # One audit row: the submit. (An empty editor left open on that pair used to add an
    # audited edit that emptied the caption when the package closed, #27 D3.)
    assert "new 1 caption, 1 audit row;" in summary.lines.text()
    table = window.panes[-1].team_progress.table
    row = next(r for r in range(table.rowCount()) if table.item(r, 0).text() == "ann")
    assert table.item(row, 5).text() != "—"  # came back


def test_ctrl_shift_m_merges_after_leaving_a_package_without_opening_the_menu(
    window, coordinator, tmp_path, event_loop_qt, qtbot
) -> None:
    window.open_project(coordinator)
    out = tmp_path / "ann.cirdb"
    event_loop_qt.run_until_complete(window.team_menu.pack_for("ann", out, False))
    window.workspace.settings.user_name = "zoe"
    window.open_project(out)
    menu = window.team_menu
    assert not menu.merge_action.isEnabled()  # a package is not a coordinator
    menu.menu.popup(window.mapToGlobal(window.rect().center()))  # File → Team, once
    qtbot.waitUntil(menu.menu.isVisible)
    menu.menu.hide()
    menu.work_as_action.trigger()
    assert window.workspace.user_name == "ann"
    window.open_project(coordinator)  # back to a coordinator's project; the menu stays shut
    assert menu.merge_action.isEnabled() and not menu.work_as_action.isEnabled()
    titles: list[str] = []

    def close_the_chooser() -> None:
        modal = QApplication.activeModalWidget()
        if modal is not None:
            titles.append(modal.windowTitle())
            modal.close()

    watch = QTimer(interval=50)
    watch.timeout.connect(close_the_chooser)
    watch.start()
    try:
        window.activateWindow()
        qtbot.keyClick(window, Qt.Key.Key_M,
                       Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
        qtbot.waitUntil(lambda: "Merge work packages" in titles, timeout=5000)
    finally:
        watch.stop()


def test_a_packages_person_stays_with_the_package(
    window, tmp_path, event_loop_qt, qtbot
) -> None:
    """"Work as this package's person" holds in the package only; back in the
    coordinator's project captions are stored under the name chosen there. The
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
    qtbot.waitUntil(lambda: writer.pair_id is not None)  # the queue's first pair came
    pair = writer.pair_id
    writer.editor.setFocus()
    qtbot.keyClicks(writer.editor, "is longer")
    qtbot.keyClick(writer.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: writer.pair_id != pair)
    with Project.open(coordinator) as project:
        authors = {c.author for c in store.captions_for_pair(project, pair) if c.text == "is longer"}
    assert authors == {"zoe"}
