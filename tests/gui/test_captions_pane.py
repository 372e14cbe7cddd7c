"""The Captions pane, driven by the keyboard as an annotator and a reviewer would."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from studio.captions import store
from studio.captions.records import CaptionPolicy
from studio.captions.store import submit_caption
from studio.pairs.mining import mine_pairs
from studio.store import Project
from tests.gui.window_panes import show_pane_titled
from widgets.panes.captions_pane import CaptionsPane

CTRL = Qt.KeyboardModifier.ControlModifier
ALT = Qt.KeyboardModifier.AltModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier


def open_as(window, path: Path, user: str) -> CaptionsPane:
    """The project open as ``user``, on the Captions pane, once the writer shows its pair
    (the queue answers on the IO lane)."""
    window.workspace.settings.user_name = user
    window.open_project(path)
    window.show_pane(1)
    pane = window.panes[1]
    assert isinstance(pane, CaptionsPane)
    window.activateWindow()
    wait_for(lambda: pane.writer.settled())
    return pane


def wait_for(condition, timeout_s: float = 30.0) -> None:
    """What is on screen after the writer's queue answered (its calls run off the UI
    thread); fails when it does not come."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "the writer's queue did not answer"
        QTest.qWait(10)


def pair_ids(path: Path) -> list[int]:
    with Project.open(path) as project:
        return [r[0] for r in project.db.execute("SELECT id FROM pairs ORDER BY id")]


def type_caption(qtbot, editor, text: str) -> None:
    editor.setFocus()
    editor.selectAll()
    qtbot.keyClicks(editor, text)


def test_write_save_and_next_step_back_and_undo(window, pairs_demo, qtbot) -> None:
    ids = pair_ids(pairs_demo)
    pane = open_as(window, pairs_demo, "ana")
    writer = pane.writer
    assert writer.prompt.text() == "Unlike the provided image, the one I want …"
    assert writer.pair_id == ids[0]
    assert pane.view.reference.title.text()  # the pair is on screen
    type_caption(qtbot, writer.editor, "is red with longer sleeves")
    qtbot.keyClick(writer.editor, Qt.Key.Key_Return, CTRL)
    qtbot.waitUntil(lambda: writer.pair_id == ids[1])
    assert writer.editor.text() == ""
    assert writer.state.text() == f"Pair {ids[0]}: caption submitted."
    with Project.open(pairs_demo) as project:
        [caption] = store.captions_for_pair(project, ids[0])
        assert (caption.text, caption.status, caption.author) == (
            "is red with longer sleeves",
            "submitted",
            "ana",
        )
    # Ctrl+Z in the editor undoes typing; the saved caption is untouched.
    type_caption(qtbot, writer.editor, "has a bow")
    qtbot.keyClick(writer.editor, Qt.Key.Key_Z, CTRL)
    assert writer.editor.text() != "has a bow"
    # Alt+Left goes back to the caption just written.
    qtbot.keyClick(writer.editor, Qt.Key.Key_Left, ALT)
    qtbot.waitUntil(lambda: writer.pair_id == ids[0])
    assert writer.editor.text() == "is red with longer sleeves"
    qtbot.keyClick(writer.editor, Qt.Key.Key_Right, ALT)
    qtbot.waitUntil(lambda: writer.pair_id == ids[1])
    # Ctrl+Alt+Z takes back the last save: the caption is a draft again, on screen.
    qtbot.keyClick(writer.editor, Qt.Key.Key_Z, CTRL | ALT)
    qtbot.waitUntil(lambda: writer.pair_id == ids[0] and "draft again" in writer.state.text())
    assert writer.editor.text() == "is red with longer sleeves"
    with Project.open(pairs_demo) as project:
        assert store.captions_for_pair(project, ids[0])[0].status == "draft"
    assert "draft again" in writer.state.text()
    shown = " ".join(writer.buttons[name].text() for name in writer.buttons)
    for key in ("Ctrl+Enter", "Alt+←", "Ctrl+K", "Ctrl+F", "Ctrl+Alt+Z"):
        assert key in shown


def test_drafts_are_saved_while_typing_and_found_after_reopening(window, pairs_demo, qtbot) -> None:
    ids = pair_ids(pairs_demo)
    pane = open_as(window, pairs_demo, "ana")
    type_caption(qtbot, pane.writer.editor, "has shorter sleeves and a belt")

    def draft_text() -> str | None:
        with Project.open(pairs_demo) as project:
            own = store.own_caption(project, ids[0], "ana")
            return own.text if own else None

    qtbot.waitUntil(lambda: draft_text() == "has shorter sleeves and a belt")
    # Saved in the background: the note follows once the save is back on the UI thread.
    qtbot.waitUntil(lambda: pane.writer.state.text().startswith("Draft saved"))
    type_caption(qtbot, pane.writer.editor, "is blue")
    window.workspace.close_project()  # saved on the way out, no pause needed
    assert draft_text() == "is blue"
    pane = open_as(window, pairs_demo, "ana")
    assert pane.writer.pair_id == ids[0]
    assert pane.writer.editor.text() == "is blue"


