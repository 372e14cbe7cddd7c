"""Writing captions for a team server: the next pair comes from the server's queue.

The same form and keys as the local writer (``CaptionForm``: Ctrl+Enter submit and
next, Ctrl+K skip, Ctrl+Z / Ctrl+Shift+Z undo and redo typing), bound to the team
connection instead of a local project:

- **next pair**: ``POST /v1/captions/next`` hands out the pair this person holds or the
  next free one, with a lease; the lease is renewed while the pair is on screen and
  released on skip.
- **typing** is kept as a draft after a pause, and at least once a second while typing
  goes on, through the client's outbox on the net lane: typing never waits for the
  network. While the server is away the drafts stay in the outbox (sent by the
  connection's flush) and the person keeps writing the pair they hold.
- **submit** goes through the outbox too. The server's refusal (the pair's quota filled
  meanwhile) is said in one line and the next pair comes; a submission made offline
  waits ("Pair 5: your caption waits on this computer …"), and when the server answers
  again the next pair comes and that line becomes the server's answer to it.
- **a rejected caption**: the pair comes back to its author with the rejected text and
  the reviewer's reason, said in the state line (as the desktop writer says it).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QWidget

from studio.captions.typing_history import TypingHistory
from studio.errors import StudioError
from studio.server.client import Client
from widgets.caption_form import CaptionForm
from widgets.team_connection import TeamConnection
from widgets.team_item import LeasedItemView
from widgets.team_lease import LeaseKeeper
from widgets.team_lease import same_item as _same

AUTOSAVE_MS = 400
MAX_UNSAVED_MS = 1000
BUTTONS = (("skip", "Skip"), ("save", "Submit and next"))
HINT = (
    "Ctrl+Enter submit and next · Ctrl+K skip (the pair goes back to the team) · "
    "Ctrl+Z / Ctrl+Shift+Z undo / redo typing · drafts are kept as you type, also offline"
)


def _submit_and_answer(client: Client, pair_id: int, text: str, send: bool) -> tuple[str, Any]:
    """Runs on the net lane: keep the submission, send it, and read the server's answer
    (None while it waits); with the edit's uid, to learn the answer later."""
    uid = client.submit(pair_id, text, send=send)
    return uid, client.answer(uid)


def _outcome(pair: int, answer: tuple[int, Any]) -> str:
    """The server's answer to a submission, in one line."""
    if answer[0] < 300:
        return f"Pair {pair}: caption submitted."
    message = answer[1].get("error") if isinstance(answer[1], dict) else answer[1]
    return f"Pair {pair}: the server did not take this caption: {message}"


def _rejection(item: dict[str, Any]) -> str:
    rejected = item.get("rejected")
    if not rejected:
        return ""
    return (f"Your earlier caption “{rejected['text']}” was rejected by "
            f"{rejected.get('reviewer') or 'a reviewer'}: {rejected.get('reason') or ''}")


