"""Items handed out with leases: "give me my next pair", renew, release on skip.

``take`` is the one way a lease is made, for every kind (pairs to caption here, captions
to review in ``reviews``, images to decide in ``attribute_queue``); renewing and
releasing work on any kind.

The queue is the desktop's (``studio.captions.queue``'s conditions, in
``studio.store.repos.server``) with one rule added: a pair's live captions and the other
people's unexpired leases together stay under the per-pair quota, so two people never
hold one pair beyond it. Taking, renewing and releasing run in one write transaction
each (``project.change``): workers on several machines cannot hand out one slot twice.
An expired lease is simply ignored by the queries and deleted at the next take.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from studio.captions import queue as caption_queue
from studio.captions import store as caption_store
from studio.server.errors import ApiError
from studio.server.tokens import Identity
from studio.store import Project
from studio.store.database import utc_now
from studio.store.repos import captions as captions_repo
from studio.store.repos import server as server_repo
from studio.store.repos import server_queues as queues_repo

KIND = server_repo.CAPTION
# What each kind of lease holds, as the answers name it.
ITEM_NAMES = {server_repo.CAPTION: "pair_id", server_repo.REVIEW: "caption_id",
              server_repo.ATTRIBUTE: "image_id"}


def _rejected(rows: list[dict[str, Any]], author: str) -> dict[str, Any] | None:
    """The author's last rejected caption among the pair's ``rows``, with the reviewer's
    reason: a pair handed back after a rejection says why (as the desktop writer does)."""
    rejected = [row for row in rows if row["author"] == author and row["status"] == "rejected"]
    if not rejected:
        return None
    last = rejected[-1]
    return {"text": last["text"], "reason": last["reject_reason"] or "",
            "reviewer": last["reviewer"]}


def _item(project: Project, lease: dict[str, Any], author: str) -> dict[str, Any]:
    pair = server_repo.pair_images(project, int(lease["item_id"]))
    rows = captions_repo.pair_caption_rows(project, int(lease["item_id"]))  # one read
    own = captions_repo.own_in(rows, author)
    return {
        "lease_id": int(lease["id"]),
        "expires_at": float(lease["expires_at"]),
        "pair_id": int(lease["item_id"]),
        "reference_id": pair["reference_id"] if pair else None,
        "target_id": pair["target_id"] if pair else None,
        "category": pair["category"] if pair else "",
        "text": own["text"] if own else "",
        "status": own["status"] if own else None,
        "rejected": _rejected(rows, author),
    }


def take_next(project: Project, who: Identity, lease_seconds: float) -> dict[str, Any] | None:
    """The pair this person holds, or the next one with a new lease; None: nothing left."""
    policy = caption_store.load_policy(project)

    def pick(now: float) -> tuple[int, str] | None:
        pair_id = server_repo.next_pair_to_lease(
            project, who.name, policy.per_pair, policy.distinct_authors, now
        )
        return None if pair_id is None else (pair_id, "")

    return take(project, who, KIND, lease_seconds, pick,
                lambda lease: _item(project, lease, who.name))



def hold(project: Project, who: Identity, pair_id: int, lease_seconds: float) -> dict[str, Any]:
    """Hold this pair (Previous/Next, a save taken back): the caption lease held on
    another pair is let go, not skipped (it comes back in the queue), and this pair is
    leased if the person wrote on it or it has room beside the others' leases."""
    now = time.time()
    per_pair = caption_store.load_policy(project).per_pair
    with project.change(who.name, "lease", "server_lease", kinds=()) as record:
        server_repo.drop_expired(project, now)
        room = server_repo.pair_room(project, pair_id, who.name, now)
        if room is None:
            raise ApiError(404, f"Pair {pair_id} does not exist or cannot be captioned.")
        held = server_repo.held_lease(project, KIND, who.name, now)
        live, others = room
        if ((held is None or int(held["item_id"]) != pair_id)
                and caption_store.own_caption(project, pair_id, who.name) is None
                and live + others >= per_pair):
            raise ApiError(409, f"Pair {pair_id} has its captions or is held by others.")
        lease = take_lease(project, who, KIND, pair_id, "", held, now + lease_seconds, record)
    return _item(project, lease, who.name)


def step(project: Project, who: Identity, here: int, forward: bool,
         lease_seconds: float) -> dict[str, Any] | None:
    """Previous or next pair from ``here`` among those this person wrote or may write
    (the desktop's ``step_writing``), held as ``hold`` holds it; None: no neighbour."""
    policy = caption_store.load_policy(project)
    neighbour = caption_queue.step_writing(project, who.name, policy, here, forward)
    return None if neighbour is None else hold(project, who, neighbour, lease_seconds)


def own_progress(project: Project, who: Identity) -> dict[str, int]:
    """This person's figures: pairs captioned (submitted or accepted) and pairs left."""
    policy = caption_store.load_policy(project)
    done = caption_queue.written_by(project, who.name)
    remaining = caption_queue.remaining_for(project, who.name, policy)
    return {"done": done, "remaining": remaining, "total": done + remaining}


