"""The question asked when a job found the project busy: Retry, or give up.

Another program (a second studio window, a command-line import) held the project's
write lock for longer than the busy timeout. Nothing was written; retrying is safe.
"""

from __future__ import annotations

import asyncio

from PySide6.QtWidgets import QMessageBox, QWidget

BUSY_TITLE = "The project is busy"


async def ask_retry(parent: QWidget | None, label: str, message: str) -> bool:
    """Show the message with Retry and Cancel; True when the person chose Retry."""
    box = QMessageBox(
        QMessageBox.Icon.Warning,
        BUSY_TITLE,
        f"{label}: {message}\n\nIts change was not written; Retry when the other program is done.",
        parent=parent,
    )
    box.setObjectName("busy_prompt")
    retry = box.addButton("Retry", QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(retry)
    answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

    def settle(chosen: bool) -> None:
        if not answer.done():
            answer.set_result(chosen)

    box.buttonClicked.connect(lambda button: settle(button is retry))
    box.finished.connect(lambda _result: settle(False))
    box.open()
    try:
        return await answer
    finally:
        box.deleteLater()
