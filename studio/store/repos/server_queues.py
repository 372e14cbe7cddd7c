"""The team server's review and attribute queues, and who may see which picture.

Like the caption queue (``server.next_pair_to_lease``) these are queries run inside the
write transaction that then takes the lease; the item comes back locked
(``studio.store.locks``) and checked again once locked, so two reviewers never hold one
caption and two annotators never hold one image, while people asking at once are handed
different items. A person's skips are the audit rows of their
releases (``skip_review`` on a caption, ``attributes.skip`` on an image): a skipped caption
comes back to that reviewer after the others, as in the desktop's review, and so does a
skipped image (on both faces of the attribute queue: ``studio.work_queue``).
"""

from __future__ import annotations

from collections.abc import Sequence

from studio.store.locks import claim_first, lock_row
from studio.store.project import Project

REVIEW_SKIP = "skip_review"
ATTRIBUTE_SKIP = "attributes.skip"

_OTHERS_REVIEW = (
    "EXISTS (SELECT 1 FROM server_leases l WHERE l.kind = 'review' AND l.item_id = c.id "
    "AND l.holder != :me AND l.expires_at > :now)"
)
_OTHERS_IMAGE = (
    "EXISTS (SELECT 1 FROM server_leases l WHERE l.kind = 'attribute' AND l.item_key = i.id "
    "AND l.holder != :me AND l.expires_at > :now)"
)


# When this reviewer last skipped the caption (its skip row's id; 0: never).
_LAST_SKIP = (
    "COALESCE((SELECT max(s.id) FROM audit_log s WHERE s.entity = 'caption' "
    "AND s.entity_id = CAST(c.id AS TEXT) AND s.action = :skip AND s.actor = :me), 0)"
)


def next_caption_to_review(project: Project, reviewer: str, now: float) -> int | None:
    """The first submitted caption written by someone else that nobody else holds, in pair
    order (the desktop's default review order), the captions this reviewer skipped after
    the others, the one skipped longest ago first (as on the desktop, a skipped caption
    comes back once the others are reviewed or skipped)."""
    wanted = (
        "c.status = 'submitted' AND (a.name IS NULL OR a.name != :me) "
        f"AND NOT {_OTHERS_REVIEW}"
    )
    params = {"me": reviewer, "now": now, "skip": REVIEW_SKIP}
    found = "SELECT c.id FROM captions c LEFT JOIN people a ON a.id = c.author_id WHERE "

    def find(clause: str, passed: Sequence[int]) -> int | None:
        left_out = f"AND c.id NOT IN ({', '.join(map(str, passed))}) " if passed else ""
        row = project.db.execute(
            f"{found}{wanted} {left_out}ORDER BY {_LAST_SKIP}, c.pair_id, c.position, c.id "
            f"LIMIT 1{clause}",
            params,
        ).fetchone()
        return None if row is None else int(row[0])

    def holds(caption_id: int) -> bool:
        return project.db.execute(
            f"{found}c.id = :caption AND {wanted}", {**params, "caption": caption_id}
        ).fetchone() is not None

    return claim_first(project, "c", find, holds)


def review_held_by_others(project: Project, caption_id: int, holder: str, now: float) -> bool:
    """Whether another reviewer holds the caption; inside a write transaction the caption
    is locked first, so the answer holds until that transaction commits."""
    if project.db.conn.in_transaction:
        lock_row(project, "captions", caption_id)
    row = project.db.execute(
        f"SELECT {_OTHERS_REVIEW} FROM captions c WHERE c.id = :caption",
        {"me": holder, "now": now, "caption": caption_id},
    ).fetchone()
    return row is not None and bool(row[0])


_ASSIGNED_TO = (
    "EXISTS (SELECT 1 FROM team_assignments t JOIN people p ON p.id = t.person_id "
    "WHERE t.kind = 'attributes' AND t.item = i.id AND p.name {op} :me)"
)


# When this person last skipped the image (its skip row's id; 0: never).
_LAST_IMAGE_SKIP = (
    "COALESCE((SELECT max(k.id) FROM audit_log k WHERE k.entity = 'image_attributes' "
    "AND k.entity_id = i.id AND k.action = :skip AND k.actor = :me), 0)"
)
# An image with undecided suggestions that nobody else holds and no team batch gave to
# someone else.
_TO_DECIDE = (
    "i.missing = 0 "
    "AND EXISTS (SELECT 1 FROM image_attributes s WHERE s.image_id = i.id "
    "AND s.status = 'suggested') "
    f"AND NOT {_OTHERS_IMAGE} AND NOT {_ASSIGNED_TO.format(op='!=')}"
)


