"""The caption-writing queue of the project open here: a ``WritingSession`` behind the
``WorkQueue`` interface (the queue's rules are ``studio.captions.queue``'s; nothing is
held from others, so ``hold`` and ``release`` have no lease to keep)."""

from __future__ import annotations

from studio.captions import queue, store
from studio.captions.records import Caption, CaptionPolicy
from studio.captions.writing_and_review import WritingSession
from studio.errors import StudioError
from studio.store import Project
from studio.store.repos import server as pairs_repo
from studio.work_queue.protocol import (
    NO_PAIR,
    NOTHING_TO_UNDO,
    Action,
    Progress,
    Rejection,
    Submitted,
    WorkItem,
)


class LocalCaptionQueue:
    def __init__(self, project: Project, author: str, policy: CaptionPolicy | None = None) -> None:
        self.session = WritingSession(project, author, policy)
        self.author = author
        self.project = project
        self._hidden: str | None = None  # why no pair is offered (missing pictures)

    # -- reading -----------------------------------------------------------------------

    @property
    def current(self) -> WorkItem | None:
        pair_id = self.session.current
        return None if pair_id is None else self._item(pair_id)

    def _now(self) -> WorkItem | None:
        """The item after a move; with none, learn whether missing pictures hide pairs."""
        item = self.current
        if item is None:
            from studio.picture_files import hidden_pairs_message

            self._hidden = hidden_pairs_message(self.project)
        return item

    def _item(self, pair_id: int, own: Caption | None = None) -> WorkItem:
        if own is None:
            own = store.own_caption(self.project, pair_id, self.author)
        pair = pairs_repo.pair_images(self.project, pair_id) or {}
        captions = store.captions_for_pair(self.project, pair_id)
        rejected = [c for c in captions if c.author == self.author and c.status == "rejected"]
        last = rejected[-1] if rejected else None
        return WorkItem(
            pair_id=pair_id,
            text=own.text if own else "",
            status=own.status if own else None,
            category=pair.get("category") or "",
            reference_id=pair.get("reference_id"),
            target_id=pair.get("target_id"),
            rejected=(
                Rejection(last.text, last.reject_reason or "", last.reviewer) if last else None
            ),
            written=sum(c.is_live for c in captions),
            needed=self.session.policy.per_pair,
            reviewer=own.reviewer if own else None,
        )

    def can(self, action: Action) -> str | None:
        if action == "next" and self.session.current is None and self._hidden:
            return self._hidden
        if action in ("draft", "submit", "skip", "flag") and self.session.current is None:
            return NO_PAIR
        if action == "undo_save" and not self.session.saves:
            return NOTHING_TO_UNDO
        return None

    def progress(self) -> Progress:
        return Progress(
            done=queue.written_by(self.project, self.author), remaining=self.session.remaining()
        )

    # -- moving ------------------------------------------------------------------------

    def take_next(self) -> WorkItem | None:
        if self.session.current is None:
            self.session.start()
        return self._now()

    def step(self, forward: bool) -> WorkItem | None:
        self.session.step(forward)
        return self._now()

    def hold(self) -> WorkItem | None:
        return self.current

    def release(self) -> None:
        """Nothing is held from others here: the pair simply leaves the screen."""
        self.session.go_to(None)

    # -- edits -------------------------------------------------------------------------

    def save_draft(
        self, text: str, pair_id: int | None = None, leaving: bool = False
    ) -> WorkItem | None:
        pair_id = self.session.current if pair_id is None else pair_id
        if pair_id is None:
            return None
        if leaving and pair_id == self.session.current:
            self.session.leave(text)  # an emptied draft left behind is not kept
            own = store.own_caption(self.project, pair_id, self.author)
            return None if own is None else self._item(pair_id, own)
        caption = self.session.autosave(text, pair_id)
        return self._item(pair_id, caption)

    def submit(self, text: str) -> Submitted:
        pair_id = self.session.current
        if pair_id is None:
            raise StudioError(NO_PAIR)
        self.session.save_and_next(text)
        return Submitted(pair_id)

    def outcome(self, submitted: Submitted) -> Submitted:
        return submitted  # the project answers at once: nothing waits

    def skip(self) -> WorkItem | None:
        self.session.skip()
        return self._now()

    def flag(self, reason: str = "") -> WorkItem | None:
        self.session.flag(reason.strip())
        return self._now()

    def undo_last_save(self) -> WorkItem | None:
        if self.session.undo_last_save() is None:
            return None
        return self.current
