"""One person's annotating or reviewing session: where they are, and what they can undo.

The Captions pane is a view of these objects (napari's habit: Qt-free models with
events, thin widgets). Everything is written through ``studio.captions.store`` the
moment it happens, so a session holds nothing that a crash could lose.
"""

from __future__ import annotations

from dataclasses import dataclass

from studio.captions import queue, store
from studio.captions.flags import Flag, caption_flags
from studio.captions.records import Caption, CaptionPolicy
from studio.errors import StudioError
from studio.events import Event
from studio.store import Project
from studio.store.caption_drafts import discard_draft


@dataclass(frozen=True)
class SavedCaption:
    """What ``undo_last_save`` needs: the caption, its pair and its state before saving."""

    caption_id: int
    pair_id: int
    before: dict


class WritingSession:
    """An annotator writing captions: ``current`` is the pair on screen."""

    def __init__(self, project: Project, author: str, policy: CaptionPolicy | None = None):
        self.project = project
        self.author = author
        self.policy = policy or store.load_policy(project)
        self.current: int | None = None
        self.last: int | None = None  # where they were before, to step back from "all done"
        self.saves: list[SavedCaption] = []
        self.changed = Event()  # payload: the new current pair id (or None)

    def start(self) -> int | None:
        """Resume on this person's latest draft, else at the first pair that needs them."""
        return self.go_to(queue.resume_at(self.project, self.author, self.policy))

    def go_to(self, pair_id: int | None) -> int | None:
        if self.current is not None:
            self.last = self.current
        self.current = pair_id
        self.changed.emit(pair_id)
        return pair_id

    def own_caption(self) -> Caption | None:
        if self.current is None:
            return None
        return store.own_caption(self.project, self.current, self.author)

    def text(self) -> str:
        caption = self.own_caption()
        return caption.text if caption else ""

    def autosave(self, text: str, pair_id: int | None = None) -> Caption | None:
        """Keep what is typed: a draft (or an audited edit of a submitted caption).

        ``pair_id`` names the pair the text was typed for (a save running off the UI
        thread must not follow ``current`` to the next pair); default: ``current``.
        """
        pair_id = self.current if pair_id is None else pair_id
        if pair_id is None:
            return None
        caption = store.own_caption(self.project, pair_id, self.author)
        if not text.strip():  # an emptied editor never overwrites the words kept
            return caption
        if caption is not None and (caption.text == text or caption.status == "accepted"):
            return caption
        return store.save_draft(self.project, pair_id, self.author, text)

    def leave(self, text: str) -> None:
        """Moving on from the pair: keep what is typed; an emptied draft is not kept.

        A caption cleared and left behind leaves no empty draft to find or count (a
        submitted caption stays as it was: only saving changes it).
        """
        if self.current is None:
            return
        if text.strip():
            self.autosave(text)
            return
        own = self.own_caption()
        if own is not None and own.status == "draft":
            with self.project.writing("captions"):
                discard_draft(self.project, self.current, self.author)

    def save_and_next(self, text: str) -> Caption:
        if self.current is None:
            raise StudioError("There is no pair to caption.")
        pair_id = self.current
        caption, before = store.submit_caption(
            self.project, pair_id, self.author, text, self.policy
        )
        if before is not None:
            self.saves.append(SavedCaption(caption.id, pair_id, before))
        self.go_to(queue.next_to_write(self.project, self.author, self.policy, pair_id))
        return caption

    def step(self, forward: bool) -> int | None:
        """Previous or next pair among those this person wrote or may write."""
        if self.current is not None:
            here = self.current
        elif forward or self.last is None:
            return self.start()
        else:
            here = self.last + 1
        neighbour = queue.step_writing(self.project, self.author, self.policy, here, forward)
        return self.go_to(neighbour) if neighbour is not None else self.current

    def skip(self) -> int | None:
        if self.current is None:
            return None
        pair_id = self.current
        store.mark_pair(self.project, pair_id, self.author, "skip")
        return self.go_to(queue.next_to_write(self.project, self.author, self.policy, pair_id))

    def flag(self, reason: str = "") -> int | None:
        """Flag the pair for a coordinator (broken image, identical items…) and move on."""
        if self.current is None:
            return None
        pair_id = self.current
        store.mark_pair(self.project, pair_id, self.author, "flag", reason)
        store.mark_pair(self.project, pair_id, self.author, "skip")
        return self.go_to(queue.next_to_write(self.project, self.author, self.policy, pair_id))

    def undo_last_save(self) -> Caption | None:
        """Take back the last save: the caption returns to how it was, its pair on screen."""
        if not self.saves:
            return None
        saved = self.saves.pop()
        caption = store.undo_save(self.project, saved.caption_id, self.author, saved.before)
        self.go_to(saved.pair_id)
        return caption

    def remaining(self) -> int:
        return queue.remaining_for(self.project, self.author, self.policy)


