"""Reviewing captions for a team server from the desktop studio: the same reviewer as for
a project, with its keys (Ctrl+Enter accepts with the reviewer's edit, Ctrl+R and a reason
rejects, Alt+Left/Right previous/next, Ctrl+Alt+Z undoes the last decision) and its
automatic flags; a decision made while the server is away waits on this computer, and
what needs the server says so in one line."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from studio.server.client import Client
from studio.store import Project
from studio.work_queue.remote_review import OFFLINE

WAIT_MS = 30000
CTRL = Qt.KeyboardModifier.ControlModifier
ALT = Qt.KeyboardModifier.AltModifier


def _written(server, keys, tmp_path: Path, texts: tuple[str, ...]) -> None:
    """ana writes one caption per pair through the server."""
    ana = Client(server.base, keys["ana"], tmp_path / "ana.sqlite")
    try:
        for text in texts:
            item = ana.next_item()
            ana.submit(item["pair_id"], text)
        assert ana.waiting() == 0
    finally:
        ana.close()


def _review(qtbot, window, base: str, key: str):
    """Connect as a reviewer; the reviewer, once it holds a caption."""
    team = window.services.team
    team.connect_to(base, key)
    qtbot.waitUntil(lambda: team.role == "reviewer", timeout=WAIT_MS)
    window.show_pane(1)
    reviewer = window.panes[1].team_reviewer
    qtbot.waitUntil(lambda: reviewer.item is not None, timeout=WAIT_MS)
    assert window.panes[1].team_panels.currentWidget() is reviewer
    return reviewer


def _decisions(url: str) -> dict[int, tuple]:
    with Project.open(url) as project:
        rows = project.db.execute(
            "SELECT c.id, c.status, c.text, r.name, c.reject_reason FROM captions c "
            "LEFT JOIN people r ON r.id = c.reviewer_id ORDER BY c.id").fetchall()
    return {row[0]: tuple(row[1:]) for row in rows}


def test_a_reviewer_accepts_and_rejects_the_servers_captions(
    qtbot, window, team_server, postgresql_url: str, tmp_path: Path
) -> None:
    server, keys = team_server({"ana": "annotator", "rev": "reviewer"}, pairs=2, per_pair=1)
    _written(server, keys, tmp_path, ("is red", "is blue"))
    reviewer = _review(qtbot, window, server.base, keys["rev"])
    first = reviewer.caption_id
    qtbot.keyClicks(reviewer.editor, ", with a collar")
    qtbot.keyClick(reviewer.editor, Qt.Key.Key_Return, CTRL)
    qtbot.waitUntil(lambda: reviewer.caption_id not in (None, first), timeout=WAIT_MS)
    second = reviewer.caption_id
    qtbot.keyClick(reviewer.editor, Qt.Key.Key_R, CTRL)
    assert reviewer.reason.isVisible()
    qtbot.keyClicks(reviewer.reason, "names the reference, not the target")
    qtbot.keyClick(reviewer.reason, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: reviewer.info.text().startswith("Nothing to review"),
                    timeout=WAIT_MS)
    assert reviewer.state.text() == f"Caption {second}: rejected."
    decided = _decisions(postgresql_url)
    assert decided[first][0] == "accepted" and decided[first][1].endswith(", with a collar")
    assert decided[first][2] == "rev"
    assert decided[second] == ("rejected", decided[second][1], "rev",
                               "names the reference, not the target")


def test_team_review_shows_flags_and_steps_back_to_undo_a_decision(
    qtbot, window, team_server, postgresql_url: str, tmp_path: Path
) -> None:
    server, keys = team_server({"ana": "annotator", "rev": "reviewer"}, pairs=2, per_pair=1)
    _written(server, keys, tmp_path, ("x", "is blue with a collar"))
    reviewer = _review(qtbot, window, server.base, keys["rev"])
    first = reviewer.caption_id
    assert "Very short (1 word)" in reviewer.flags.text()  # the automatic flags, as locally
    assert "caption by ana" in reviewer.info.text()
    qtbot.keyClick(reviewer.editor, Qt.Key.Key_R, CTRL)
    qtbot.keyClicks(reviewer.reason, "say what differs")
    qtbot.keyClick(reviewer.reason, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: reviewer.caption_id not in (None, first), timeout=WAIT_MS)
    assert reviewer.flags.text() == ""
    qtbot.keyClick(reviewer.editor, Qt.Key.Key_Left, ALT)  # Previous: the caption rejected
    qtbot.waitUntil(lambda: reviewer.caption_id == first, timeout=WAIT_MS)
    assert reviewer.state.text() == "Rejected by rev: say what differs"
    qtbot.keyClick(reviewer.editor, Qt.Key.Key_Z, CTRL | ALT)
    qtbot.waitUntil(lambda: "submitted again" in reviewer.state.text(), timeout=WAIT_MS)
    assert reviewer.caption_id == first
    assert _decisions(postgresql_url)[first] == ("submitted", "x", None, None)


def test_a_decision_made_offline_waits_and_reaches_the_server_on_reconnect(
    qtbot, window, team_server, postgresql_url: str, tmp_path: Path
) -> None:
    server, keys = team_server({"ana": "annotator", "rev": "reviewer"}, pairs=3, per_pair=1)
    _written(server, keys, tmp_path, ("is red", "is blue", "is green"))
    reviewer = _review(qtbot, window, server.base, keys["rev"])
    first = reviewer.caption_id
    server.stop()
    qtbot.keyClick(reviewer.editor, Qt.Key.Key_Return, CTRL)
    qtbot.waitUntil(lambda: reviewer.state.text().startswith(
        f"Caption {first}: accepted; the decision waits on this computer"), timeout=WAIT_MS)
    assert reviewer.item is None and reviewer.info.text() == OFFLINE["next"]
    # what needs the server says so in one line
    qtbot.keyClick(reviewer.editor, Qt.Key.Key_Left, ALT)
    assert reviewer.state.text() == OFFLINE["previous"]
    qtbot.keyClick(reviewer.editor, Qt.Key.Key_Z, CTRL | ALT)
    assert reviewer.state.text() == OFFLINE["undo_decision"]
    qtbot.waitUntil(lambda: window.team_status.text() == "offline — 1 edit waiting",
                    timeout=WAIT_MS)
    server.start()  # the decision goes out, and the next caption comes
    qtbot.waitUntil(lambda: reviewer.caption_id not in (None, first), timeout=WAIT_MS)
    assert _decisions(postgresql_url)[first] == ("accepted", "is red", "rev", None)
    qtbot.waitUntil(lambda: window.team_status.text() == "online as rev (reviewer)",
                    timeout=WAIT_MS)
