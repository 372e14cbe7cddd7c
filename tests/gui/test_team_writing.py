"""Writing captions for a team server from the desktop studio: pairs come from the
server's queue, drafts and submissions go through the outbox, and a server that stops
mid-session loses nothing: the person keeps typing, the status bar says how many edits
wait, and when the server is back every edit arrives exactly once. Closing the window
while offline keeps the edits for the next start."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from PySide6.QtCore import Qt

from studio.settings import data_dir
from studio.store import Project
from widgets.team_pictures import NOT_OFFLINE

WAIT_MS = 30000


def _outbox_uids() -> list[tuple[str, int | None]]:
    uids: list[tuple[str, int | None]] = []
    for box in (data_dir() / "outbox").glob("*.sqlite"):
        with sqlite3.connect(box) as conn:
            uids += conn.execute("SELECT uid, status FROM outbox ORDER BY seq").fetchall()
    return uids


def _server_state(url: str) -> tuple[list[str], list[tuple]]:
    with Project.open(url) as project:
        uids = [r[0] for r in project.db.execute("SELECT uid FROM server_edits ORDER BY uid")]
        captions = project.db.execute(
            "SELECT c.pair_id, a.name, c.status, c.text FROM captions c "
            "JOIN people a ON a.id = c.author_id ORDER BY c.pair_id"
        ).fetchall()
    return uids, captions


def _connect(qtbot, window, base: str, key: str):
    """Connect as an annotator; the team writer, once it holds a pair."""
    team = window.services.team
    team.connect_to(base, key)
    qtbot.waitUntil(lambda: team.connected and team.role == "annotator", timeout=WAIT_MS)
    window.show_pane(1)
    writer = window.panes[1].team_writer
    qtbot.waitUntil(lambda: writer.item is not None, timeout=WAIT_MS)
    return writer


def _type(qtbot, writer, text: str) -> None:
    qtbot.keyClicks(writer.editor, text)


def _submit(qtbot, writer) -> None:
    qtbot.keyClick(writer.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)


def test_captions_written_in_team_mode_survive_a_server_stop(
    qtbot, window, team_server, postgresql_url: str, tmp_path: Path
) -> None:
    server, keys = team_server({"ana": "annotator"}, pairs=3)
    writer = _connect(qtbot, window, server.base, keys["ana"])
    pane = window.panes[1]
    assert pane.team_mode() and writer.editor.hasFocus()
    assert writer.info.text().startswith(f"Pair {writer.item.pair_id}")
    # The pictures come from the server (authenticated, cached on disk by the client).
    pictures = pane.team_pictures
    qtbot.waitUntil(lambda: not pictures.reference.picture.pixmap().isNull()
                    and not pictures.target.picture.pixmap().isNull(), timeout=WAIT_MS)
    first = writer.item.pair_id
    _type(qtbot, writer, "is darker")
    qtbot.waitUntil(lambda: writer.state.text().startswith("Draft saved"), timeout=WAIT_MS)
    _submit(qtbot, writer)
    qtbot.waitUntil(lambda: writer.item is not None and writer.item.pair_id != first,
                    timeout=WAIT_MS)
    assert writer.state.text() == f"Pair {first}: caption submitted."
    second = writer.item.pair_id
    _type(qtbot, writer, "is longer")
    qtbot.waitUntil(lambda: writer.state.text().startswith("Draft saved"), timeout=WAIT_MS)

    server.stop()  # the network drops mid-session; the person keeps typing
    _type(qtbot, writer, " with")
    qtbot.waitUntil(lambda: window.team_status.text().startswith("offline — "),
                    timeout=WAIT_MS)
    _type(qtbot, writer, " buttons")
    qtbot.waitUntil(lambda: writer.state.text().startswith("Draft kept on this computer"),
                    timeout=WAIT_MS)
    assert writer.editor.isEnabled() and writer.item.pair_id == second
    # Offline, a picture never fetched says so; one in a local copy of the image root
    # still shows.
    pictures.show_item({"reference_id": "never-fetched", "target_id": None})
    qtbot.waitUntil(lambda: pictures.reference.picture.text() == NOT_OFFLINE,
                    timeout=WAIT_MS)
    window.workspace.settings.team_image_root = str(tmp_path / "lite")
    pictures.show_item({"reference_id": "dress-00001", "target_id": "dress-00002"})
    qtbot.waitUntil(lambda: not pictures.reference.picture.pixmap().isNull(),
                    timeout=WAIT_MS)
    _submit(qtbot, writer)
    qtbot.waitUntil(lambda: "waits on this computer" in writer.state.text(),
                    timeout=WAIT_MS)
    waiting = window.services.team.waiting
    assert waiting >= 2
    assert window.team_status.text() == f"offline — {waiting} edits waiting"

    server.start()  # back: everything waiting goes out, and the next pair comes
    qtbot.waitUntil(lambda: window.team_status.text() == "online as ana (annotator)",
                    timeout=WAIT_MS)
    qtbot.waitUntil(lambda: writer.item is not None and writer.item.pair_id not in
                    (first, second), timeout=WAIT_MS)
    sent = _outbox_uids()
    assert sent and all(status == 200 for _uid, status in sent)
    applied, captions = _server_state(postgresql_url)
    assert sorted(uid for uid, _status in sent) == applied  # every edit, each once
    assert sorted(captions) == sorted([(first, "ana", "submitted", "is darker"),
                                       (second, "ana", "submitted", "is longer with buttons")])


def test_edits_left_waiting_at_close_are_sent_on_the_next_start(
    qtbot, window, team_server, postgresql_url: str
) -> None:
    from studio.workspace import Workspace
    from widgets.main_window import MainWindow
    from widgets.services import Services

    server, keys = team_server({"ana": "annotator"}, pairs=2)
    writer = _connect(qtbot, window, server.base, keys["ana"])
    pair = writer.item.pair_id
    server.stop()
    _type(qtbot, writer, "has a round collar")  # typed offline, closed before a pause
    window.close()  # the flush at shutdown puts the text in the outbox
    assert [status for _uid, status in _outbox_uids()] == [None]
    assert _server_state(postgresql_url)[0] == []

    again = Services(Workspace())
    second = MainWindow(again)  # connects to the saved server, still away
    qtbot.addWidget(second, before_close_func=lambda _w: again.shutdown())
    second.show()
    try:
        qtbot.waitUntil(lambda: second.team_status.text() == "offline — 1 edit waiting",
                        timeout=WAIT_MS)
        server.start()  # it comes back: the studio learns who it is and sends
        qtbot.waitUntil(lambda: second.team_status.text() == "online as ana (annotator)",
                        timeout=WAIT_MS)
        second_writer = second.panes[1].team_writer
        second.show_pane(1)
        qtbot.waitUntil(lambda: second_writer.item is not None, timeout=WAIT_MS)
        # the pair held before the close comes back, with the text typed offline
        assert second_writer.item.pair_id == pair
        assert second_writer.editor.text() == "has a round collar"
    finally:
        again.shutdown()
    assert [status for _uid, status in _outbox_uids()] == [200]
    applied, captions = _server_state(postgresql_url)
    assert len(applied) == 1
    assert captions == [(pair, "ana", "draft", "has a round collar")]


def _holds_a_pair(url: str, holder: str) -> bool:
    """Whether the holder's caption lease is still unexpired in the server's database: a
    renewal sent just before the keeper stopped may still land (the net lane is slow on a
    loaded machine) and hold the pair a second more."""
    import time as clock

    from studio.store.repos import server as server_repo

    with Project.open(url) as project:
        return server_repo.held_lease(project, server_repo.CAPTION, holder, clock.time()) is not None


def test_a_full_quota_is_said_in_one_line_and_the_next_pair_comes(
    qtbot, window, team_server, tmp_path: Path
) -> None:
    """Two people wrote the pair while this one held it past the lease: the server refuses
    the submission; the writer says so and hands the next pair."""
    server, keys = team_server({"ana": "annotator", "bo": "annotator"}, pairs=3, per_pair=1,
                               lease_seconds=1)
    writer = _connect(qtbot, window, server.base, keys["ana"])
    pair = writer.item.pair_id
    writer.lease.stop()  # ana leaves the pair open long enough for the lease to end
    qtbot.waitUntil(lambda: not _holds_a_pair(server.url, "ana"), timeout=WAIT_MS)
    from studio.server.client import Client

    bo = Client(server.base, keys["bo"], tmp_path / "bo.sqlite")
    try:
        taken = bo.next_item()
        assert taken is not None and taken["pair_id"] == pair
        bo.submit(pair, "is blue")
        assert bo.waiting() == 0
    finally:
        bo.close()
    _type(qtbot, writer, "is red")
    _submit(qtbot, writer)
    qtbot.waitUntil(lambda: "did not take this caption" in writer.state.text(),
                    timeout=WAIT_MS)
    assert writer.state.text().startswith(f"Pair {pair}: the server did not take")
    qtbot.waitUntil(lambda: writer.item is not None and writer.item.pair_id != pair,
                    timeout=WAIT_MS)


def test_edits_kept_before_a_kill_are_sent_by_the_next_start(
    qtbot, team_server, postgresql_url: str
) -> None:
    """The studio dies (SIGKILL) while the server is away and the person types: what
    reached the outbox (saved at least once a second) is sent by the next start."""
    import ast
    import signal

    from studio.workspace import Workspace
    from tests.gui.test_close_and_kill import run_worker
    from widgets.main_window import MainWindow
    from widgets.services import Services

    server, keys = team_server({"ana": "annotator"}, pairs=2)
    key = keys["ana"]
    process = run_worker("team-type-then-kill", server.base, key, 2.5)
    try:
        line = process.stdout.readline()
        assert line.startswith("holding "), process.stderr.read()[-3000:]
        pair = int(line.split()[1])
        server.stop()
        out, err = process.communicate(input="go\n", timeout=120)
        assert process.returncode == -signal.SIGKILL, err[-3000:]
        typed = ast.literal_eval(out.split("typed ", 1)[1].strip())
        assert _server_state(postgresql_url)[1] == []  # nothing reached the server

        server.start()
        services = Services(Workspace())
        window = MainWindow(services)  # connects to the saved server, sends what waits
        qtbot.addWidget(window, before_close_func=lambda _w: services.shutdown())
        try:
            qtbot.waitUntil(lambda: window.team_status.text() == "online as ana (annotator)",
                            timeout=WAIT_MS)
        finally:
            services.shutdown()
    finally:
        if process.poll() is None:
            process.kill()
    applied, captions = _server_state(postgresql_url)
    assert [status for _uid, status in _outbox_uids()] == [200] * len(applied)
    assert len(captions) == 1 and captions[0][:3] == (pair, "ana", "draft")
    draft = captions[0][3]
    assert typed.startswith(draft) and len(draft) >= len(typed) // 3, (draft, typed)


def test_a_caption_sent_once_the_server_is_back_no_longer_says_it_waits(
    qtbot, window, team_server, postgresql_url: str
) -> None:
    server, keys = team_server({"ana": "annotator"}, pairs=3)
    writer = _connect(qtbot, window, server.base, keys["ana"])
    first = writer.item.pair_id
    server.stop()
    _type(qtbot, writer, "is darker")
    _submit(qtbot, writer)
    qtbot.waitUntil(lambda: writer.state.text().startswith(
        f"Pair {first}: your caption waits on this computer"), timeout=WAIT_MS)
    server.start()  # the outbox goes out: the line says the server took it
    qtbot.waitUntil(lambda: writer.item is not None and writer.item.pair_id != first,
                    timeout=WAIT_MS)
    qtbot.waitUntil(lambda: writer.state.text() == f"Pair {first}: caption submitted.",
                    timeout=WAIT_MS)
    assert window.services.team.waiting == 0
    assert _server_state(postgresql_url)[1] == [(first, "ana", "submitted", "is darker")]


def test_a_rejected_caption_comes_back_to_its_author_with_the_reason(
    qtbot, window, team_server, tmp_path: Path
) -> None:
    from studio.server.client import Client

    server, keys = team_server({"ana": "annotator", "rev": "reviewer"}, pairs=1, per_pair=1)
    writer = _connect(qtbot, window, server.base, keys["ana"])
    pair = writer.item.pair_id
    _type(qtbot, writer, "is red")
    _submit(qtbot, writer)
    qtbot.waitUntil(lambda: writer.info.text().startswith("All done"), timeout=WAIT_MS)
    rev = Client(server.base, keys["rev"], tmp_path / "rev.sqlite")
    try:
        review = rev.next_review()
        assert review is not None and review["pair_id"] == pair
        rev.decide(review["caption_id"], "reject", "names the reference, not the target")
        assert rev.waiting() == 0
    finally:
        rev.close()
    window.show_pane(0)  # ana comes back to the Captions pane: the pair is hers again
    window.show_pane(1)
    qtbot.waitUntil(lambda: writer.item is not None, timeout=WAIT_MS)
    assert writer.item.pair_id == pair and writer.editor.text() == ""
    assert writer.state.text() == (
        "Your earlier caption “is red” was rejected by rev: names the reference, not the "
        "target")


ALT = Qt.KeyboardModifier.AltModifier
CTRL = Qt.KeyboardModifier.ControlModifier


def _flags(url: str) -> dict[int, str]:
    from studio.captions.store import flagged_pairs

    with Project.open(url) as project:
        return flagged_pairs(project)


def test_flag_and_previous_next_work_in_team_mode_and_reach_the_server(
    qtbot, window, team_server, postgresql_url: str
) -> None:
    """The team writer is the local one: Previous/Next step over the server's pairs
    (holding each), Flag sends the reason to the coordinator, and without a local copy of
    the project the live rank says there is none."""
    from widgets.panes.captions_pane import NO_TEAM_RANK

    server, keys = team_server({"ana": "annotator"}, pairs=3)
    writer = _connect(qtbot, window, server.base, keys["ana"])
    assert window.panes[1].team_rank.text() == NO_TEAM_RANK
    first = writer.item.pair_id
    _type(qtbot, writer, "is darker")
    _submit(qtbot, writer)
    qtbot.waitUntil(lambda: writer.item is not None and writer.item.pair_id != first,
                    timeout=WAIT_MS)
    second = writer.item.pair_id
    qtbot.keyClick(writer.editor, Qt.Key.Key_Left, ALT)  # Previous: the caption just sent
    qtbot.waitUntil(lambda: writer.item is not None and writer.item.pair_id == first,
                    timeout=WAIT_MS)
    assert writer.editor.text() == "is darker"
    assert writer.state.text().startswith("Submitted")
    qtbot.keyClick(writer.editor, Qt.Key.Key_Right, ALT)  # Next
    qtbot.waitUntil(lambda: writer.item is not None and writer.item.pair_id == second,
                    timeout=WAIT_MS)
    qtbot.keyClick(writer.editor, Qt.Key.Key_F, CTRL)
    assert writer.reason.isVisible()
    qtbot.keyClicks(writer.reason, "the target is a shoe")
    qtbot.keyClick(writer.reason, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: writer.item is not None and writer.item.pair_id not in
                    (first, second), timeout=WAIT_MS)
    assert writer.state.text().startswith(f"Pair {second} flagged")
    assert _flags(postgresql_url) == {second: "the target is a shoe"}


def test_a_skip_made_offline_waits_in_the_outbox_and_is_sent_on_reconnect(
    qtbot, window, team_server, postgresql_url: str
) -> None:
    server, keys = team_server({"ana": "annotator"}, pairs=3)
    writer = _connect(qtbot, window, server.base, keys["ana"])
    skipped = writer.item.pair_id
    server.stop()
    qtbot.keyClick(writer.editor, Qt.Key.Key_K, CTRL)
    qtbot.waitUntil(lambda: writer.state.text() == f"Pair {skipped} skipped.",
                    timeout=WAIT_MS)
    assert writer.item is None and not writer.editor.isEnabled()
    assert writer.info.text().startswith("The team server does not answer")
    assert [status for _uid, status in _outbox_uids()] == [None]  # kept on this computer
    qtbot.waitUntil(lambda: window.team_status.text() == "offline — 1 edit waiting",
                    timeout=WAIT_MS)
    server.start()  # the skip goes out, and the next pair comes
    qtbot.waitUntil(lambda: writer.item is not None, timeout=WAIT_MS)
    assert writer.item.pair_id != skipped
    sent = _outbox_uids()
    assert [status for _uid, status in sent] == [200]
    assert _server_state(postgresql_url)[0] == [sent[0][0]]


def test_offline_next_says_in_one_line_that_it_needs_the_server(
    qtbot, window, team_server
) -> None:
    from studio.work_queue.remote import OFFLINE

    server, keys = team_server({"ana": "annotator"}, pairs=3)
    writer = _connect(qtbot, window, server.base, keys["ana"])
    held = writer.item.pair_id
    server.stop()
    qtbot.keyClick(writer.editor, Qt.Key.Key_Right, ALT)
    qtbot.waitUntil(lambda: writer.state.text() == OFFLINE["previous"], timeout=WAIT_MS)
    assert writer.item.pair_id == held and writer.editor.isEnabled()
    _type(qtbot, writer, "is red")  # writing goes on
    qtbot.waitUntil(lambda: writer.state.text().startswith("Draft kept on this computer"),
                    timeout=WAIT_MS)
    qtbot.keyClick(writer.editor, Qt.Key.Key_Left, ALT)  # known offline now: said at once
    assert writer.state.text() == OFFLINE["previous"]
    assert writer.item.pair_id == held and writer.editor.text() == "is red"
