"""The shell: panes, navigation by keyboard, projects, dialogs, status-bar jobs."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from studio import __version__
from studio.pairs.mining import mine_pairs
from studio.settings import Settings
from studio.store import Project
from tests.gui.window_panes import show_pane_titled

ROOT = Path(__file__).resolve().parents[2]
CTRL = Qt.KeyboardModifier.ControlModifier
EXPECTED_PANES = ["Pairs", "Captions", "Attributes", "Retrieval", "Quality", "Dashboard"]


def test_all_panes_are_reachable_by_keyboard(window, qtbot) -> None:
    assert window.pane_titles() == EXPECTED_PANES
    for number, title in enumerate(EXPECTED_PANES, start=1):
        qtbot.keyClick(window, Qt.Key.Key_0 + number, Qt.KeyboardModifier.ControlModifier)
        assert window.stack.currentWidget().title == title


def test_dashboard_shows_an_empty_state_then_the_project(window, demo_project_dir) -> None:
    dashboard = window.panes[-1]
    assert dashboard._stack.currentIndex() == 0  # "No project open"
    assert window.open_project(demo_project_dir)
    assert dashboard._stack.currentIndex() == 1
    assert dashboard.count_labels["images"].text() == "60"
    table = dashboard.split_table
    assert [table.verticalHeaderItem(r).text() for r in range(table.rowCount())] == [
        "dress", "shirt", "toptee"
    ]
    assert "CIR Studio demo" in window.windowTitle()
    assert "60 images" in window.project_label.text()


def test_opening_a_project_remembers_it(window, demo_project_dir) -> None:
    window.open_project(demo_project_dir)
    assert Settings.load().recent_projects[0] == str((demo_project_dir / "project.cirdb").resolve())


def test_a_broken_project_shows_an_error_and_keeps_the_current_one(
    window, demo_project_dir, tmp_path
) -> None:
    window.open_project(demo_project_dir)
    junk = tmp_path / "junk.cirdb"
    junk.write_bytes(b"garbage" * 200)
    assert not window.open_project(junk)
    assert window.workspace.project is not None
    assert window.workspace.project.path == (demo_project_dir / "project.cirdb").resolve()


def test_create_project_through_the_workspace_updates_the_window(window, tmp_path) -> None:
    window.workspace.create_project(tmp_path / "fresh", name="Fresh")
    assert window.windowTitle() == "CIR Studio — Fresh"
    assert isinstance(window.workspace.project, Project)


def test_settings_dialog_saves(window, qtbot) -> None:
    from widgets.settings_dialog import SettingsDialog

    dialog = SettingsDialog(window.workspace.settings, window)
    qtbot.addWidget(dialog)
    dialog.user_name.setText("Ana")
    dialog.device.setCurrentText("cpu")
    dialog.accept()
    stored = Settings.load()
    assert (stored.user_name, stored.device) == ("Ana", "cpu")
    assert window.workspace.user_name == "Ana"


def test_about_shows_version_model_and_device(window, qtbot) -> None:
    from widgets.about_dialog import AboutDialog

    dialog = AboutDialog(window.workspace.settings, window)
    qtbot.addWidget(dialog)
    text = dialog.text.text()
    assert __version__ in text and "Model:</b> demo" in text and "Device:" in text


def test_job_status_shows_progress_and_cancels(window, qtbot, event_loop_qt) -> None:
    import time

    from studio.jobs import JobCancelled

    def slow(*, progress, cancel):
        for i in range(1000):
            cancel.raise_if_cancelled()
            progress(i, 1000, f"item {i}")
            time.sleep(0.005)

    status = window.job_status

    def press_cancel_when_visible(job_id, done, total, message):
        if done == 5:
            assert status.isVisible()
            assert status.bar.maximum() == 1000
            status.cancel_button.click()

    window.runner.progressed.connect(press_cancel_when_visible)
    try:
        event_loop_qt.run_until_complete(window.runner.run("Slow job", slow))
    except JobCancelled:
        pass
    else:
        raise AssertionError("the job was not cancelled")
    qtbot.waitUntil(lambda: not status.isVisible())


def test_smoke_test_writes_one_png_per_pane_at_both_sizes(demo_project_dir, tmp_path) -> None:
    shots = tmp_path / "shots"
    result = subprocess.run(
        [sys.executable, "-m", "studio", "--smoke-test", "--project", str(demo_project_dir),
         "--screenshots", str(shots)],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["ok"] is True
    assert report["heavy_modules_at_window"] == []
    assert report["time_to_window_s"] > 0
    assert set(report["panes"]) == set(EXPECTED_PANES)
    pngs = sorted(shots.glob("*.png"))
    assert len(pngs) == 2 * len(EXPECTED_PANES)
    for size in ("1600x1000", "1024x700"):
        assert len([p for p in pngs if p.stem.endswith(size)]) == len(EXPECTED_PANES)
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)


def test_a_postgresql_project_shows_its_url_without_the_password(
    window, postgresql_url, tmp_path
) -> None:
    from urllib.parse import urlsplit

    parts = urlsplit(postgresql_url)
    # The test server trusts its socket, so any password connects; the window must not show it.
    with_password = parts._replace(netloc=f"{parts.username or 'postgres'}:s3cret@{parts.hostname or ''}"
                                   + (f":{parts.port}" if parts.port else "")).geturl()
    Project.create(with_password, "Team", local_path=tmp_path / "project.pg").close()
    assert window.open_project(with_password)
    dashboard = window.panes[-1]
    for shown in (dashboard.heading.text(), window.project_label.text()):
        assert "postgresql://" in shown and parts.path.lstrip("/") in shown
        assert "s3cret" not in shown and "project.pg" not in shown


def cli_formats(command: str) -> list[str]:
    import argparse

    from studio.cli.main import build_parser

    top = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    kinds = next(a for a in top.choices[command]._actions
                 if isinstance(a, argparse._SubParsersAction))
    return list(kinds.choices)


def test_file_import_and_export_list_the_formats_of_the_command_line(window, tmp_path) -> None:
    assert not window.import_menu.isEnabled()  # nothing to import into yet
    window.workspace.create_project(tmp_path / "p")
    assert window.import_menu.isEnabled() and window.export_menu.isEnabled()
    imports = [action.data() for action in window.import_menu.actions()]
    assert imports == cli_formats("import") and len(imports) >= 11
    assert [a.data() for a in window.export_menu.actions()] == cli_formats("export")
    # The Pairs pane's Import… button offers the same list.
    pairs = window.panes[0]
    assert [a.data() for a in pairs.import_button.menu().actions()] == imports


def test_importing_cirr_through_file_import_shows_progress_and_adds_the_pairs(
    window, tmp_path, cirr_fixtures, event_loop_qt
) -> None:
    import asyncio

    window.workspace.create_project(tmp_path / "p")
    [cirr] = [a for a in window.import_menu.actions() if a.data() == "cirr"]
    assert cirr.text() == "CIRR…"
    seen: list[tuple[int, int]] = []
    window.runner.progressed.connect(lambda _id, done, total, _m: seen.append((done, total)))
    cirr.trigger()
    dialog = window.panes[0].format_dialog
    assert window.stack.currentWidget() is window.panes[0]  # the pane that says what it added
    assert dialog.isVisible() and dialog.windowTitle() == "Import CIRR"
    dialog.fields["root"].setText(str(cirr_fixtures))
    dialog.ok_button.click()
    pane = window.panes[0]

    async def imported() -> None:
        while not pane.message.text().startswith("Imported"):
            await asyncio.sleep(0.05)

    event_loop_qt.run_until_complete(asyncio.wait_for(imported(), 120))
    assert seen and seen[-1][0] == seen[-1][1]  # progress reached the status bar's job
    assert pane.message.text().startswith("Imported CIRR: 2,297 images, 400 pairs, 400 captions")
    assert window.workspace.project.count_images(split="val") == 2297
    assert pane.model.rowCount() == 400


def test_exporting_through_file_export_writes_the_file(
    window, demo_project_dir, tmp_path, event_loop_qt
) -> None:
    import asyncio

    window.open_project(demo_project_dir)
    [jsonl] = [a for a in window.export_menu.actions() if a.data() == "jsonl"]
    jsonl.trigger()
    out = tmp_path / "pairs.jsonl"
    window.format_dialog.fields["out"].setText(str(out))
    window.format_dialog.ok_button.click()

    async def written() -> None:
        while "Wrote" not in window.statusBar().currentMessage():
            await asyncio.sleep(0.05)

    event_loop_qt.run_until_complete(asyncio.wait_for(written(), 60))
    lines = out.read_text(encoding="utf-8").splitlines()
    assert window.statusBar().currentMessage().startswith(f"Wrote {len(lines)} pairs with ")


def press_pane_key(qtbot, window, number: int) -> None:
    """Ctrl+<number> as the person presses it, wherever the focus is."""
    target = QApplication.focusWidget() or window
    qtbot.keyClick(target, getattr(Qt.Key, f"Key_{number}"), CTRL)
    QApplication.processEvents()


def test_each_pane_takes_the_keyboard_when_shown(window, demo_project_dir, qtbot) -> None:
    """After Ctrl+3 the review keys (J, A, R, U) work without clicking into the pane."""
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
    qtbot.waitUntil(lambda: captions.writer.editor.isEnabled())  # the queue's first pair came
    assert QApplication.focusWidget() is captions.writer.editor
    press_pane_key(qtbot, window, 1)
    assert QApplication.focusWidget() is window.panes[0].table
    press_pane_key(qtbot, window, 3)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_J)
    assert single.index == 2


def test_demo_on_first_use_shows_the_window_at_once_and_draws_the_demo_as_a_job(qapp) -> None:
    """`cir-studio --demo` with no demo yet: the window is there while the demo is drawn,
    with progress and Cancel in its status bar (it drew 22 s in the terminal first)."""
    from PySide6.QtCore import QTimer

    from studio.cli.gui_launch import launch_gui
    from studio.cli.main import build_parser
    from studio.settings import demo_project_dir
    from widgets.main_window import MainWindow

    seen: dict[str, object] = {}
    before = set(QApplication.topLevelWidgets())  # windows earlier tests left to Qt
    deadline = time.monotonic() + 30

    def look() -> None:
        shown = [w for w in QApplication.topLevelWidgets()
                 if isinstance(w, MainWindow) and w.isVisible() and w not in before]
        window = shown[0] if shown else None
        jobs = [handle.label for handle in window.runner.running.values()] if window else []
        if window is None or (not jobs and time.monotonic() < deadline):
            QTimer.singleShot(200, look)  # the window may still be starting
            return
        seen.update(jobs=jobs, cancel=window.job_status.cancel_button.isVisible(),
                    demo_drawn=(demo_project_dir() / "project.cirdb").exists())
        window.job_status.cancel_button.click()  # the person may stop it
        QTimer.singleShot(300, window.close)

    QTimer.singleShot(200, look)
    sheet = qapp.styleSheet()  # launch_gui sets the studio's; the tests after this one lay
    try:  # out with Qt's own, as they do when run alone
        assert launch_gui(build_parser().parse_args(["--demo"])) == 0
    finally:
        qapp.setStyleSheet(sheet)
    assert seen["jobs"] == ["Creating the demo project"]
    assert seen["cancel"] is True
    assert seen["demo_drawn"] is False  # still being drawn while the window shows


def test_file_dialogs_open_in_the_last_folder_used(
    window, demo_project_dir, tmp_path, monkeypatch
) -> None:
    from PySide6.QtWidgets import QFileDialog

    asked: list[tuple[str, str]] = []

    def dialog(answer):
        def ask(_parent, title, folder="", *_rest):
            asked.append((title, str(folder)))
            return answer
        return ask

    project_file = str(demo_project_dir / "project.cirdb")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", dialog((project_file, "")))
    window.open_project_dialog()
    assert asked[-1][1] != ""  # not the process's working directory
    assert window.workspace.project is not None
    elsewhere = tmp_path / "new-project"
    elsewhere.mkdir()
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", dialog(""))
    window.new_project()  # cancelled at once; where did it start?
    assert asked[-1] == ("Folder for the new project", str(demo_project_dir))
    from widgets.quality_report_view import QualityReportView

    view = show_pane_titled(window, "Quality").findChild(QualityReportView)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", dialog(("", "")))
    view._ask("Export the table as CSV", "CSV (*.csv)", ".csv")
    assert Path(asked[-1][1]).parent == demo_project_dir  # the folder last used
    # and it is remembered for the next start of the studio
    from studio.settings import Settings

    assert Settings.load().last_folder == str(demo_project_dir)


def test_the_window_comes_back_with_its_size_place_and_pane(workspace, qtbot) -> None:
    from studio.workspace import Workspace
    from widgets.main_window import MainWindow

    first = MainWindow(workspace)
    qtbot.addWidget(first)
    first.show()
    # Offscreen, the screen is 800 px wide and Qt keeps a restored window on it: use the
    # window's narrowest width (it opens at 1280 x 820 by default).
    size = (first.minimumWidth(), 700)
    first.resize(*size)
    first.show_pane(3)
    first.close()
    second = MainWindow(Workspace())  # a new start: settings read from disk
    qtbot.addWidget(second)
    second.show()
    assert (second.width(), second.height()) == size
    assert second.navigation.currentRow() == 3
    assert second.stack.currentWidget() is second.panes[3]
    second.services.shutdown()
    first.services.shutdown()


def test_help_manual_opens_the_shipped_manual(window) -> None:
    """Help → Manual hands the system a local file of the manual: the built index.html
    (resources/manual/) or, in a checkout without a build, docs/index.md."""
    opened = []
    window.open_url = lambda url: opened.append(url) or True  # the window's one seam
    actions = {action.text(): action for action in window.help_menu.actions()}
    actions["&Manual"].trigger()
    assert len(opened) == 1
    url = opened[0]
    assert url.isLocalFile()
    page = Path(url.toLocalFile())
    assert page.is_file() and page.name in {"index.html", "index.md"}
    assert "CIR Studio" in page.read_text(encoding="utf-8")
