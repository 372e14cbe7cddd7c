"""Reviewing captions for a team server from the desktop studio, with the local keys:
Ctrl+Enter accepts (with the reviewer's edit), Ctrl+R and a reason rejects."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from studio.server.client import Client
from studio.store import Project

WAIT_MS = 30000


def test_a_reviewer_accepts_and_rejects_the_servers_captions(
    qtbot, window, team_server, postgresql_url: str, tmp_path: Path
) -> None:
    server, keys = team_server({"ana": "annotator", "rev": "reviewer"}, pairs=2, per_pair=1)
    ana = Client(server.base, keys["ana"], tmp_path / "ana.sqlite")
    try:
        for text in ("is red", "is blue"):
            item = ana.next_item()
            ana.submit(item["pair_id"], text)
        assert ana.waiting() == 0
    finally:
        ana.close()
    team = window.services.team
    team.connect_to(server.base, keys["rev"])
    qtbot.waitUntil(lambda: team.role == "reviewer", timeout=WAIT_MS)
    window.show_pane(1)
    reviewer = window.panes[1].team_reviewer
    qtbot.waitUntil(lambda: reviewer.item is not None, timeout=WAIT_MS)
    assert window.panes[1].team_panels.currentWidget() is reviewer
    first = reviewer.item["caption_id"]
    qtbot.keyClicks(reviewer.editor, ", with a collar")
    qtbot.keyClick(reviewer.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: reviewer.item is not None and reviewer.item["caption_id"] != first,
                    timeout=WAIT_MS)
    second = reviewer.item["caption_id"]
    qtbot.keyClick(reviewer.editor, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    assert reviewer.reason.isVisible()
    qtbot.keyClicks(reviewer.reason, "names the reference, not the target")
    qtbot.keyClick(reviewer.reason, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: reviewer.info.text().startswith("All done"), timeout=WAIT_MS)
    assert reviewer.state.text() == f"Caption {second}: rejected."
    with Project.open(postgresql_url) as project:
        rows = project.db.execute(
            "SELECT c.id, c.status, c.text, r.name, c.reject_reason FROM captions c "
            "JOIN people r ON r.id = c.reviewer_id ORDER BY c.id").fetchall()
    decided = {row[0]: row[1:] for row in rows}
    assert decided[first][0] == "accepted" and decided[first][1].endswith(", with a collar")
    assert decided[first][2] == "rev"
    assert decided[second] == ("rejected", decided[second][1], "rev",
                               "names the reference, not the target")