class ReviewSession:
    """A reviewer going through submitted captions: ``current`` is a caption id."""

    def __init__(self, project: Project, reviewer: str) -> None:
        self.project = project
        self.reviewer = reviewer
        self.current: int | None = None
        self.last: int | None = None
        self.order = "pair"  # a key of ``queue.REVIEW_ORDERS``: pair order or by stored rank
        self.decisions: list[Caption] = []  # each decided caption as it was before, to undo
        self.changed = Event()

    def start(self) -> int | None:
        return self.go_to(queue.next_to_review(self.project, self.reviewer, order=self.order))

    def go_to(self, caption_id: int | None) -> int | None:
        if self.current is not None:
            self.last = self.current
        self.current = caption_id
        self.changed.emit(caption_id)
        return caption_id

    def caption(self) -> Caption | None:
        return None if self.current is None else store.get_caption(self.project, self.current)

    def flags(self) -> list[Flag]:
        caption = self.caption()
        return [] if caption is None else caption_flags(self.project, caption)

    def others(self) -> list[Caption]:
        caption = self.caption()
        if caption is None:
            return []
        return [
            c
            for c in store.captions_for_pair(self.project, caption.pair_id)
            if c.id != caption.id and c.status != "draft"
        ]

    def accept(self, text: str | None = None) -> Caption:
        return self._decide("accept", text=text)

    def reject(self, reason: str) -> Caption:
        return self._decide("reject", reason=reason)

    def _decide(self, decision: str, reason: str = "", text: str | None = None) -> Caption:
        if self.current is None:
            raise StudioError("There is no caption to review.")
        caption_id = self.current
        before = store.get_caption(self.project, caption_id)
        caption = store.review_caption(
            self.project, caption_id, self.reviewer, decision, reason=reason, text=text
        )
        self.decisions.append(before)
        self.go_to(queue.next_to_review(self.project, self.reviewer, caption_id, self.order))
        return caption

    def undo_last_decision(self) -> Caption | None:
        """Take back the last accept or reject of this session; its caption on screen."""
        if not self.decisions:
            return None
        before = self.decisions.pop()
        caption = store.undo_review(self.project, before.id, self.reviewer, before)
        self.go_to(before.id)
        return caption

    def step(self, forward: bool) -> int | None:
        if self.current is None and (forward or self.last is None):
            return self.start()
        if self.current is None:  # all reviewed: step back to the last one seen
            return self.go_to(self.last)
        neighbour = queue.step_review(
            self.project, self.reviewer, self.current, forward, self.order
        )
        return self.go_to(neighbour) if neighbour is not None else self.current

    def skip(self) -> int | None:
        if self.current is None:
            return None
        return self.go_to(
            queue.next_to_review(self.project, self.reviewer, self.current, self.order)
        )

    def remaining(self) -> int:
        return queue.review_remaining(self.project, self.reviewer)

    def own_waiting(self) -> int:
        """Submitted captions this reviewer wrote: someone else must review them."""
        return queue.own_waiting(self.project, self.reviewer)
