"""Writing, editing and reviewing captions; every submitted change is audited.

Drafts are saved on every pause in typing (``save_draft``) without an audit row: they
are the annotator's scratch space, and auditing each keystroke would bury the real
history. Submitting, editing, undoing and reviewing each go through ``Project.change``:
one transaction and one audit row with the caption before and after. Every rule is read
and checked inside the ``BEGIN IMMEDIATE`` transaction that writes, so several annotators
(or one in two windows) cannot break it together.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from studio.captions.records import MAX_CAPTION_CHARS, Caption, CaptionPolicy
from studio.errors import StudioError
from studio.store import Project
from studio.store.caption_reviews import restore_review
from studio.store.database import utc_now
from studio.store.repos import captions as captions_repo


def _caption(row: dict[str, Any]) -> Caption:
    return Caption(
        id=row["id"], pair_id=row["pair_id"], position=row["position"], text=row["text"],
        author=row["author"], status=row["status"], flagged=bool(row["flagged"]),
        reject_reason=row["reject_reason"], reviewer=row["reviewer"],
        created_at=row["created_at"], updated_at=row["updated_at"],
        reviewed_at=row["reviewed_at"],
    )


def get_caption(project: Project, caption_id: int) -> Caption:
    row = captions_repo.caption_row(project, caption_id)
    if row is None:
        raise StudioError(f"Caption {caption_id} does not exist (was its pair deleted?).")
    return _caption(row)


def captions_for_pair(project: Project, pair_id: int) -> list[Caption]:
    return [_caption(row) for row in captions_repo.pair_caption_rows(project, pair_id)]


def own_caption(project: Project, pair_id: int, author: str) -> Caption | None:
    """The author's current caption on the pair: a draft, or one they submitted."""
    row = captions_repo.own_caption_row(project, pair_id, author)
    return None if row is None else _caption(row)


POLICY_KEYS = ("captions.per_pair", "captions.distinct_authors")


def load_policy(project: Project) -> CaptionPolicy:
    return _policy(project.get_metas(*POLICY_KEYS))


def _policy(settings: dict[str, str | None]) -> CaptionPolicy:
    per_pair, distinct = settings.get(POLICY_KEYS[0]), settings.get(POLICY_KEYS[1])
    return CaptionPolicy(int(per_pair) if per_pair else 2, distinct != "0")


def save_policy(project: Project, policy: CaptionPolicy, actor: str) -> None:
    before = load_policy(project)
    with project.change(
        actor, "set_policy", "captions", "policy", before=before.__dict__
    ) as record:
        project.set_meta("captions.per_pair", str(policy.per_pair))
        project.set_meta("captions.distinct_authors", "1" if policy.distinct_authors else "0")
        record["after"] = policy.__dict__


def check_length(text: str) -> None:
    """A caption longer than ``MAX_CAPTION_CHARS`` is refused (its text is not stored)."""
    if len(text) > MAX_CAPTION_CHARS:
        raise StudioError(
            f"The caption is {len(text):,} characters long; the limit is "
            f"{MAX_CAPTION_CHARS:,}. Shorten it to the differences that matter."
        )


def save_draft(project: Project, pair_id: int, author: str, text: str) -> Caption:
    """Keep what the author typed so far; creates the draft on first use.

    On the author's submitted (not yet reviewed) caption this is an audited edit
    instead, so a later change of mind is never silent. The lookup and the write are one
    transaction, after the pair was locked (SQLite: ``BEGIN IMMEDIATE``), so one person in
    two windows gets one draft (the partial unique index ``captions_one_draft`` backs
    this up). On PostgreSQL the pair's lock and the draft's upsert go with the COMMIT: one
    round trip, unless the author has a written caption on the pair (then it is read and
    edited or refused in a second transaction).
    """
    check_length(text)
    now = utc_now()
    person = project.ensure_person(author)
    with project.writing("captions"):
        # the usual case (no written caption of the author's on the pair yet) in one step
        answer = captions_repo.keep_draft_unless_written(project, pair_id, person.id, text, now)
    row = answer.row()
    if row is not None:
        return _caption(row)
    with project.writing("captions"):
        captions_repo.lock_pair(project, pair_id)
        current = own_caption(project, pair_id, author)
        kept = _keep_draft(project, pair_id, author, text, current, now)
    return kept()


