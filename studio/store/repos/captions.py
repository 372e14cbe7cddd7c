"""Captions and their reviews: the rows, and the writes whose rules must hold under contention.

Rows come back as ``dict`` s with the keys of ``studio.captions.records.Caption`` (the
feature module builds the record). Every write runs inside the caller's
``project.writing`` / ``project.change`` transaction; ``write_draft`` and
``locked_pair_captions`` + ``submit_draft`` read and write in that one transaction, so the
rules "one draft per person and pair" and "N live captions per pair, from distinct people"
hold when several writers race: both lock the pair first (``locks.lock_row``; SQLite: ``BEGIN IMMEDIATE``
already did), so writers on one pair take turns and writers on different pairs never wait.
"""

from __future__ import annotations

from typing import Any

from studio.store.deferred import Deferred
from studio.store.locks import lock_pair_of_caption, lock_row
from studio.store.project import Project

LIVE = ("submitted", "accepted")

_SELECT = """
    SELECT c.id, c.pair_id, c.position, c.text, a.name AS author, c.status, c.flagged,
           c.reject_reason, r.name AS reviewer, c.created_at, c.updated_at, c.reviewed_at
    FROM captions c
    LEFT JOIN people a ON a.id = c.author_id
    LEFT JOIN people r ON r.id = c.reviewer_id
"""


# What a write answers instead of a second statement reading the row (``caption_row``'s
# columns; both engines take subqueries in RETURNING).
_RETURNING_ROW = """
    RETURNING id, pair_id, position, text,
              (SELECT name FROM people WHERE people.id = captions.author_id) AS author,
              status, flagged, reject_reason,
              (SELECT name FROM people WHERE people.id = captions.reviewer_id) AS reviewer,
              created_at, updated_at, reviewed_at
"""


def lock_pair(project: Project, pair_id: int) -> None:
    """Lock the pair for this write transaction, before its captions are read: one writer
    at a time per pair, so what is read (the person's draft, the live count) stays true
    until commit. Writers on other pairs do not wait (``studio.store.locks``)."""
    lock_row(project, "pairs", pair_id)


def lock_pair_of(project: Project, caption_id: int) -> None:
    """Lock the caption's pair before the caption is read or changed (a reviewer's
    decision): the same order as every writer on the pair (``locks.lock_pair_of_caption``)."""
    lock_pair_of_caption(project, caption_id)


def caption_row(project: Project, caption_id: int) -> dict[str, Any] | None:
    rows = list(project.db.query(_SELECT + " WHERE c.id = :caption_id", {"caption_id": caption_id}))
    return rows[0] if rows else None


def pair_caption_rows(project: Project, pair_id: int) -> list[dict[str, Any]]:
    """The pair's captions in writing order (position, then id)."""
    return list(
        project.db.query(_SELECT + " WHERE c.pair_id = :pair_id ORDER BY c.position, c.id", {
            "pair_id": pair_id,
        })
    )


def own_caption_row(project: Project, pair_id: int, author: str) -> dict[str, Any] | None:
    """The author's latest caption on the pair that was not rejected (a draft or written)."""
    rows = list(
        project.db.query(
            _SELECT + " WHERE c.pair_id = :pair_id AND a.name = :author AND c.status != 'rejected' "
            "ORDER BY c.position DESC, c.id DESC LIMIT 1",
            {"pair_id": pair_id, "author": author},
        )
    )
    return rows[0] if rows else None


def locked_pair_captions(project: Project, pair_id: int) -> Deferred:
    """Lock the pair, then read its captions in writing order (as ``pair_caption_rows``):
    both go to the server with the transaction's next statement, the lock first, so what
    is read stays true until the commit (``submit_draft`` counts its rule on these rows).
    Call inside the write transaction."""
    lock_row(project, "pairs", pair_id)
    return project.db.defer(
        _SELECT + " WHERE c.pair_id = :pair_id ORDER BY c.position, c.id", {"pair_id": pair_id}
    )


def own_in(rows: list[dict[str, Any]], author: str) -> dict[str, Any] | None:
    """The author's latest caption that was not rejected among the pair's ``rows`` (in
    writing order), as ``own_caption_row`` answers it."""
    mine = [row for row in rows if row["author"] == author and row["status"] != "rejected"]
    return mine[-1] if mine else None