Pick = Callable[[float], tuple[int, str] | None]


def take(
    project: Project,
    who: Identity,
    kind: str,
    lease_seconds: float,
    pick: Pick,
    describe: Callable[[dict[str, Any]], dict[str, Any]],
    still_open: Callable[[dict[str, Any]], bool] | None = None,
) -> dict[str, Any] | None:
    """The item of ``kind`` this person holds (renewed), or ``pick``'s next one with a new
    lease, in one write transaction; None: nothing left. A held lease whose item no longer
    needs work (``still_open`` says so: reviewed meanwhile by the desktop) is let go. The
    item is described (``describe``) once the lease is committed, outside the transaction."""
    now = time.time()
    with project.change(who.name, "lease", "server_lease", kinds=()) as record:
        server_repo.drop_expired(project, now)
        held = server_repo.held_lease(project, kind, who.name, now)
        if held is not None and still_open is not None and not still_open(held):
            server_repo.release_lease(project, int(held["id"]))
            held = None
        if held is not None:
            item_id, item_key = int(held["item_id"]), str(held.get("item_key") or "")
        else:
            found = pick(now)
            if found is None:
                record["nothing_changed"] = True
                return None
            item_id, item_key = found
        lease = take_lease(project, who, kind, item_id, item_key, held, now + lease_seconds,
                           record)
    return describe(lease)  # read after the commit: the transaction holds only the lease


def take_lease(
    project: Project,
    who: Identity,
    kind: str,
    item_id: int,
    item_key: str,
    held: dict[str, Any] | None,
    expires_at: float,
    record: dict[str, Any],
) -> dict[str, Any]:
    """Lease the item to this person until ``expires_at``, inside the write transaction
    whose audit ``record`` is given: the lease they hold of this kind (``held``) is renewed
    when it is this item's, else let go (not skipped: it comes back in the queue) and a new
    one made. The lease row."""
    if held is not None and int(held["item_id"]) == item_id:
        server_repo.renew_lease(project, int(held["id"]), expires_at)
        record["nothing_changed"] = True
        return {**held, "expires_at": expires_at}
    if held is not None:
        server_repo.release_lease(project, int(held["id"]))
    lease_id = server_repo.add_lease(project, kind, item_id, who.name, expires_at, utc_now(),
                                     item_key)
    record["entity_id"] = lease_id
    record["after"] = {ITEM_NAMES[kind]: item_key or item_id}
    # The row just written, as ``lease_row`` reads it (not read back: one statement less).
    return {"id": lease_id, "kind": kind, "item_id": item_id, "item_key": item_key,
            "holder": who.name, "expires_at": expires_at}


def _own_lease(project: Project, who: Identity, lease_id: int, now: float) -> dict[str, Any]:
    lease = server_repo.lease_row(project, lease_id)
    if lease is None:
        raise ApiError(404, f"Lease {lease_id} does not exist (released, or it expired).")
    if lease["holder"] != who.name:
        raise ApiError(403, f"Lease {lease_id} belongs to someone else.")
    if float(lease["expires_at"]) <= now:
        raise ApiError(410, f"Lease {lease_id} expired; ask for your next item.")
    return lease


def renew(project: Project, who: Identity, lease_id: int, lease_seconds: float) -> dict[str, Any]:
    now = time.time()
    with project.change(who.name, "renew", "server_lease", lease_id, kinds=()) as record:
        _own_lease(project, who, lease_id, now)
        server_repo.renew_lease(project, lease_id, now + lease_seconds)
        record["nothing_changed"] = True  # a heartbeat, not history
    return {"lease_id": lease_id, "expires_at": now + lease_seconds}


def release(project: Project, who: Identity, lease_id: int) -> dict[str, Any]:
    """Skip: the lease ends and the item is left to others (as Skip on the desktop): a
    pair is marked skipped and leaves this person's queue; a caption to review gets a skip
    row of its own in the audit log and comes back to this reviewer after the others; so does
    an image to decide."""
    now = time.time()
    with project.writing("captions", "labels"):
        lease = _own_lease(project, who, lease_id, now)
        kind, item = str(lease["kind"]), _lease_item(lease)
        with project.change(who.name, "release", "server_lease", lease_id, kinds=()) as record:
            server_repo.release_lease(project, lease_id)
            record["after"] = {ITEM_NAMES.get(kind, "item"): item}
        if kind == KIND:
            caption_store.mark_pair(project, int(item), who.name, "skip")
        elif kind == server_repo.REVIEW:
            with project.change(who.name, queues_repo.REVIEW_SKIP, "caption", item):
                pass
        elif kind == server_repo.ATTRIBUTE:
            with project.change(who.name, queues_repo.ATTRIBUTE_SKIP, "image_attributes", item):
                pass
    return {"released": lease_id, "kind": kind, ITEM_NAMES.get(kind, "item"): item}


def _lease_item(lease: dict[str, Any]) -> int | str:
    return str(lease["item_key"]) if lease.get("item_key") else int(lease["item_id"])