def _keep_draft(
    project: Project, pair_id: int, author: str, text: str, current: Caption | None, now: str
) -> Callable[[], Caption]:
    """``save_draft``'s write, inside its transaction: the pair locked, ``current`` the
    author's caption on it as read under that lock. Answers how to read the caption kept,
    once the transaction committed (the draft's upsert is sent with the COMMIT)."""
    if current is not None and current.status == "submitted":
        if text == current.text:
            return lambda: current
        edited = edit_caption(project, current.id, author, text)
        return lambda: edited
    if current is not None and current.status == "accepted":
        raise StudioError("This caption was already accepted by a reviewer; it cannot change.")
    person = project.ensure_person(author)
    answer = captions_repo.keep_draft_later(project, pair_id, person.id, text, now)
    return lambda: _caption(_one(answer.row()))


def _one(row: dict[str, Any] | None) -> dict[str, Any]:
    assert row is not None  # a write answering its row (upsert, update by id under lock)
    return row


def submit_caption(
    project: Project, pair_id: int, author: str, text: str, policy: CaptionPolicy | None = None
) -> tuple[Caption, dict | None]:
    """Submit the author's caption; returns it and its state before (for undo).

    Refuses empty text, a pair that already has all its captions, and (by default) a
    second caption of the same person on one pair. The draft stays in every case: it is
    committed first (unless it holds this text already: then all of it is one
    transaction), then the rule is counted and the caption submitted inside one
    transaction that first locks the pair (SQLite: ``BEGIN IMMEDIATE``), so annotators
    submitting at the same moment cannot together exceed the rule (the second waits, then
    counts the first one's caption); annotators on other pairs do not wait. On PostgreSQL
    the lock, the pair's captions and the policy go to the server in one round trip, the
    submit, its audit row and the COMMIT in a second.
    """
    text = " ".join(text.split())
    if not text:
        raise StudioError("The caption is empty; type how the wanted item differs.")
    check_length(text)
    with project.writing("captions"):
        pair = captions_repo.locked_pair_captions(project, pair_id)
        settings = None if policy is not None else project.get_metas_later(*POLICY_KEYS)
        rows = pair.rows()
        row = captions_repo.own_in(rows, author)
        current = None if row is None else _caption(row)
        if current is not None and current.status == "submitted":
            before = current.audit_state()
            return edit_caption(project, current.id, author, text), before
        if current is not None and current.status == "accepted":
            raise StudioError("This caption was already accepted by a reviewer; it cannot change.")
        if current is not None and current.status == "draft" and current.text == text:
            # The draft holds this text already (it was saved as typed): nothing to keep
            # first, so the rule is checked in this transaction, under the same lock.
            rule = policy or _policy(settings() if settings else {})
            submitted = _submit(project, current, rows, author, text, rule)
        else:
            # kept whatever happens next
            kept = _keep_draft(project, pair_id, author, text, current, utc_now())
            submitted = None
    if submitted is not None:
        return submitted()
    draft = kept()
    with project.writing("captions"):
        pair = captions_repo.locked_pair_captions(project, pair_id)
        settings = None if policy is not None else project.get_metas_later(*POLICY_KEYS)
        rule = policy or _policy(settings() if settings else {})
        submitted = _submit(project, draft, pair.rows(), author, text, rule)
    return submitted()


def _submit(
    project: Project,
    draft: Caption,
    pair_rows: list[dict[str, Any]],
    author: str,
    text: str,
    rule: CaptionPolicy,
) -> Callable[[], tuple[Caption, dict | None]]:
    """Submit ``draft`` if the pair's rule allows it: one audited change, inside the write
    transaction that locked the pair and read ``pair_rows`` under that lock. Answers how to
    read the submitted caption once the transaction committed."""
    before = draft.audit_state()
    with project.change(author, "submit", "caption", draft.id, before=before) as record:
        outcome, live, answer = captions_repo.submit_draft(
            project,
            draft.id,
            pair_rows,
            author,
            text,
            utc_now(),
            per_pair=rule.per_pair,
            distinct_authors=rule.distinct_authors,
        )
        if outcome == "changed":
            raise StudioError("This caption changed in another window; reload the pair.")
        if outcome == "full":
            raise StudioError(
                f"This pair already has {live} captions; your text is kept as a draft."
            )
        if outcome == "mine":
            raise StudioError(
                "You already captioned this pair; a second caption must come from someone else."
            )
        assert answer is not None  # submitted
        # What the UPDATE makes of the draft read under the pair's lock (text and status;
        # its reject reason and flag stay): the audit row goes with it and the COMMIT.
        record["after"] = {**before, "text": text, "status": "submitted"}
    return lambda: (_caption(_one(answer.row())), before)


