"""Captions handed out with leases: "give me my next pair", renew, release on skip.

The queue is the desktop's (``studio.captions.queue``'s conditions, in
``studio.store.repos.server``) with one rule added: a pair's live captions and the other
people's unexpired leases together stay under the per-pair quota, so two people never
hold one pair beyond it. Taking, renewing and releasing run in one write transaction
each (``project.change``): workers on several machines cannot hand out one slot twice.
An expired lease is simply ignored by the queries and deleted at the next take.
"""

from __future__ import annotations

import time
from typing import Any

from studio.captions import store as caption_store
from studio.server.errors import ApiError
from studio.server.tokens import Identity
from studio.store import Project
from studio.store.database import utc_now
from studio.store.repos import server as server_repo

KIND = server_repo.CAPTION


def _item(project: Project, lease: dict[str, Any], author: str) -> dict[str, Any]:
    pair = server_repo.pair_images(project, int(lease["item_id"]))
    own = caption_store.own_caption(project, int(lease["item_id"]), author)
    return {
        "lease_id": int(lease["id"]),
        "expires_at": float(lease["expires_at"]),
        "pair_id": int(lease["item_id"]),
        "reference_id": pair["reference_id"] if pair else None,
        "target_id": pair["target_id"] if pair else None,
        "category": pair["category"] if pair else "",
        "text": own.text if own else "",
        "status": own.status if own else None,
    }


def take_next(project: Project, who: Identity, lease_seconds: float) -> dict[str, Any] | None:
    """The pair this person holds, or the next one with a new lease; None: nothing left."""
    policy = caption_store.load_policy(project)
    now = time.time()
    with project.change(who.name, "lease", "server_lease", kinds=()) as record:
        server_repo.drop_expired(project, now)
        held = server_repo.held_lease(project, KIND, who.name, now)
        if held is not None:
            server_repo.renew_lease(project, int(held["id"]), now + lease_seconds)
            record["nothing_changed"] = True
            held["expires_at"] = now + lease_seconds
            return _item(project, held, who.name)
        pair_id = server_repo.next_pair_to_lease(
            project, who.name, policy.per_pair, policy.distinct_authors, now
        )
        if pair_id is None:
            record["nothing_changed"] = True
            return None
        lease_id = server_repo.add_lease(project, KIND, pair_id, who.name, now + lease_seconds,
                                         utc_now())
        record["entity_id"] = lease_id
        record["after"] = {"pair_id": pair_id}
        lease = server_repo.lease_row(project, lease_id)
        assert lease is not None
        return _item(project, lease, who.name)


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
    """Skip: the lease ends and the pair leaves this person's queue (as Skip on the desktop)."""
    now = time.time()
    with project.writing("captions"):
        lease = _own_lease(project, who, lease_id, now)
        with project.change(who.name, "release", "server_lease", lease_id, kinds=()) as record:
            server_repo.release_lease(project, lease_id)
            record["after"] = {"pair_id": int(lease["item_id"])}
        caption_store.mark_pair(project, int(lease["item_id"]), who.name, "skip")
    return {"released": lease_id, "pair_id": int(lease["item_id"])}