class TeamWriter(LeasedItemView, CaptionForm):
    item_changed = Signal(object)  # the item held (a dict) or None
    submitted = Signal()
    asking_text = "Asking the team server for your next pair…"
    offline_text = ("The team server does not answer: your edits wait on this computer, and "
                    "your next pair comes as soon as it answers.")

    def __init__(self, connection: TeamConnection, parent: QWidget | None = None) -> None:
        actions = {
            "save": self.submit_and_next,
            "skip": self.skip,
            "undo": lambda: self._undo_typing(redo=False),
            "redo": lambda: self._undo_typing(redo=True),
        }
        super().__init__("captions.writing", BUTTONS, actions, HINT, "", parent)
        self.setObjectName("team_writer")
        self.connection = connection
        self.item: dict[str, Any] | None = None
        self._asking = False
        self._kept = ""  # the text last put in the outbox for the item held
        # A submission that waits in the outbox: (pair, edit uid, the line that says so),
        # until the server's answer replaces that line.
        self._unsent: tuple[int, str, str] | None = None
        self.history = TypingHistory()
        self.editor.setPlaceholderText("is red with longer sleeves")
        self.editor.setEnabled(False)
        self.editor.textEdited.connect(self._on_edited)
        self.editor.textEdited.connect(self.history.typed)
        self.buttons["save"].setDefault(True)
        self._autosave = QTimer(self, singleShot=True, interval=AUTOSAVE_MS)
        self._autosave.timeout.connect(self.save_soon)
        self._max_wait = QTimer(self, singleShot=True, interval=MAX_UNSAVED_MS)
        self._max_wait.timeout.connect(self.save_soon)
        self.lease = LeaseKeeper(connection, self._lease_lost, self)
        connection.back_online.connect(self._on_back_online)
        connection.changed.connect(self._check_unsent)
        connection.leaving.connect(self.flush)
        connection.services.flushing.connect(self.flush)  # closing: into the outbox first

    # -- the item ----------------------------------------------------------------------

    def showEvent(self, event) -> None:  # noqa: N802 (Qt name)
        self.save_soon()
        super().showEvent(event)

    def hideEvent(self, event) -> None:  # noqa: N802 (Qt name)
        self.save_soon()
        super().hideEvent(event)

    def next_request(self) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        """The pair held, or the next one (waiting edits are sent first)."""
        return Client.next_item, ()

    def say(self, text: str) -> None:
        self.info.setText(text)

    def nothing_came(self) -> None:
        self.editor.setEnabled(False)
        self.item_changed.emit(None)

    def _got(self, item: dict[str, Any] | None) -> None:
        if _same(self.item, item, "pair_id"):
            self.item = item  # asked again (shown again): the lease, not the text, is news
            self.lease.keep(item)
            return
        self.item = item
        self._kept = item["text"] if item else ""
        self.reason.hide()
        if item is None:
            self.info.setText("All done: the team server has no pair for you right now.")
            self.editor.clear()
            self.editor.setEnabled(False)
            self.lease.stop()
        else:
            self.info.setText(
                f"Pair {item['pair_id']}" + (f" · {item['category']}" if item["category"]
                                             else "") + " · from the team server"
            )
            self.editor.setEnabled(True)
            self.editor.setText(item["text"] or "")
            self.editor.setFocus()
            self.lease.keep(item)
            notes = [_rejection(item),
                     "Your draft, kept by the server" if item.get("status") == "draft" else ""]
            if any(notes):
                self.state.setText(" · ".join(n for n in notes if n))
        self.history.reset(self.editor.text())
        self.item_changed.emit(item)

    def _lease_lost(self) -> None:
        """The lease ended (expired while away): keep what is typed, ask what is held."""
        self.save_soon()
        self.start()

    def stop(self) -> None:
        """Disconnected: nothing held any more (the draft is already in the outbox)."""
        self.flush()
        self.lease.stop()
        self._asking = False
        self.item = None
        self._kept = ""
        self._unsent = None
        self.editor.clear()
        self.editor.setEnabled(False)
        self.item_changed.emit(None)

    # -- typing ------------------------------------------------------------------------

    def _on_edited(self, _text: str) -> None:
        self._autosave.start()
        if not self._max_wait.isActive():
            self._max_wait.start()

    def save_soon(self) -> None:
        """Keep what is typed now as a draft (outbox first, then sent on the net lane)."""
        self._autosave.stop()
        self._max_wait.stop()
        self.history.checkpoint()
        item, text = self.item, self.editor.text()
        if item is None or not text.strip() or text == self._kept:
            return  # an emptied editor never overwrites the draft
        self._kept = text
        self.connection.run(Client.save_draft, int(item["pair_id"]), text,
                            self.connection.online, done=lambda _uid: self._draft_kept(),
                            failed=self._failed, owner=self)

    def _draft_kept(self) -> None:
        if self.connection.online:
            self.state.setText(f"Draft saved {datetime.now():%H:%M:%S}")
        else:
            self.state.setText("Draft kept on this computer; it is sent when the server "
                               "answers")

    def _failed(self, error: BaseException) -> None:
        if isinstance(error, StudioError):
            self.state.setText(str(error))
        else:
            raise error

    def flush(self) -> None:
        """Closing or leaving: what is typed goes into the outbox now (not sent here)."""
        self._autosave.stop()
        self._max_wait.stop()
        item, text = self.item, self.editor.text()
        if item is None or not text.strip() or text == self._kept:
            return
        self._kept = text
        self.connection.run_now(Client.save_draft, int(item["pair_id"]), text, False)

    def _undo_typing(self, redo: bool) -> None:
        text = self.history.redo() if redo else self.history.undo()
        if text is not None and self.item is not None:
            self.editor.setText(text)
            self._autosave.start()

    # -- submit and skip ---------------------------------------------------------------

    def submit_and_next(self) -> None:
        item, text = self.item, self.editor.text().strip()
        if item is None:
            return
        if not text:
            self.state.setText("Write the caption first; Ctrl+K skips the pair.")
            return
        self._autosave.stop()
        self._max_wait.stop()
        self.lease.stop()
        self.item = None
        self.editor.setEnabled(False)
        self.connection.run(_submit_and_answer, int(item["pair_id"]), text,
                            self.connection.online,
                            done=lambda sent: self._answered(item, *sent),
                            failed=self._submit_failed, owner=self)

    def _submit_failed(self, error: BaseException) -> None:
        """The outbox itself failed (a full disk): the text stays, nothing is lost."""
        self.state.setText(f"Could not keep the submission: {error}. Your text is still here.")
        self.start()  # the pair is still held: the server hands it back with the draft
        if not isinstance(error, StudioError):
            raise error

    def _answered(self, item: dict[str, Any], uid: str, answer: tuple[int, Any] | None) -> None:
        pair = int(item["pair_id"])
        if answer is None:
            line = (f"Pair {pair}: your caption waits on this computer and is sent when the "
                    "server answers.")
            self._unsent = (pair, uid, line)
            self.state.setText(line)
        elif answer[0] < 300:
            self.state.setText(_outcome(pair, answer))
        else:
            self.state.setText(_outcome(pair, answer) + " Here is your next pair.")
        self.submitted.emit()
        self.start()

    def _check_unsent(self) -> None:
        """The connection heard from the server: if the submission that waited got its
        answer, the line that said it waits says the answer instead."""
        unsent = self._unsent
        if unsent is None or not self.connection.online:
            return
        self.connection.run(Client.answer, unsent[1],
                            done=lambda answer: self._acknowledged(unsent, answer),
                            failed=self._failed, owner=self, tells_online=False)

    def _acknowledged(self, unsent: tuple[int, str, str], answer: tuple[int, Any] | None) -> None:
        if answer is None or self._unsent != unsent:
            return
        self._unsent = None
        if self.state.text() == unsent[2]:  # nothing newer was said meanwhile
            self.state.setText(_outcome(unsent[0], answer))

    def skip(self) -> None:
        item = self.item
        if item is None:
            return
        if not self.connection.online:
            self.state.setText("Skipping gives the pair back to the team, which needs the "
                               "server; keep writing, your draft is kept.")
            return
        self.save_soon()
        self.lease.stop()

        def skipped(_answer: Any) -> None:
            self.item = None
            self.state.setText(f"Pair {item['pair_id']} skipped.")
            self.start()

        self.connection.run(Client.skip, int(item["lease_id"]), done=skipped,
                            failed=self._failed, owner=self)