def write_draft(project: Project, pair_id: int, author_id: int, text: str, now: str) -> int:
    """Keep ``text`` as the person's one draft of the pair (created at the next position).

    Call inside a write transaction: the pair is locked, then the lookup and the write are
    one step, so one person in two windows gets one draft (the partial unique index
    ``captions_one_draft`` backs this up). Returns the draft's id.
    """
    return int(keep_draft(project, pair_id, author_id, text, now)["id"])


def keep_draft(
    project: Project, pair_id: int, author_id: int, text: str, now: str
) -> dict[str, Any]:
    """``write_draft``, answering the draft's row (as ``caption_row``) in the same statement:
    one upsert on the partial unique index ``captions_one_draft`` (the draft is updated if
    there is one, made at the pair's next position if not)."""
    row = keep_draft_later(project, pair_id, author_id, text, now).row()
    assert row is not None  # an upsert answers its row
    return row


def keep_draft_later(
    project: Project, pair_id: int, author_id: int, text: str, now: str
) -> Deferred:
    """``keep_draft`` sent with the transaction's next statement or its COMMIT (on
    PostgreSQL one round trip fewer): the draft's row is read from the answer, after."""
    lock_row(project, "pairs", pair_id)
    return project.db.defer(
        "INSERT INTO captions (pair_id, position, text, author_id, status, created_at, "
        "updated_at) VALUES (:pair_id, "
        "(SELECT coalesce(max(position) + 1, 0) FROM captions WHERE pair_id = :pair_id), "
        ":text, :author_id, 'draft', :now, :now) "
        "ON CONFLICT (pair_id, author_id) WHERE status = 'draft' "
        "DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at "
        + _RETURNING_ROW,
        {"pair_id": pair_id, "text": text, "author_id": author_id, "now": now},
    )


def keep_draft_unless_written(
    project: Project, pair_id: int, author_id: int, text: str, now: str
) -> Deferred:
    """Lock the pair, then ``keep_draft`` unless the person has a submitted or accepted
    caption on it: then nothing is written and the answer has no row (the caller reads
    their caption and decides). Both go with the transaction's COMMIT: a draft saved in one
    round trip on PostgreSQL. Where the person's captions on the pair are at most a draft,
    this is what reading their caption first and then upserting the draft does."""
    lock_row(project, "pairs", pair_id)
    return project.db.defer(
        "INSERT INTO captions (pair_id, position, text, author_id, status, created_at, "
        "updated_at) SELECT :pair_id, "
        "(SELECT coalesce(max(position) + 1, 0) FROM captions WHERE pair_id = :pair_id), "
        ":text, :author_id, 'draft', :now, :now WHERE NOT EXISTS (SELECT 1 FROM captions "
        "WHERE pair_id = :pair_id AND author_id = :author_id AND status IN (:live_0, :live_1)) "
        "ON CONFLICT (pair_id, author_id) WHERE status = 'draft' "
        "DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at "
        + _RETURNING_ROW,
        {"pair_id": pair_id, "text": text, "author_id": author_id, "now": now,
         "live_0": LIVE[0], "live_1": LIVE[1]},
    )


def submit_draft(
    project: Project,
    caption_id: int,
    pair_rows: list[dict[str, Any]],
    author: str,
    text: str,
    now: str,
    *,
    per_pair: int,
    distinct_authors: bool,
) -> tuple[str, int, Deferred | None]:
    """Submit the draft if the pair's rule allows it, checked and written in one transaction.

    ``pair_rows``: the pair's captions as ``locked_pair_captions`` read them in this same
    write transaction, after its lock on the pair (so a second writer on the pair waits,
    then counts this one's caption). Returns ``(outcome, live, answer)`` where ``live`` is
    the pair's live caption count before this one, ``outcome`` is ``"submitted"``,
    ``"changed"`` (the caption is no longer a draft of this pair), ``"full"`` (the pair
    has ``per_pair`` live captions) or ``"mine"`` (the author already has a live caption
    on it and captions must come from distinct people), and ``answer`` the submitted
    caption's row to read after the commit (as ``caption_row``; None unless submitted):
    the UPDATE goes to the server with the COMMIT.
    """
    live_authors = [row["author"] for row in pair_rows if row["status"] in LIVE]
    status = next((row["status"] for row in pair_rows if row["id"] == caption_id), None)
    if status != "draft":
        return "changed", len(live_authors), None
    if len(live_authors) >= per_pair:
        return "full", len(live_authors), None
    if distinct_authors and author in live_authors:
        return "mine", len(live_authors), None
    submitted = project.db.defer(
        "UPDATE captions SET text = :text, status = 'submitted', updated_at = :now WHERE id = :caption_id "
        + _RETURNING_ROW,
        {"text": text, "now": now, "caption_id": caption_id},
    )
    return "submitted", len(live_authors), submitted


