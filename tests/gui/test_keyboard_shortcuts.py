"""The key map (widgets/actions.py): no two actions that can be live together share a key,
Help → Keyboard Shortcuts lists every action, every key the manual mentions is in the map,
every shortcut in the window comes from it, and the keys still do what they did."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication

from studio.captions import store
from studio.store import Project
from widgets import actions

ROOT = Path(__file__).resolve().parents[2]
CTRL = Qt.KeyboardModifier.ControlModifier
# Keys the manual names that are not the window's: Ctrl+C stops a command in the terminal.
OUTSIDE_THE_WINDOW = {"Ctrl+C"}
# How the manual writes a key → how Qt reads it.
WRITTEN = {"Plus": "+", "Minus": "-", "PgDn": "PgDown", "←": "Left", "→": "Right"}
KEY = re.compile(r"\b(?:(?:Ctrl|Alt|Shift)\+)+(?:F\d{1,2}\b|[A-Za-z]+|\d|[←→+=,/\-])"
                 r"|\bPg(?:Up|Dn|Down)\b|\bF\d{1,2}\b")


def manual_pages() -> list[Path]:
    """README.md, and the manual's pages once it moves to docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md"))]


def keys_in(text: str) -> set[str]:
    found = set()
    for written in KEY.findall(text):
        *mods, last = written.split("+") if not written.endswith("++") else [
            *written[:-2].split("+"), "+"]
        found.add("+".join([*mods, WRITTEN.get(last, last)]))
    return found


def combination(key: str):
    return QKeySequence(key)[0]


def mapped_combinations() -> set:
    return {combination(key) for action in actions.ACTIONS.values() for key in action.keys}


def test_no_two_actions_that_can_be_live_together_share_a_key() -> None:
    clashes = [f"{a.id} and {b.id} both take {key}" for a, b, key in actions.clashes()]
    assert clashes == []


def test_the_clash_check_finds_a_key_taken_twice_where_both_are_live(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Not a check that cannot fail: a key of the pane or of the window, taken again by the
    writer, is a clash; a key of a panel never shown with the writer is not."""

    def clashes_with(key: str) -> list[str]:
        monkeypatch.setitem(actions.ACTIONS, "captions.writing.test",
                            actions.Action("captions.writing.test", "test", (key,),
                                           "captions.writing"))
        return sorted({b.id if a.id == "captions.writing.test" else a.id
                       for a, b, _key in actions.clashes()})

    assert clashes_with("Ctrl+Shift+W") == ["captions.write_mode"]  # the pane's
    assert clashes_with("Ctrl+Q") == ["window.quit"]  # the window's
    assert clashes_with("Ctrl+R") == []  # the reviewer's and the Retrieval pane's


def test_every_key_the_manual_mentions_is_in_the_map() -> None:
    mapped = mapped_combinations()
    pages = manual_pages()
    mentioned = {key for page in pages for key in keys_in(page.read_text(encoding="utf-8"))}
    assert {"Ctrl+Enter", "Ctrl+1", "Ctrl++", "PgDown", "Alt+Left"} <= mentioned  # it reads them
    missing = sorted(key for key in mentioned - OUTSIDE_THE_WINDOW
                     if combination(key) not in mapped)
    assert missing == [], f"named in {[p.name for p in pages]} but not in widgets/actions.py"


def test_help_lists_every_action_grouped_by_pane_and_filters(window, qtbot) -> None:
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    entry = next(a for a in help_menu.actions() if a.text() == "&Keyboard Shortcuts")
    entry.trigger()
    dialog = window.shortcuts_dialog
    qtbot.waitExposed(dialog)
    assert list(dialog.groups) == ["Window", "Pairs", "Captions", "Attributes", "Retrieval",
                                   "Quality"]
    rows = dialog.shown_rows()
    assert len(rows) == len(actions.ACTIONS)
    for action in actions.ACTIONS.values():
        assert (action.shown_all, action.description,
                actions.CONTEXTS[action.context].title) in rows, action.id
    assert ("Ctrl+Enter", "Save the caption and go to the next pair (team: submit it)",
            "Captions — writing (local and team)") in rows
    qtbot.keyClicks(dialog.filter, "ctrl+k")
    shown = dialog.shown_rows()
    assert shown and all("Ctrl+K" in keys for keys, _what, _where in shown)
    assert dialog.groups["Pairs"].isHidden()  # a pane with no such key is folded away
    dialog.filter.setText("skip turn")
    assert [what for _keys, what, _where in dialog.shown_rows()] == ["Skip the turn"]


def test_the_manual_table_is_made_from_the_map() -> None:
    text = actions.shortcuts_markdown()
    assert text.startswith("## Window\n\n| Keys | What it does | Where |\n| --- | --- | --- |\n")
    assert [line[3:] for line in text.splitlines() if line.startswith("## ")] == [
        "Window", "Pairs", "Captions", "Attributes", "Retrieval", "Quality"]
    assert "| `Ctrl+Enter` | Save the caption and go to the next pair (team: submit it) |" in text
    assert sum(line.startswith("| `") for line in text.splitlines()) == len(actions.ACTIONS)


def test_every_shortcut_in_the_window_comes_from_the_map(window) -> None:
    """No widget binds a key of its own: every QShortcut and menu key is a key of an action
    (a new key bound elsewhere would be missing from Help and from the clash check)."""
    mapped = mapped_combinations()
    bound = [s.key() for s in window.findChildren(QShortcut)]
    bound += [k for a in window.findChildren(QAction) for k in a.shortcuts()]
    assert len(bound) > 40
    strays = sorted({seq.toString() for seq in bound if seq[0] not in mapped})
    assert strays == []


def test_ctrl_2_then_ctrl_enter_saves_the_caption_and_brings_the_next_pair(
    window, pairs_demo, qtbot
) -> None:
    window.workspace.settings.user_name = "ana"
    assert window.open_project(pairs_demo)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    qtbot.keyClick(QApplication.focusWidget() or window, Qt.Key.Key_2, CTRL)
    writer = window.panes[1].writer
    qtbot.waitUntil(lambda: writer.editor.isEnabled())  # the queue's first pair came
    assert QApplication.focusWidget() is writer.editor
    pair = writer.pair_id
    qtbot.keyClicks(writer.editor, "is red")
    qtbot.keyClick(writer.editor, Qt.Key.Key_Return, CTRL)
    qtbot.waitUntil(lambda: writer.pair_id != pair)
    with Project.open(pairs_demo) as project:
        saved = [(c.author, c.text, c.status) for c in store.captions_for_pair(project, pair)]
    assert saved == [("ana", "is red", "submitted")]


def test_ctrl_q_quits_as_the_manual_says(window, qtbot) -> None:
    """The manual says Ctrl+Q quits; Qt's standard Quit key is empty on some Linux desktops
    (and offscreen), so the window bound nothing there."""
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    qtbot.keyClick(QApplication.focusWidget() or window, Qt.Key.Key_Q, CTRL)
    qtbot.waitUntil(lambda: not window.isVisible())
