"""Writing one relative caption, keyboard first, bound to a ``WritingSession``.

Every edit is saved as a draft after a short pause, and at least once a second while the
person keeps typing without a pause (so a crash loses at most about a second of typing),
and at once when leaving the pair. Pause and periodic saves run on the services' IO lane
(``submit_save``): typing never waits for the database, one save runs at a time in the
order typed, and a busy project shows "Saving… (another program is writing)" and tries
again. Leaving the pair, switching mode and closing save at once, on the UI thread. Keys: Ctrl+Enter save and next, Alt+Left/Right or
PgUp/PgDn previous/next, Ctrl+K skip, Ctrl+F flag (a reason, then Enter), Ctrl+Z undo
typing a word or pause at a time, Ctrl+Shift+Z or Ctrl+Y redo it, Ctrl+Alt+Z undo the last
saved caption. The typing history is the writer's own (``TypingHistory``), so autosaves
never cut it; an emptied editor is never saved over the words already kept.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from datetime import datetime
from functools import partial
from typing import Any

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QWidget

from studio.captions.store import captions_for_pair
from studio.captions.typing_history import TypingHistory
from studio.captions.writing_and_review import WritingSession
from studio.errors import ProjectBusyError, StudioError
from studio.wording import plural
from widgets.caption_form import CaptionForm

AUTOSAVE_MS = 400
MAX_UNSAVED_MS = 1000  # typing without a pause is saved at least this often
FLUSH_WAIT_S = 6.0  # a save in flight is waited for this long before saving again
BUSY_NOTE = "Saving… (another program is writing to the project; your text is kept)"
SaveSubmitter = Callable[..., Future]
BUTTONS = (
    ("previous", "◀ Previous"),
    ("next", "Next ▶"),
    ("skip", "Skip"),
    ("flag", "Flag…"),
    ("undo_save", "Undo last save"),
    ("save", "Save and next"),
)
HINT = (
    "Ctrl+Enter save and next · Alt+←/→ or PgUp/PgDn previous/next · Ctrl+K skip · "
    "Ctrl+F flag · Ctrl+Z / Ctrl+Shift+Z undo / redo typing · Ctrl+Alt+Z undo last save"
)


class CaptionWriter(CaptionForm):
    saved = Signal()

    session: WritingSession | None

    def __init__(self, parent: QWidget | None = None) -> None:
        actions = {
            "save": self.save_and_next,
            "previous": lambda: self.step(False),
            "next": lambda: self.step(True),
            "skip": self.skip,
            "flag": self.ask_reason,
            "undo_save": self.undo_last_save,
            "undo": lambda: self._undo_typing(redo=False),
            "redo": lambda: self._undo_typing(redo=True),
        }
        super().__init__(
            "captions.writing",  # its keys: the key map, widgets/actions.py
            BUTTONS,
            actions,
            HINT,
            "What is wrong with this pair? Enter flags it, Esc cancels",
            parent,
        )
        self.history = TypingHistory()
        self.editor.setPlaceholderText("is red with longer sleeves")
        self.editor.textEdited.connect(self._on_edited)
        self.editor.textEdited.connect(self.history.typed)
        self.reason.returnPressed.connect(self._confirm_flag)
        self.buttons["save"].setDefault(True)
        self._autosave = QTimer(self, singleShot=True, interval=AUTOSAVE_MS)
        self._autosave.timeout.connect(self.save_soon)
        self._max_wait = QTimer(self, singleShot=True, interval=MAX_UNSAVED_MS)
        self._max_wait.timeout.connect(self.save_soon)
        # ``submit_save(function, done=..., failed=...)`` runs a save on the IO lane (the
        # pane's scope sets it); without one, saves run here (a writer used on its own).
        self.submit_save: SaveSubmitter | None = None
        self._in_flight: Future | None = None
        self._serial = 0
        self._queued: tuple[Any, int, str] | None = None

    # -- showing -----------------------------------------------------------------------

    def _show(self, pair_id: int | None) -> None:
        session = self.session
        self.reason.hide()
        if session is None or pair_id is None:
            from studio.picture_files import hidden_pairs_message

            hidden = hidden_pairs_message(session.project) if session is not None else None
            self.info.setText(hidden or "All done: no pair needs a caption from you right now.")
            self.editor.clear()
            self.history.reset("")
            self.editor.setEnabled(False)
            self.state.setText("")
            self.pair_changed.emit(None)
            return
        self.editor.setEnabled(True)
        captions = captions_for_pair(session.project, pair_id)
        live = sum(c.is_live for c in captions)
        per_pair = session.policy.per_pair
        self.info.setText(
            f"Pair {pair_id} · {live} of {per_pair} {plural('caption', per_pair)} written"
        )
        own = session.own_caption()
        self.editor.setText(own.text if own else "")
        self.history.reset(self.editor.text())
        self.editor.setReadOnly(own is not None and own.status == "accepted")
        rejected = [c for c in captions if c.author == session.author and c.status == "rejected"]
        self.state.setText(_state_text(own, rejected))
        self.editor.setFocus()
        self.pair_changed.emit(pair_id)

    # -- actions -----------------------------------------------------------------------

    def _on_edited(self, _text: str) -> None:
        self._autosave.start()  # restarted by every key: fires on a pause
        if not self._max_wait.isActive():
            self._max_wait.start()  # not restarted: fires while typing goes on

    def _snapshot(self) -> tuple[Any, int, str] | None:
        session = self.session
        if session is None or session.current is None or self.editor.isReadOnly():
            return None
        return session, session.current, self.editor.text()

    def save_soon(self) -> None:
        """Save what is typed now, on the IO lane; typing goes on meanwhile."""
        self._autosave.stop()
        self._max_wait.stop()
        self.history.checkpoint()  # a pause ends one undo step
        snapshot = self._snapshot()
        if snapshot is None:
            return
        if self.submit_save is None:
            self.flush()
            return
        if self._in_flight is not None and not self._in_flight.done():
            self._queued = snapshot  # one save at a time, in order; the newest text wins
            return
        self._start_save(snapshot)

    def _start_save(self, snapshot: tuple[Any, int, str]) -> None:
        session, pair_id, text = snapshot
        self._serial += 1
        serial = self._serial
        assert self.submit_save is not None
        self._in_flight = self.submit_save(
            partial(session.autosave, text, pair_id),
            done=lambda caption: self._saved(serial, caption),
            failed=lambda error: self._save_failed(serial, error),
        )

    def _saved(self, serial: int, caption) -> None:
        if serial != self._serial:
            return  # an older save (flush waited for it already)
        self._in_flight = None
        self._show_saved(caption)
        if self._queued is not None:
            snapshot, self._queued = self._queued, None
            self._start_save(snapshot)

    def _save_failed(self, serial: int, error: BaseException) -> None:
        if serial != self._serial:
            return
        self._in_flight = None
        if isinstance(error, ProjectBusyError):
            self.state.setText(BUSY_NOTE)
            self._queued = None
            self._autosave.start()  # try again with what is typed then
        elif isinstance(error, StudioError):
            self.state.setText(str(error))
        else:
            self.state.setText(f"Saving failed ({error}); your text stays here.")
            raise error  # unexpected: Qt hands it to the error reporter's hook

    def _wait_in_flight(self) -> None:
        future, self._in_flight, self._queued = self._in_flight, None, None
        self._serial += 1  # its callback, when it comes, changes nothing
        if future is not None and not future.done():
            # A failed or slow save is simply saved again by the caller, here.
            with contextlib.suppress(FutureTimeout, Exception):
                future.result(timeout=FLUSH_WAIT_S)

    def _undo_typing(self, redo: bool) -> None:
        """Undo/redo in the field being typed in: the flag reason keeps its own history."""
        if self.reason.hasFocus():
            self.reason.redo() if redo else self.reason.undo()
            return
        self._step_typing(self.history.redo() if redo else self.history.undo())

    def _step_typing(self, text: str | None) -> None:
        """Show one typing step back or forward; it is autosaved like typing."""
        if text is None or self.editor.isReadOnly():
            return
        self.editor.setText(text)
        self._autosave.start()

    def leave(self) -> None:
        """The draft is saved before the writer moves to another pair (an emptied one goes)."""
        self._autosave.stop()
        if self.session is None or self.session.current is None or self.editor.isReadOnly():
            return
        try:
            self.session.leave(self.editor.text())
        except StudioError as error:
            self.state.setText(str(error))

    def flush(self) -> None:
        """Save what is typed now, here (before leaving a pair, switching mode, closing)."""
        self._autosave.stop()
        self._max_wait.stop()
        self._wait_in_flight()
        self.history.checkpoint()
        if self.session is None or self.session.current is None or self.editor.isReadOnly():
            return
        try:
            caption = self.session.autosave(self.editor.text())
        except ProjectBusyError:  # a long import holds the write lock: try again
            self.state.setText(BUSY_NOTE)
            self._autosave.start()
            return
        except StudioError as error:
            self.state.setText(str(error))
            return
        self._show_saved(caption)

    def _show_saved(self, caption) -> None:
        if not self.editor.text().strip():
            if caption is not None and caption.status == "draft":
                self.state.setText("Empty: your saved draft is kept unless you leave it empty.")
            elif caption is not None:
                self.state.setText("Empty: your submitted caption stays as it was.")
        elif caption is not None and caption.status == "draft":
            self.state.setText(f"Draft saved {datetime.now():%H:%M:%S}")

    def save_and_next(self) -> None:
        if self.session is None or self.session.current is None:
            return
        self._autosave.stop()
        self._max_wait.stop()
        self._wait_in_flight()
        try:
            self.session.save_and_next(self.editor.text())
        except StudioError as error:
            self.flush()
            self.state.setText(str(error))
            return
        self.saved.emit()

    def _confirm_flag(self) -> None:
        if self.session is not None:
            self.flush()
            self.reason.hide()
            self.session.flag(self.reason.text().strip())

    def undo_last_save(self) -> None:
        if self.session is None:
            return
        self.flush()
        try:
            caption = self.session.undo_last_save()
        except StudioError as error:
            self.state.setText(str(error))
            return
        if caption is None:
            self.state.setText("Nothing saved in this session to undo.")
        else:
            self.state.setText("Last save undone: the caption is a draft again.")
            self.saved.emit()


def _state_text(own, rejected) -> str:
    if own is None:
        note = ""
    elif own.status == "draft":
        note = "Draft (saved as you type)"
    elif own.status == "submitted":
        note = "Submitted; edits are saved and kept in the history"
    else:
        note = (
            f"{own.status.capitalize()} by {own.reviewer or 'a reviewer'}; it can no longer change"
        )
    if rejected:
        last = rejected[-1]
        note += (
            f"{' · ' if note else ''}Your earlier caption “{last.text}” was rejected: "
            f"{last.reject_reason}"
        )
    return note