def set_text(project: Project, caption_id: int, text: str, now: str) -> None:
    project.db.execute(
        "UPDATE captions SET text = :text, updated_at = :now WHERE id = :caption_id", {
            "text": text,
            "now": now,
            "caption_id": caption_id,
        }
    )


def restore(project: Project, caption_id: int, text: str, status: str, now: str) -> None:
    """Put back a caption's text and status (undo of the author's last save)."""
    project.db.execute(
        "UPDATE captions SET text = :text, status = :status, updated_at = :now WHERE id = :caption_id",
        {"text": text, "status": status, "now": now, "caption_id": caption_id},
    )


def record_review(
    project: Project,
    caption_id: int,
    *,
    text: str,
    status: str,
    reason: str | None,
    reviewer_id: int,
    now: str,
) -> None:
    project.db.execute(
        "UPDATE captions SET text = :text, status = :status, reject_reason = :reason, reviewer_id = :reviewer_id, "
        "reviewed_at = :now, updated_at = :now WHERE id = :caption_id",
        {
            "text": text,
            "status": status,
            "reason": reason,
            "reviewer_id": reviewer_id,
            "now": now,
            "caption_id": caption_id,
        },
    )


def live_count(project: Project, pair_id: int) -> int:
    row = project.db.execute(
        "SELECT count(*) FROM captions WHERE pair_id = :pair_id AND status IN (:live_0, :live_1)",
        {"pair_id": pair_id, "live_0": LIVE[0], "live_1": LIVE[1]},
    ).fetchone()
    return int(row[0])


def pair_marks(project: Project) -> list[tuple[int, str, str | None]]:
    """Every flag/unflag of a pair from the audit log, oldest first: (pair, action, after)."""
    rows = project.db.execute(
        "SELECT entity_id, action, after FROM audit_log WHERE entity = 'pair' "
        "AND action IN ('flag', 'unflag') ORDER BY id"
    ).fetchall()
    return [(int(row[0]), row[1], row[2]) for row in rows]


def pair_titles(project: Project, pair_id: int) -> tuple[str, str]:
    """The titles of the pair's reference and target images ('' where none)."""
    row = project.db.execute(
        "SELECT r.title, t.title FROM pairs p JOIN images r ON r.id = p.reference_id "
        "LEFT JOIN images t ON t.id = p.target_id WHERE p.id = :pair_id",
        {"pair_id": pair_id},
    ).fetchone()
    return (row[0] or "", row[1] or "") if row else ("", "")


def other_texts(project: Project, pair_id: int, caption_id: int) -> list[str]:
    """The texts of the pair's other captions that were not rejected."""
    return [
        row[0]
        for row in project.db.execute(
            "SELECT text FROM captions WHERE pair_id = :pair_id AND id != :caption_id AND status != 'rejected' "
            "ORDER BY position, id",
            {"pair_id": pair_id, "caption_id": caption_id},
        )
    ]


def same_text_elsewhere(project: Project, author: str, text: str, pair_id: int) -> int:
    """How many captions of other pairs the author wrote with exactly this text."""
    row = project.db.execute(
        "SELECT count(*) FROM captions c JOIN people a ON a.id = c.author_id "
        "WHERE a.name = :author AND c.text = :text AND c.pair_id != :pair_id",
        {"author": author, "text": text, "pair_id": pair_id},
    ).fetchone()
    return int(row[0])
