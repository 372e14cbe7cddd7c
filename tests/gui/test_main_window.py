"""The shell: panes, navigation by keyboard, projects, dialogs, status-bar jobs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import Qt

from studio import __version__
from studio.settings import Settings
from studio.store import Project

ROOT = Path(__file__).resolve().parents[2]
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
