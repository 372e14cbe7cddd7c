"""Deciding attribute suggestions for a team server from the desktop studio: A accepts,
Shift+R rejects the rest, Enter sends the image's decisions (one edit) and brings the
next image (the Attributes pane's own image-by-image view, on the server's queue)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from studio.store import Project
from studio.store.transfer import copy_project
from studio.team.rehearsal import build_project

WAIT_MS = 30000


def test_an_annotator_decides_the_servers_suggestions(
    qtbot, window, team_server, postgresql_url: str, tmp_path: Path
) -> None:
    build_project(tmp_path / "lite", ("rae", "ray"), n_images=40, n_pairs=4).close()
    copy_project(tmp_path / "lite", postgresql_url)
    server, keys = team_server({"ann": "annotator"})
    key = keys["ann"]
    team = window.services.team
    team.connect_to(server.base, key)
    qtbot.waitUntil(lambda: team.role == "annotator", timeout=WAIT_MS)
    window.show_pane(2)
    view = window.panes[2].team_attributes
    qtbot.waitUntil(lambda: view.item is not None, timeout=WAIT_MS)
    assert view.hasFocus()
    image = view.item.image_id
    with Project.open(postgresql_url) as project:  # the hidden Captions pane holds none
        held = project.db.execute(
            "SELECT kind FROM server_leases WHERE holder = 'ann'").fetchall()
    assert held == [("attribute",)]
    names = view.chips.names()  # in the order shown: the first is current
    assert names and sorted(names) == sorted(s.attribute for s in view.item.suggestions)
    qtbot.keyClick(view, Qt.Key.Key_A)
    qtbot.keyClick(view, Qt.Key.Key_R, Qt.KeyboardModifier.ShiftModifier)
    assert view.chips.chips[0].text().startswith("✓")
    assert all(chip.text().startswith("✗") for chip in view.chips.chips[1:])
    qtbot.keyClick(view, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: view.item is not None and view.item.image_id != image,
                    timeout=WAIT_MS)
    assert view.state.text() == f"Image {image}: decisions saved."
    with Project.open(postgresql_url) as project:
        rows = project.db.execute(
            "SELECT v.name, l.status FROM image_attributes l JOIN attribute_vocab v "
            "ON v.id = l.attribute_id WHERE l.image_id = :image", {"image": image}).fetchall()
    states: dict[str, set[str]] = {}
    for name, status in rows:
        states.setdefault(name, set()).add(status)
    assert states[names[0]] == {"accepted"}
    assert all(states[name] == {"rejected"} for name in names[1:])
