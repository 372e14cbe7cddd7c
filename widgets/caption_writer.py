"""Writing one relative caption, keyboard first, bound to a ``WorkQueue``: the project open
here (``LocalCaptionQueue``) or a team server (``RemoteCaptionQueue``). One writer for both.

Every call to the queue can block (the database; the network and its outbox), so each runs
on the lane the pane gives (``QueueCalls``: the services' IO lane for a project, the team
connection's net lane for a server), one at a time and in the order made; the answer is
applied here, on the UI thread. Typing never waits for either.

Every edit is saved as a draft after a short pause, and at least once a second while the
person keeps typing without a pause (so a crash loses at most about a second of typing).
Leaving the pair saves first; switching mode and closing save at once (``flush``, waited
for). A busy project shows "Saving… (another program is writing)" and tries again. Keys:
Ctrl+Enter save and next, Alt+Left/Right or PgUp/PgDn previous/next, Ctrl+K skip, Ctrl+F
flag (a reason, then Enter), Ctrl+Z undo typing a word or pause at a time, Ctrl+Shift+Z or
Ctrl+Y redo it, Ctrl+Alt+Z undo the last saved caption. The typing history is the writer's
own (``TypingHistory``), so autosaves never cut it; an emptied editor is never saved over
the words already kept.

What the queue cannot do now it says (``can``): with a team server that does not answer,
drafts, submissions, skips and flags wait in the outbox, and a new pair, Previous/Next and
taking a save back are refused in one line until it answers again. A submission that waits
says so ("Pair 5: your caption waits on this computer …") until the server's answer
replaces that line. Binding the queue, its calls, the lease and moving are the queue
form's (``QueueForm``), shared with the reviewer.
"""

from __future__ import annotations

import contextlib
from concurrent.futures import CancelledError
from concurrent.futures import TimeoutError as FutureTimeout
from datetime import datetime

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QWidget

from studio.captions.typing_history import TypingHistory
from studio.errors import ProjectBusyError, StudioError
from studio.wording import plural
from studio.work_queue import Submitted, WorkItem, WorkQueue
from widgets.queue_calls import QueueCalls
from widgets.queue_form import QueueForm

AUTOSAVE_MS = 400
MAX_UNSAVED_MS = 1000  # typing without a pause is saved at least this often
FLUSH_WAIT_S = 6.0  # a call in flight is waited for this long before saving again
BUSY_NOTE = "Saving… (another program is writing to the project; your text is kept)"
ALL_DONE = "All done: no pair needs a caption from you right now."
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