def next_image_to_decide(project: Project, person: str, now: float,
                         lock: bool = True) -> str | None:
    """The first image with undecided suggestions that nobody else holds and that no team
    batch gave to someone else; images of their own attribute batches (``team assign
    attributes``) come first, and images this person skipped come after the others, the
    one skipped longest ago first. ``lock``: claim it (inside the write transaction that
    leases it); without, only read which it is."""
    params: dict[str, object] = {"me": person, "now": now, "skip": ATTRIBUTE_SKIP}

    def find(clause: str, passed: Sequence[str]) -> str | None:
        holes = {f"s{n}": image for n, image in enumerate(passed)}
        left_out = f"AND i.id NOT IN ({', '.join(':' + h for h in holes)}) " if holes else ""
        row = project.db.execute(
            f"SELECT i.id FROM images i WHERE {_TO_DECIDE} {left_out}"
            f"ORDER BY CASE WHEN {_ASSIGNED_TO.format(op='=')} THEN 0 ELSE 1 END, "
            f"{_LAST_IMAGE_SKIP}, i.id LIMIT 1{clause}",
            {**params, **holes},
        ).fetchone()
        return None if row is None else str(row[0])

    def holds(image_id: str) -> bool:
        return project.db.execute(
            f"SELECT 1 FROM images i WHERE i.id = :image AND {_TO_DECIDE}",
            {**params, "image": image_id},
        ).fetchone() is not None

    return claim_first(project, "i", find, holds) if lock else find("", ())


def attribute_figures(project: Project, person: str, now: float) -> dict[str, int]:
    """A person's attribute figures: ``done`` (images they accepted or rejected an
    attribute of), ``remaining`` (images with undecided suggestions they may be handed,
    the one held included) and ``total``."""
    done = project.db.execute(
        "SELECT COUNT(DISTINCT entity_id) FROM audit_log WHERE entity = 'image_attributes' "
        "AND actor = :me AND action IN ('attributes.accept', 'attributes.reject')",
        {"me": person},
    ).fetchone()[0]
    remaining = project.db.execute(
        f"SELECT COUNT(*) FROM images i WHERE {_TO_DECIDE}", {"me": person, "now": now},
    ).fetchone()[0]
    return {"done": int(done), "remaining": int(remaining),
            "total": int(done) + int(remaining)}


def image_held_by_others(project: Project, image_id: str, holder: str, now: float) -> bool:
    """Whether someone else holds the image; inside a write transaction the image is
    locked first, so the answer holds until that transaction commits."""
    if project.db.conn.in_transaction:
        lock_row(project, "images", image_id)
    row = project.db.execute(
        f"SELECT {_OTHERS_IMAGE} FROM images i WHERE i.id = :image",
        {"me": holder, "now": now, "image": image_id},
    ).fetchone()
    return row is not None and bool(row[0])


def image_exists(project: Project, image_id: str) -> bool:
    return project.db.execute(
        "SELECT 1 FROM images WHERE id = :image_id", {"image_id": image_id}
    ).fetchone() is not None


def rater_sees_image(project: Project, rater: str, image_id: str) -> bool:
    """The image is shown with a turn this rater still has to rate (pending): the turn's
    target, or the target or reference of a turn before it (its history)."""
    row = project.db.execute(
        "SELECT 1 FROM rating_assignments r JOIN people p ON p.id = r.rater_id "
        "JOIN transaction_images ti ON ti.transaction_id = r.transaction_id "
        "WHERE p.name = :rater AND r.status = 'pending' AND ti.image_id = :image_id "
        "AND (ti.position <= r.turn_index OR ti.position IN (SELECT t.reference_position "
        "FROM transaction_turns t WHERE t.transaction_id = r.transaction_id "
        "AND t.turn_index <= r.turn_index)) LIMIT 1",
        {"rater": rater, "image_id": image_id},
    ).fetchone()
    return row is not None


def holder_sees_image(project: Project, holder: str, image_id: str, now: float) -> bool:
    """The image is part of an item this person holds an unexpired lease on: a pair to
    caption, a caption to review (its pair) or an image to decide attributes of."""
    row = project.db.execute(
        "SELECT 1 FROM server_leases l WHERE l.holder = :me AND l.expires_at > :now AND ("
        "(l.kind = 'attribute' AND l.item_key = :image) "
        "OR (l.kind = 'caption' AND EXISTS (SELECT 1 FROM pairs p WHERE p.id = l.item_id "
        "AND :image IN (p.reference_id, p.target_id))) "
        "OR (l.kind = 'review' AND EXISTS (SELECT 1 FROM captions c JOIN pairs p "
        "ON p.id = c.pair_id WHERE c.id = l.item_id "
        "AND :image IN (p.reference_id, p.target_id)))) LIMIT 1",
        {"me": holder, "now": now, "image": image_id},
    ).fetchone()
    return row is not None
