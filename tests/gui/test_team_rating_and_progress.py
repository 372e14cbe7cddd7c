"""Rating and watching through a team server from the desktop studio: a rater rates the
turn the server hands out, blind, with the local keys; a coordinator's Dashboard shows
the team's live progress."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from studio.quality.ratings import load_item, rater_progress
from studio.quality.sampling import SampleOptions, create_sample
from studio.store import Project
from studio.store.transfer import copy_project
from studio.team.rehearsal import build_project

WAIT_MS = 30000


def _connect(qtbot, window, base: str, key: str, role: str) -> None:
    team = window.services.team
    team.connect_to(base, key)
    qtbot.waitUntil(lambda: team.connected and team.role == role, timeout=WAIT_MS)


def test_a_rater_rates_blind_and_a_coordinator_watches_live(
    qtbot, window, team_server, postgresql_url: str, tmp_path: Path
) -> None:
    build_project(tmp_path / "lite", ("rae", "ray"), n_images=40, n_pairs=4).close()
    copy_project(tmp_path / "lite", postgresql_url)
    server, keys = team_server({"rae": "rater", "cora": "coordinator"})
    _connect(qtbot, window, server.base, keys["rae"], "rater")
    window.show_pane(4)
    pane = window.panes[4]
    view = pane.team_rating
    qtbot.waitUntil(lambda: view.item is not None, timeout=WAIT_MS)
    assert pane.team_mode() and view.form.hasFocus()
    first = view.item.assignment_id
    assert not view.rater.isVisible()  # the rater is whoever connected
    shown = " ".join(w.text() for w in (view.current_strip.heading, view.message,
                                        view.progress,
                                        *(t.heading for t in view.earlier_turns)))
    assert "SecretSet" not in shown  # no dataset name, no origin
    qtbot.keyClick(view.form, Qt.Key.Key_Return)  # nothing scored yet: says what to do
    assert view.message.text().startswith("Score every criterion first")
    for key in (Qt.Key.Key_4, Qt.Key.Key_3, Qt.Key.Key_5, Qt.Key.Key_4, Qt.Key.Key_2):
        qtbot.keyClick(view.form, key)
    qtbot.keyClick(view.form, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: view.item is not None and view.item.assignment_id != first,
                    timeout=WAIT_MS)
    second = view.item.assignment_id

    def status_of(assignment: int) -> str:
        with Project.open(postgresql_url) as project:
            return load_item(project, assignment, "rae").status

    def note_of(assignment: int) -> tuple[str, str]:
        with Project.open(postgresql_url) as project:
            item = load_item(project, assignment, "rae")
            return item.note, item.status

    # The figures are the local Rate tab's, and a note is kept as it is typed.
    assert view.progress.text().startswith("Item 2 of ")
    assert " · 1 done · 0 skipped · 0 flagged · " in view.progress.text()
    view.note.setText("the target is blurred")
    view.note.editingFinished.emit()
    qtbot.waitUntil(lambda: note_of(second) == ("the target is blurred", "pending"),
                    timeout=WAIT_MS)
    view.form.setFocus()
    qtbot.keyClick(view.form, Qt.Key.Key_S)

    # The view lets go of the turn at once; the skip reaches the server just after.
    qtbot.waitUntil(lambda: status_of(second) == "skipped", timeout=WAIT_MS)
    with Project.open(postgresql_url) as project:
        rated = load_item(project, first, "rae")
    assert rated.status == "done" and rated.scores == {
        "accuracy": 4, "historical_awareness": 3, "granularity": 5, "consistency": 4,
        "coverage": 2}

    window.services.team.disconnect()
    assert not pane.team_mode()
    _connect(qtbot, window, server.base, keys["cora"], "coordinator")
    window.show_pane(5)
    live = window.panes[5].team_live
    qtbot.waitUntil(lambda: live.figures is not None, timeout=WAIT_MS)
    assert live.isVisible() and "complete" in live.summary.text()
    assert live.figures["pairs"] == 4


def test_the_rater_opens_on_the_sample_with_work_and_sees_every_turn_numbered_with_pictures(
    qtbot, window, team_server, postgresql_url: str, tmp_path: Path
) -> None:
    # "main" is ray's and rex's; rae's queue is in the sample "srv".
    with build_project(tmp_path / "lite", ("ray", "rex"), n_images=40, n_pairs=4) as project:
        create_sample(project, SampleOptions(raters=("rae",), name="srv", share=1.0,
                                             per_item=1), "lead")
        waiting = rater_progress(project, "srv", "rae").pending
    assert waiting > 3
    copy_project(tmp_path / "lite", postgresql_url)
    server, keys = team_server({"rae": "rater"})
    _connect(qtbot, window, server.base, keys["rae"], "rater")
    window.show_pane(4)
    view = window.panes[4].team_rating
    qtbot.waitUntil(lambda: view.item is not None, timeout=WAIT_MS)
    assert view.sample.currentData() == "srv"
    names = [view.sample.itemText(i) for i in range(view.sample.count())]
    assert names == [f"srv · {waiting} to rate"]
    assert "Nothing left" not in view.message.text()
    # Skip on to a third turn: the earlier two show with their pictures, numbered as
    # the turns are (1, 2, then the turn rated, 3).
    for _ in range(waiting):
        qtbot.waitUntil(lambda: view.item is not None, timeout=WAIT_MS)
        if view.item.turn.index == 3:
            break
        qtbot.keyClick(view.form, Qt.Key.Key_S)
    assert view.current_strip.heading.text().startswith("Turn 3: ")
    earlier = view.earlier_turns
    assert [turn.heading.text().split(":")[0] for turn in earlier] == ["Turn 1", "Turn 2"]
    qtbot.waitUntil(lambda: all(
        not panel.picture.pixmap().isNull()
        for turn in earlier for panel in (turn.pictures.reference, turn.pictures.target)
    ), timeout=WAIT_MS)