def test_a_new_window_resumes_on_the_draft_and_ranks_it_at_once(
    window, indexed_demo_dir, qtbot
) -> None:
    """After a crash the pane opens on the pair with the draft (not the queue's first),
    and the restored text's rank shows without a key typed."""
    from studio.workspace import Workspace
    from widgets.main_window import MainWindow
    from widgets.services import Services

    with Project.open(indexed_demo_dir) as project:
        mine_pairs(project, "tfidf", 6)
    ids = pair_ids(indexed_demo_dir)
    pane = open_as(window, indexed_demo_dir, "ana")
    qtbot.keyClick(pane.writer.editor, Qt.Key.Key_Right, ALT)
    qtbot.waitUntil(lambda: pane.writer.pair_id == ids[1])
    qtbot.keyClick(pane.writer.editor, Qt.Key.Key_Right, ALT)
    qtbot.waitUntil(lambda: pane.writer.pair_id == ids[2])
    type_caption(qtbot, pane.writer.editor, "is red with a round collar")
    qtbot.waitUntil(lambda: pane.writer.state.text().startswith("Draft saved"), timeout=10000)
    window.workspace.close_project()
    services = Services(Workspace(window.workspace.settings))
    again = MainWindow(services)
    qtbot.addWidget(again, before_close_func=lambda _w: services.shutdown())
    again.show()
    pane = open_as(again, indexed_demo_dir, "ana")
    assert pane.writer.pair_id == ids[2]
    assert pane.writer.editor.text() == "is red with a round collar"
    view = pane.rank_view
    qtbot.waitUntil(
        lambda: view.result is not None and view.result.text == "is red with a round collar"
        and view.line.text().startswith("Target rank with this caption:"),
        timeout=30000,
    )


def test_skip_and_flag_move_on_and_are_remembered(window, pairs_demo, qtbot) -> None:
    ids = pair_ids(pairs_demo)
    pane = open_as(window, pairs_demo, "ana")
    writer = pane.writer
    writer.editor.setFocus()
    qtbot.keyClick(writer.editor, Qt.Key.Key_K, CTRL)
    qtbot.waitUntil(lambda: writer.pair_id == ids[1])
    assert writer.state.text() == f"Pair {ids[0]} skipped."
    qtbot.keyClick(writer.editor, Qt.Key.Key_F, CTRL)
    assert writer.reason.isVisible()
    qtbot.keyClicks(writer.reason, "same item twice")
    qtbot.keyClick(writer.reason, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: writer.pair_id == ids[2])
    with Project.open(pairs_demo) as project:
        assert store.flagged_pairs(project) == {ids[1]: "same item twice"}


def test_a_second_caption_must_come_from_someone_else(window, pairs_demo, qtbot) -> None:
    ids = pair_ids(pairs_demo)
    pane = open_as(window, pairs_demo, "ana")
    type_caption(qtbot, pane.writer.editor, "is red")
    qtbot.keyClick(pane.writer.editor, Qt.Key.Key_Return, CTRL)
    qtbot.waitUntil(lambda: pane.writer.pair_id == ids[1])
    window.workspace.close_project()
    pane = open_as(window, pairs_demo, "ben")
    assert pane.writer.pair_id == ids[0]  # needs a second caption
    assert "1 of 2 captions" in pane.writer.info.text()
    type_caption(qtbot, pane.writer.editor, "has stripes")
    qtbot.keyClick(pane.writer.editor, Qt.Key.Key_Return, CTRL)
    qtbot.waitUntil(lambda: pane.writer.pair_id != ids[0])
    pane.refresh_progress()
    qtbot.waitUntil(lambda: pane.progress.summary.text().startswith("ben: 1 caption written"))
    names = [pane.progress.table.item(r, 0).text() for r in range(pane.progress.table.rowCount())]
    assert sorted(names) == ["ana", "ben"]
    window.workspace.close_project()
    pane = open_as(window, pairs_demo, "ana")
    assert pane.writer.pair_id == ids[1]  # the first pair is complete


