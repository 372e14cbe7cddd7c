"""File → Connect to team server…: a good token says who you are, a bad one says why in
one line, an unreachable server too; the token is kept (here: in the settings with a plain
text note, since this machine has no keyring) and the studio connects again on start."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from studio.server import credentials
from studio.settings import config_dir


def _dialog(window):
    window.show_connect_dialog()
    return window.connect_dialog


def test_connect_with_a_good_and_a_bad_token(qtbot, window, team_server) -> None:
    server, keys = team_server({"ana": "annotator"}, pairs=2)
    dialog = _dialog(window)
    dialog.url.setText(server.base)
    dialog.token.setText("not-a-token")
    dialog.connect_button.click()
    qtbot.waitUntil(lambda: dialog.connect_button.isEnabled(), timeout=20000)
    assert "refused" in dialog.result.text() and "unknown or was revoked" in dialog.result.text()
    assert not window.services.team.connected

    dialog.url.setText("http://127.0.0.1:9")  # nothing listens there
    dialog.token.setText(keys["ana"])
    dialog.connect_button.click()
    qtbot.waitUntil(lambda: dialog.connect_button.isEnabled(), timeout=20000)
    assert "does not answer" in dialog.result.text() and "Traceback" not in dialog.result.text()

    dialog.url.setText(server.base)
    dialog.token.setText(keys["ana"])
    dialog.connect_button.click()
    qtbot.waitUntil(lambda: window.services.team.connected, timeout=20000)
    assert dialog.result.text() == "Connected as ana (annotator)."
    # No keyring on this machine: the token is in the settings, and the dialog says so.
    assert not credentials.has_keyring()
    assert dialog.where.text() == credentials.PLAIN_NOTE
    stored = json.loads((config_dir() / "settings.json").read_text())
    assert stored["team_server"] == server.base and stored["team_token_plain"] == keys["ana"]
    qtbot.waitUntil(lambda: window.team_status.text() == "online as ana (annotator)")
    assert window.team_status.isVisible()

    dialog.disconnect_button.click()
    assert not window.services.team.connected and not window.team_status.isVisible()
    stored = json.loads((config_dir() / "settings.json").read_text())
    assert stored["team_server"] == "" and stored["team_token_plain"] == ""
    dialog.close()


def test_enter_in_the_dialog_connects_and_never_opens_the_pictures_chooser(
    qtbot, window, team_server
):
    server, keys = team_server({"ana": "annotator"}, pairs=2)
    opened: list[str] = []

    def close_any_chooser() -> None:  # a folder chooser would block the test: note it, close it
        modal = QApplication.activeModalWidget()
        if modal is not None and modal is not window.connect_dialog:
            opened.append(modal.windowTitle())
            modal.close()

    watch = QTimer(interval=50)
    watch.timeout.connect(close_any_chooser)
    watch.start()
    try:
        dialog = _dialog(window)
        qtbot.waitExposed(dialog)
        dialog.url.setText(server.base)
        dialog.token.setFocus()
        qtbot.keyClicks(dialog.token, keys["ana"])
        qtbot.keyClick(dialog.token, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: window.services.team.connected, timeout=20000)
        assert dialog.result.text() == "Connected as ana (annotator)."
        assert opened == []
        # Enter in the pictures field keeps the folder typed and connects; it never browses.
        dialog.pictures.setFocus()
        qtbot.keyClick(dialog.pictures, Qt.Key.Key_Return)
        qtbot.wait(200)
        assert opened == []
        dialog.close()
    finally:
        watch.stop()