def edit_caption(project: Project, caption_id: int, actor: str, text: str) -> Caption:
    """Change a caption's text, keeping the old text in the audit log."""
    check_length(text)
    with project.writing("captions"):  # read the state the audit row records inside the lock
        current = get_caption(project, caption_id)
        with project.change(
            actor, "edit", "caption", caption_id, before=current.audit_state()
        ) as record:
            captions_repo.set_text(project, caption_id, text, utc_now())
            caption = get_caption(project, caption_id)
            record["after"] = caption.audit_state()
    return caption


def undo_save(project: Project, caption_id: int, actor: str, before: dict) -> Caption:
    """Put a caption back as it was before the author's last save (text and status)."""
    with project.writing("captions"):
        current = get_caption(project, caption_id)
        if current.reviewed_at is not None:
            raise StudioError("This caption was reviewed since; it can no longer be undone.")
        with project.change(
            actor, "undo", "caption", caption_id, before=current.audit_state()
        ) as record:
            captions_repo.restore(
                project, caption_id, before["text"], before["status"], utc_now()
            )
            caption = get_caption(project, caption_id)
            record["after"] = caption.audit_state()
    return caption


def review_caption(
    project: Project,
    caption_id: int,
    reviewer: str,
    decision: str,
    reason: str = "",
    text: str | None = None,
) -> Caption:
    """Accept (optionally with edited text) or reject (with a reason) one caption."""
    if decision not in ("accept", "reject"):
        raise StudioError(f"Unknown review decision {decision!r}; use accept or reject.")
    reason = reason.strip()
    if decision == "reject" and not reason:
        raise StudioError("Say why the caption is rejected; the author will see the reason.")
    with project.writing("captions"):
        captions_repo.lock_pair_of(project, caption_id)  # before the caption: a status
        current = get_caption(project, caption_id)  # change updates the pair's live count
        if current.author == reviewer:
            raise StudioError("You cannot review your own caption.")
        if current.status == "draft":
            raise StudioError("This caption is still a draft; it cannot be reviewed yet.")
        new_text = current.text if text is None else " ".join(text.split())
        if not new_text:
            raise StudioError("The edited caption is empty; reject it instead.")
        check_length(new_text)
        person = project.ensure_person(reviewer, "reviewer")
        status = "accepted" if decision == "accept" else "rejected"
        with project.change(
            reviewer, decision, "caption", caption_id, before=current.audit_state()
        ) as record:
            captions_repo.record_review(
                project,
                caption_id,
                text=new_text,
                status=status,
                reason=reason or None,
                reviewer_id=person.id,
                now=utc_now(),
            )
            caption = get_caption(project, caption_id)
            record["after"] = caption.audit_state()
    return caption


def undo_review(project: Project, caption_id: int, reviewer: str, before: Caption) -> Caption:
    """Take back ``reviewer``'s accept or reject: the caption is as it was before it.

    Refused when someone else reviewed the caption since, or its author changed it: the
    undo never overwrites another person's work. One audited change, like the review.
    """
    with project.writing("captions"):
        captions_repo.lock_pair_of(project, caption_id)  # as review_caption
        current = get_caption(project, caption_id)
        if current.reviewer != reviewer or current.status not in ("accepted", "rejected"):
            raise StudioError("This caption changed since your decision; it cannot be undone.")
        with project.change(
            reviewer, "undo", "caption", caption_id, before=current.audit_state()
        ) as record:
            restore_review(
                project, caption_id, before.text, before.status, before.reject_reason,
                before.reviewer, before.reviewed_at,
            )
            caption = get_caption(project, caption_id)
            record["after"] = caption.audit_state()
    return caption


def mark_pair(project: Project, pair_id: int, actor: str, action: str, reason: str = "") -> None:
    """Record that the person skipped or flagged a pair (``action``: skip | flag)."""
    if action not in ("skip", "flag", "unflag"):
        raise StudioError(f"Unknown pair mark {action!r}.")
    with project.change(actor, action, "pair", pair_id) as record:
        record["after"] = {"reason": reason} if reason else {}


def flagged_pairs(project: Project) -> dict[int, str]:
    """Pairs whose latest flag/unflag is a flag, with the reason given."""
    flags: dict[int, str] = {}
    for pair_id, action, after in captions_repo.pair_marks(project):
        if action == "flag":
            flags[pair_id] = json.loads(after or "{}").get("reason", "")
        else:
            flags.pop(pair_id, None)
    return flags


def live_count(project: Project, pair_id: int) -> int:
    return captions_repo.live_count(project, pair_id)