def test_review_accepts_edits_and_rejects_by_keyboard(window, pairs_demo, qtbot) -> None:
    ids = pair_ids(pairs_demo)
    with Project.open(pairs_demo) as project:
        first, _ = store.submit_caption(project, ids[0], "ana", "is red wiht stripes")
        second, _ = store.submit_caption(project, ids[0], "ben", "is blue")
        third, _ = store.submit_caption(project, ids[1], "ana", "x")
    pane = open_as(window, pairs_demo, "rev")
    qtbot.keyClick(pane.writer.editor, Qt.Key.Key_R, CTRL | SHIFT)
    reviewer = pane.reviewer
    assert pane.panels.currentWidget() is reviewer
    qtbot.waitUntil(lambda: reviewer.caption_id == first.id)
    assert "Colour contradicts" in reviewer.flags.text()
    assert "is blue" in reviewer.others.text()
    type_caption(qtbot, reviewer.editor, "is red with stripes")
    qtbot.keyClick(reviewer.editor, Qt.Key.Key_Return, CTRL)
    qtbot.waitUntil(lambda: reviewer.caption_id == second.id)
    qtbot.keyClick(reviewer.editor, Qt.Key.Key_R, CTRL)
    qtbot.keyClicks(reviewer.reason, "contradicts the images")
    qtbot.keyClick(reviewer.reason, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: reviewer.caption_id == third.id)
    assert "Very short" in reviewer.flags.text()
    with Project.open(pairs_demo) as project:
        accepted = store.get_caption(project, first.id)
        assert (accepted.status, accepted.text) == ("accepted", "is red with stripes")
        rejected = store.get_caption(project, second.id)
        assert (rejected.status, rejected.reject_reason) == ("rejected", "contradicts the images")
        history = project.audit_trail("caption", first.id)
        assert '"is red wiht stripes"' in history[-1]["before"]
    qtbot.keyClick(reviewer.editor, Qt.Key.Key_Left, ALT)
    qtbot.waitUntil(lambda: reviewer.caption_id == second.id)
    assert "Rejected by rev: contradicts the images" in reviewer.state.text()
    pane.refresh_progress()
    qtbot.waitUntil(lambda: "1 caption waiting for review" in pane.progress.summary.text())


def drawn_colours(panel) -> int:
    """How many distinct colours the picture area shows on screen (a blank box shows 1-2)."""
    image = panel.grab().toImage()
    step = max(1, min(image.width(), image.height()) // 40)
    return len(
        {
            image.pixel(x, y)
            for x in range(0, image.width(), step)
            for y in range(0, image.height(), step)
        }
    )


def wait_for_pictures(qtbot, pane) -> None:
    qtbot.waitUntil(
        lambda: drawn_colours(pane.view.reference.picture) > 8
        and drawn_colours(pane.view.target.picture) > 8,
        timeout=5000,
    )


def test_pictures_stay_on_screen_after_autosave_save_and_switching(
    window, pairs_demo, qtbot, tmp_path
) -> None:
    """D1/D13: the writer's pair stays drawn (pixels, not just a pixmap object)."""
    pane = open_as(window, pairs_demo, "ana")
    writer = pane.writer
    wait_for_pictures(qtbot, pane)
    first_title = pane.view.reference.title.text()
    assert first_title
    type_caption(qtbot, writer.editor, "is plaid")
    qtbot.waitUntil(lambda: "saved" in writer.state.text().lower(), timeout=10_000)
    qtbot.wait(100)
    assert pane.view.reference.title.text() == first_title
    wait_for_pictures(qtbot, pane)
    for text in ("is red", "has longer sleeves", "is shorter"):
        before = writer.pair_id
        qtbot.keyClick(writer.editor, Qt.Key.Key_Return, CTRL)
        assert pane.view.reference.title.text()
        qtbot.waitUntil(lambda before=before: writer.pair_id != before)
        assert pane.view.reference.title.text()
        wait_for_pictures(qtbot, pane)
        type_caption(qtbot, writer.editor, text)
        qtbot.waitUntil(lambda: "saved" in writer.state.text().lower(), timeout=10_000)
        wait_for_pictures(qtbot, pane)
    # Another project and back: the pair is drawn again.
    other = tmp_path / "other"
    shutil.copytree(pairs_demo, other)
    assert window.open_project(other)
    window.show_pane(1)
    wait_for_pictures(qtbot, pane)
    assert window.open_project(pairs_demo)
    window.show_pane(1)
    qtbot.waitUntil(lambda: pane.view.reference.title.text() != "")  # the queue answered
    wait_for_pictures(qtbot, pane)


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
    pane = show_pane_titled(window, "Captions")
    pane.set_mode(1)
    reviewer = pane.reviewer
    assert "every submitted caption has been reviewed" not in reviewer.info.text()
    assert "the 2 captions waiting for review are your own" in reviewer.info.text()
    assert not reviewer.buttons["accept"].isEnabled()
    assert not reviewer.buttons["reject"].isEnabled()


def test_keys_typed_right_after_opening_a_project_reach_the_pair(window, pairs_demo, qtbot) -> None:
    """On the Captions pane, a project opened and typed into at once: no key is lost while
    the writer asks for its first pair."""
    window.workspace.settings.user_name = "ana"
    pane = next(p for p in window.panes if isinstance(p, CaptionsPane))
    window.show_pane(window.panes.index(pane))
    assert window.open_project(pairs_demo)
    qtbot.keyClicks(QApplication.focusWidget() or window, "is red")
    assert pane.writer.editor.text() == "is red"
    assert pane.writer.pair_id is not None
