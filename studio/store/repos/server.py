"""The team server's tables: tokens, leases, applied edits, and the queue with leases.

Every write runs inside the caller's ``project.change`` / ``project.writing``, and "take
the next pair" locks the pair it hands out (``studio.store.locks``) and counts its room
again before the lease is written: two people never hold one pair beyond its quota, and
people asking at once are handed different pairs (SQLite: ``BEGIN IMMEDIATE`` already
made each writer the only one). The queue is the
captions queue of ``caption_queue`` (same conditions) plus one more: the pair's live
captions and the other people's unexpired leases together stay under the quota.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from studio.store.locks import claim_first, lock_key, lock_row
from studio.store.pg_database import TOKENS_CHANNEL
from studio.store.project import Project
from studio.store.repos.caption_queue import _LIVE, _VISIBLE, _needs_me, first_candidate

CAPTION = "caption"
REVIEW = "review"
ATTRIBUTE = "attribute"

# -- tokens ---------------------------------------------------------------------------


def active_token_names(project: Project, name: str) -> int:
    row = project.db.execute(
        "SELECT count(*) FROM server_tokens WHERE name = :name AND revoked_at IS NULL", {"name": name}
    ).fetchone()
    return int(row[0])


def add_token(project: Project, name: str, role: str, salt: str, digest: str, now: str) -> int:
    row = project.db.execute(
        "INSERT INTO server_tokens (name, role, salt, digest, created_at) "
        "VALUES (:name, :role, :salt, :digest, :now) RETURNING id",
        {"name": name, "role": role, "salt": salt, "digest": digest, "now": now},
    ).fetchone()
    return int(row[0])


def token_row(project: Project, token_id: int) -> dict[str, Any] | None:
    rows = list(
        project.db.query(
            "SELECT id, name, role, salt, digest, revoked_at FROM server_tokens WHERE id = :token_id",
            {"token_id": token_id},
        )
    )
    return rows[0] if rows else None


def token_revoked(project: Project, token_id: int) -> bool:
    row = project.db.execute(
        "SELECT revoked_at FROM server_tokens WHERE id = :token_id", {"token_id": token_id}
    ).fetchone()
    return row is None or row[0] is not None


def revoke_tokens(project: Project, name: str, now: str) -> int:
    """Revoke every live token of ``name``, inside a write transaction; how many were
    revoked. On PostgreSQL the commit tells the team server's workers, which trust the
    tokens they verified only until they hear of a revocation (``token_watch``)."""
    if not project.db.conn.in_transaction:
        raise RuntimeError("Tokens are revoked inside a write transaction (its commit is heard).")
    cursor = project.db.execute(
        "UPDATE server_tokens SET revoked_at = :now WHERE name = :name AND revoked_at IS NULL",
        {"now": now, "name": name},
    )
    if project.url is not None:
        project.pg_db.notify_at_commit(TOKENS_CHANNEL, name)
    return int(cursor.rowcount)


def token_list(project: Project) -> list[dict[str, Any]]:
    return list(
        project.db.query(
            "SELECT id, name, role, created_at, revoked_at FROM server_tokens ORDER BY id"
        )
    )


# -- leases ---------------------------------------------------------------------------


def drop_expired(project: Project, now: float) -> int:
    return int(project.db.execute("DELETE FROM server_leases WHERE expires_at <= :now", {
        "now": now,
    }).rowcount)


def held_lease(project: Project, kind: str, holder: str, now: float) -> dict[str, Any] | None:
    """The holder's unexpired lease of this kind (the oldest), if any.

    Inside a write transaction it first locks this holder's leases of this kind
    (``lock_key``), so the same person asking twice at once gets one lease, not two.
    """
    if project.db.conn.in_transaction:
        lock_key(project, "lease", kind, holder)
    rows = list(
        project.db.query(
            "SELECT id, kind, item_id, item_key, holder, expires_at FROM server_leases "
            "WHERE kind = :kind AND holder = :holder AND expires_at > :now ORDER BY id LIMIT 1",
            {"kind": kind, "holder": holder, "now": now},
        )
    )
    return rows[0] if rows else None


def lease_row(project: Project, lease_id: int) -> dict[str, Any] | None:
    rows = list(
        project.db.query(
            "SELECT id, kind, item_id, item_key, holder, expires_at FROM server_leases "
            "WHERE id = :lease_id",
            {"lease_id": lease_id},
        )
    )
    return rows[0] if rows else None


def lease_on(project: Project, kind: str, item_id: int, holder: str, now: float) -> int | None:
    row = project.db.execute(
        "SELECT id FROM server_leases WHERE kind = :kind AND item_id = :item_id AND holder = :holder "
        "AND expires_at > :now ORDER BY id LIMIT 1",
        {"kind": kind, "item_id": item_id, "holder": holder, "now": now},
    ).fetchone()
    return None if row is None else int(row[0])


def add_lease(
    project: Project, kind: str, item_id: int, holder: str, expires_at: float, now: str,
    item_key: str = "",
) -> int:
    """A lease on ``item_id`` (pairs, captions) or, for items named by text, ``item_key``."""
    row = project.db.execute(
        "INSERT INTO server_leases (kind, item_id, item_key, holder, expires_at, created_at) "
        "VALUES (:kind, :item_id, :item_key, :holder, :expires_at, :now) RETURNING id",
        {
            "kind": kind,
            "item_id": item_id,
            "item_key": item_key,
            "holder": holder,
            "expires_at": expires_at,
            "now": now,
        },
    ).fetchone()
    return int(row[0])


def renew_lease(project: Project, lease_id: int, expires_at: float) -> None:
    project.db.execute(
        "UPDATE server_leases SET expires_at = :expires_at WHERE id = :lease_id", {
            "expires_at": expires_at,
            "lease_id": lease_id,
        }
    )


def release_lease(project: Project, lease_id: int) -> None:
    project.db.execute("DELETE FROM server_leases WHERE id = :lease_id", {"lease_id": lease_id})


def release_item(project: Project, kind: str, item_id: int, holder: str) -> None:
    project.db.execute(
        "DELETE FROM server_leases WHERE kind = :kind AND item_id = :item_id AND holder = :holder",
        {"kind": kind, "item_id": item_id, "holder": holder},
    )


def release_item_key(project: Project, kind: str, item_key: str, holder: str) -> None:
    project.db.execute(
        "DELETE FROM server_leases WHERE kind = :kind AND item_key = :item_key AND holder = :holder",
        {"kind": kind, "item_key": item_key, "holder": holder},
    )


_OTHERS_LEASES = (
    "(SELECT count(*) FROM server_leases l WHERE l.kind = 'caption' AND l.item_id = p.id "
    "AND l.holder != :me AND l.expires_at > :now)"
)


def next_pair_to_lease(
    project: Project, author: str, per_pair: int, distinct_authors: bool, now: float
) -> int | None:
    """The first pair that needs this author and has room beside the others' leases.

    Call inside the transaction that writes the lease: the pair comes back locked
    (``claim_first``: pairs another writer holds are passed over while others remain, and
    the room is counted again once the pair is locked).
    """
    # a full pair never qualifies here (even with this person's draft): the scan starts at
    # the first pair short of its captions
    wanted = (f"p.id >= {first_candidate(per_pair, False)} "
              f"AND {_LIVE} < :quota AND {_VISIBLE} AND {_needs_me(distinct_authors)} "
              f"AND {_LIVE} + {_OTHERS_LEASES} < :quota")
    params: dict[str, Any] = {"me": author, "quota": per_pair, "now": now}

    def find(clause: str, passed: Sequence[int]) -> int | None:
        holes = {f"s{n}": pair for n, pair in enumerate(passed)}
        left_out = f"AND p.id NOT IN ({', '.join(':' + h for h in holes)}) " if holes else ""
        row = project.db.execute(
            f"SELECT p.id FROM pairs p WHERE {wanted} {left_out}ORDER BY p.id LIMIT 1{clause}",
            {**params, **holes},
        ).fetchone()
        return None if row is None else int(row[0])

    def holds(pair_id: int) -> bool:
        return project.db.execute(
            f"SELECT 1 FROM pairs p WHERE p.id = :pair AND {wanted}", {**params, "pair": pair_id}
        ).fetchone() is not None

    return claim_first(project, "p", find, holds)


def pair_room(project: Project, pair_id: int, holder: str, now: float) -> tuple[int, int] | None:
    """``(live captions, others' unexpired leases)`` of a visible pair; None: no such pair.

    Inside a write transaction the pair is locked first, so the count holds until the
    transaction that acts on it commits.
    """
    if project.db.conn.in_transaction:
        lock_row(project, "pairs", pair_id)
    row = project.db.execute(
        f"SELECT {_LIVE}, {_OTHERS_LEASES} FROM pairs p WHERE p.id = :pair AND {_VISIBLE}",
        {"me": holder, "now": now, "pair": pair_id},
    ).fetchone()
    return None if row is None else (int(row[0]), int(row[1]))


def pair_images(project: Project, pair_id: int) -> dict[str, Any] | None:
    rows = list(
        project.db.query(
            "SELECT p.id, p.reference_id, p.target_id, p.category FROM pairs p WHERE p.id = :pair_id",
            {"pair_id": pair_id},
        )
    )
    return rows[0] if rows else None


# -- applied edits --------------------------------------------------------------------


def applied_edit(project: Project, uid: str) -> dict[str, Any] | None:
    """The answer kept for edit ``uid``, if it was applied. Inside a write transaction the
    uid is locked first (``lock_key``): a resend that arrives while the first is being
    applied waits for it, then reads its answer, so an edit is applied once."""
    if project.db.conn.in_transaction:
        lock_key(project, "edit", uid)
    rows = list(
        project.db.query(
            "SELECT uid, holder, status, answer FROM server_edits WHERE uid = :uid", {"uid": uid}
        )
    )
    return rows[0] if rows else None


def record_edit(
    project: Project, uid: str, holder: str, status: int, answer: str, now: str
) -> None:
    project.db.execute(
        "INSERT INTO server_edits (uid, holder, status, answer, applied_at) "
        "VALUES (:uid, :holder, :status, :answer, :now)",
        {"uid": uid, "holder": holder, "status": status, "answer": answer, "now": now},
    )


def prune_edits(project: Project, before: str) -> int:
    """Forget applied edits older than ``before`` (ISO 8601, UTC); how many went."""
    return int(project.db.execute(
        "DELETE FROM server_edits WHERE applied_at < :before", {"before": before}).rowcount or 0)


def edit_count(project: Project) -> int:
    return int(project.db.execute("SELECT count(*) FROM server_edits").fetchone()[0])


# -- progress -------------------------------------------------------------------------


def caption_progress(project: Project, per_pair: int, now: float) -> dict[str, Any]:
    """Counts a coordinator watches: pairs done, captions by status, leases, per person."""
    db = project.db
    pairs = int(db.execute(f"SELECT count(*) FROM pairs p WHERE {_VISIBLE}").fetchone()[0])
    complete = int(
        db.execute(
            f"SELECT count(*) FROM pairs p WHERE {_VISIBLE} AND {_LIVE} >= :per_pair", {
                "per_pair": per_pair,
            }
        ).fetchone()[0]
    )
    by_status = {
        row[0]: int(row[1])
        for row in db.execute("SELECT status, count(*) FROM captions GROUP BY status ORDER BY 1")
    }
    leases = int(
        db.execute("SELECT count(*) FROM server_leases WHERE expires_at > :now", {
            "now": now,
        }).fetchone()[0]
    )
    people = {
        row[0]: int(row[1])
        for row in db.execute(
            "SELECT a.name, count(*) FROM captions c JOIN people a ON a.id = c.author_id "
            "WHERE c.status IN ('submitted', 'accepted') GROUP BY a.name ORDER BY a.name"
        )
    }
    leases_by_kind = {
        row[0]: int(row[1])
        for row in db.execute(
            "SELECT kind, count(*) FROM server_leases WHERE expires_at > :now GROUP BY kind "
            "ORDER BY 1", {"now": now}
        )
    }
    reviewed_by = {
        row[0]: int(row[1])
        for row in db.execute(
            "SELECT r.name, count(*) FROM captions c JOIN people r ON r.id = c.reviewer_id "
            "WHERE c.status IN ('accepted', 'rejected') GROUP BY r.name ORDER BY r.name"
        )
    }
    to_decide = int(db.execute(
        "SELECT count(DISTINCT image_id) FROM image_attributes WHERE status = 'suggested'"
    ).fetchone()[0])
    labels = {
        row[0]: int(row[1])
        for row in db.execute(
            "SELECT status, count(*) FROM image_attributes GROUP BY status ORDER BY 1"
        )
    }
    ratings = {
        row[0]: int(row[1])
        for row in db.execute(
            "SELECT status, count(*) FROM rating_assignments GROUP BY status ORDER BY 1"
        )
    }
    return {
        "pairs": pairs,
        "pairs_complete": complete,
        "captions": by_status,
        "active_leases": leases,
        "leases_by_kind": leases_by_kind,
        "submitted_by": people,
        "reviewed_by": reviewed_by,
        "images_to_decide": to_decide,
        "labels": labels,
        "ratings": ratings,
    }
