"""Undo and redo of one caption's typing, a step per word or pause, as editors do.

``QLineEdit``'s own history merges everything typed without moving the cursor into one
step, so one Ctrl+Z erased a whole caption. The writer keeps this history instead: a
step ends at each word (when a space follows it), when typing turns into deleting (or back), and at
every autosave pause. It is Qt-free so the rule can be read and tested on its own.
"""

from __future__ import annotations


class TypingHistory:
    """The texts to step back and forth through; ``reset`` when another pair is shown."""

    def __init__(self, text: str = "") -> None:
        self.reset(text)

    def reset(self, text: str) -> None:
        self._steps = [text]
        self._at = 0
        self._live = text
        self._growing: bool | None = None

    def typed(self, text: str) -> None:
        """The person changed the text to ``text`` (one keystroke, a paste, a cut)."""
        before, self._live = self._live, text
        growing = len(text) >= len(before)
        if self._growing is not None and growing != self._growing:
            self._keep(before)  # typing turned into deleting, or back: a step ends here
        self._growing = growing
        if growing and text.endswith(" ") and before and not before.endswith(" "):
            self._keep(before)  # a word was finished: the step is the text up to it

    def checkpoint(self) -> None:
        """End the current step (a pause in typing, before leaving the pair)."""
        self._keep(self._live)

    def _keep(self, text: str) -> None:
        if text != self._steps[self._at]:
            del self._steps[self._at + 1 :]
            self._steps.append(text)
            self._at += 1

    def undo(self) -> str | None:
        """The text one step back, or None when there is nothing to undo."""
        self.checkpoint()
        if self._at == 0:
            return None
        self._at -= 1
        return self._moved()

    def redo(self) -> str | None:
        """The text one step forward again, or None when nothing was undone."""
        if self._live != self._steps[self._at] or self._at + 1 >= len(self._steps):
            return None
        self._at += 1
        return self._moved()

    def _moved(self) -> str:
        self._live = self._steps[self._at]
        self._growing = None
        return self._live