class CaptionWriter(QueueForm):
    saved = Signal()  # a caption was submitted, or a save taken back
    ASKING = "Asking for your next pair…"
    ALL_DONE = ALL_DONE

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
        self.queue: WorkQueue | None = None
        self.item: WorkItem | None = None  # the item on screen
        self.history = TypingHistory()
        self.editor.setPlaceholderText("is red with longer sleeves")
        self.editor.setEnabled(False)
        self.editor.textEdited.connect(self._on_edited)
        self.editor.textEdited.connect(self.history.typed)
        self.reason.returnPressed.connect(self._confirm_flag)
        self.buttons["save"].setDefault(True)
        self._autosave = QTimer(self, singleShot=True, interval=AUTOSAVE_MS)
        self._autosave.timeout.connect(self.save_soon)
        self._max_wait = QTimer(self, singleShot=True, interval=MAX_UNSAVED_MS)
        self._max_wait.timeout.connect(self.save_soon)
        self._kept: tuple[int, str] | None = None  # the last text saved (or sent) per pair

    # -- the queue ---------------------------------------------------------------------

    @property
    def pair_id(self) -> int | None:
        """The pair on screen."""
        return None if self.item is None else self.item.pair_id

    def bind(self, queue: WorkQueue | None, calls: QueueCalls | None = None) -> None:
        """Write for this queue from now on (None: nothing); what is typed for the last
        queue is saved first."""
        if self.queue is not None:
            self.flush()
        super().bind(queue, calls)

    def _failed(self, error: BaseException) -> None:
        self._moving = False
        if isinstance(error, ProjectBusyError):
            self.state.setText(BUSY_NOTE)
            self._kept = None
            self._autosave.start()  # try again with what is typed then
        if self.item is not None:
            self.editor.setEnabled(True)
        if isinstance(error, StudioError):
            if not isinstance(error, ProjectBusyError):
                self.state.setText(str(error))
        else:
            self.state.setText(f"Saving failed ({error}); your text stays here.")
            raise error  # unexpected: Qt hands it to the error reporter's hook

    # -- showing -----------------------------------------------------------------------

    def _key(self, item: WorkItem) -> int:
        return item.pair_id

    def _clear(self) -> None:
        self.history.reset("")
        self._kept = None

    def _fill(self, item: WorkItem) -> None:
        info = f"Pair {item.pair_id}" + (f" · {item.category}" if item.category else "")
        if item.needed is not None and item.written is not None:
            info += (f" · {item.written} of {item.needed} "
                     f"{plural('caption', item.needed)} written")
        self.info.setText(info)
        self.editor.setText(item.text)
        self._kept = (item.pair_id, item.text)
        self.history.reset(item.text)
        self.editor.setReadOnly(item.status == "accepted")

    def _note(self, item: WorkItem) -> str:
        return _state_text(item)

    def _outcome(self, record: Submitted) -> str:
        return _outcome(record)

    # -- typing and saving -------------------------------------------------------------

    def _on_edited(self, _text: str) -> None:
        self._autosave.start()  # restarted by every key: fires on a pause
        if not self._max_wait.isActive():
            self._max_wait.start()  # not restarted: fires while typing goes on

    def _editable(self) -> WorkItem | None:
        item = self.item
        if self.queue is None or item is None or self._moving or self.editor.isReadOnly():
            return None
        return item

    def save_soon(self, leaving: bool = False) -> None:
        """Save what is typed now, on the queue's lane; typing goes on meanwhile."""
        self._autosave.stop()
        self._max_wait.stop()
        self.history.checkpoint()  # a pause ends one undo step
        item, queue = self._editable(), self.queue
        if item is None or queue is None:
            return
        text = self.editor.text()
        if (item.pair_id, text) == self._kept and not (leaving and not text.strip()):
            return
        if text.strip():
            self._kept = (item.pair_id, text)
        self._call(queue.save_draft, text, item.pair_id, leaving,
                   done=self._show_saved, save_of=item.pair_id)

    def _show_saved(self, kept: WorkItem | None) -> None:
        queue = self.queue
        if kept is None or queue is None or self.item is None or kept.pair_id != self.item.pair_id:
            return
        if not self.editor.text().strip():
            if kept.status == "draft":
                self.state.setText("Empty: your saved draft is kept unless you leave it empty.")
            elif kept.status is not None:
                self.state.setText("Empty: your submitted caption stays as it was.")
        elif queue.can("previous") is not None:  # the server does not answer
            self.state.setText("Draft kept on this computer; it is sent when the server "
                               "answers")
        elif kept.status == "draft":
            self.state.setText(f"Draft saved {datetime.now():%H:%M:%S}")

    def flush(self) -> None:
        """Save what is typed now and wait for it (switching mode, leaving, closing)."""
        self._autosave.stop()
        self._max_wait.stop()
        self.history.checkpoint()
        future = self._line.in_flight
        if future is not None and not future.done():
            # a failed, cancelled (the lane closed) or slow call: the text is saved below
            with contextlib.suppress(FutureTimeout, CancelledError, Exception):
                future.result(timeout=FLUSH_WAIT_S)
        if self._line.drop_saves():  # saved here instead, with the newest text
            self._kept = None
        item, queue, calls = self._editable(), self.queue, self.calls
        if item is None or queue is None or calls is None:
            return
        text = self.editor.text()
        if (item.pair_id, text) == self._kept or not text.strip():
            return
        try:
            kept = calls.run_now(queue.save_draft, text, item.pair_id)
        except ProjectBusyError:  # a long import holds the write lock: try again
            self.state.setText(BUSY_NOTE)
            self._autosave.start()
            return
        except StudioError as error:
            self.state.setText(str(error))
            return
        self._kept = (item.pair_id, text)
        self._show_saved(kept)

    def _undo_typing(self, redo: bool) -> None:
        """Undo/redo in the field being typed in: the flag reason keeps its own history."""
        if self.reason.hasFocus():
            self.reason.redo() if redo else self.reason.undo()
            return
        text = self.history.redo() if redo else self.history.undo()
        if text is None or self.item is None or self.editor.isReadOnly():
            return
        self.editor.setText(text)
        self._autosave.start()  # a typing step is autosaved like typing

    # -- moving --------------------------------------------------------------------------

    def _before_move(self) -> None:
        """Save what is typed (an emptied draft goes) before leaving the pair."""
        self.save_soon(leaving=True)

    def skip(self) -> None:
        queue, item = self.queue, self.item
        if queue is None or item is None or self._moving or self._refused("skip"):
            return
        self._go(queue.skip, done=lambda after: self._moved(
            after, f"Pair {item.pair_id} skipped."))

    def ask_reason(self) -> None:
        if self.item is not None and not self._moving:
            self.reason.clear()
            self.reason.show()
            self.reason.setFocus()

    def _confirm_flag(self) -> None:
        queue, item = self.queue, self.item
        self.reason.hide()
        if queue is None or item is None or self._moving or self._refused("flag"):
            return
        reason = self.reason.text().strip()
        self._go(queue.flag, reason, done=lambda after: self._moved(
            after, f"Pair {item.pair_id} flagged for a coordinator."))

    def save_and_next(self) -> None:
        queue, item = self.queue, self.item
        if queue is None or item is None or self._moving:
            return
        self._autosave.stop()
        self._max_wait.stop()
        self._line.drop_saves(item.pair_id)  # the text goes with the submission
        text = self.editor.text()
        self._moving = True
        self.editor.setEnabled(False)
        self._call(queue.submit, text, done=self._submitted, failed=self._not_submitted)

    def _not_submitted(self, error: BaseException) -> None:
        """Refused at once (an empty caption, the pair's quota): the text stays."""
        self._moving = False
        self.editor.setEnabled(True)
        self.editor.setFocus()
        if isinstance(error, StudioError):
            if not isinstance(error, ProjectBusyError):
                self.save_soon()  # the draft is kept (a busy project: the next try keeps it)
            self.state.setText(str(error))
            return
        self._failed(error)

    def _submitted(self, sent: Submitted) -> None:
        self._finished(sent, self.saved)

    def undo_last_save(self) -> None:
        queue = self.queue
        if queue is None or self._moving or self._refused("undo_save"):
            return
        self.save_soon()

        def undone(item: WorkItem | None) -> None:
            if item is None:
                self.state.setText("Nothing saved in this session to undo.")
                return
            self._show(item)
            self.state.setText("Last save undone: the caption is a draft again."
                               if item.status == "draft" else "Last save undone.")
            self.saved.emit()

        self._call(queue.undo_last_save, done=undone)

    # -- on screen or not --------------------------------------------------------------

    def hideEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """Out of sight: what is typed is kept, and the lease no longer renewed."""
        self.save_soon()
        super().hideEvent(event)


def _outcome(sent: Submitted) -> str:
    """What became of a submission, in one line."""
    if sent.waiting:
        return (f"Pair {sent.pair_id}: your caption waits on this computer and is sent "
                "when the server answers.")
    if sent.refused:
        return (f"Pair {sent.pair_id}: the server did not take this caption: "
                f"{sent.refused} Here is your next pair.")
    return f"Pair {sent.pair_id}: caption submitted."


def _state_text(item: WorkItem) -> str:
    if item.status is None:
        note = ""
    elif item.status == "draft":
        note = "Draft (saved as you type)"
    elif item.status == "submitted":
        note = "Submitted; edits are saved and kept in the history"
    else:
        note = (f"{item.status.capitalize()} by {item.reviewer or 'a reviewer'}; it can no "
                "longer change")
    if item.rejected is not None:
        last = item.rejected
        note += (
            f"{' · ' if note else ''}Your earlier caption “{last.text}” was rejected by "
            f"{last.reviewer or 'a reviewer'}: {last.reason}"
        )
    return note
