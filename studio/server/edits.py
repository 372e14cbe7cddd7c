"""Drafts and submissions from the network, each applied once per client ``edit_uid``.

A client makes the uid when the person saves (before anything is sent) and sends it until
the server answers. The server looks the uid up, applies the edit and stores the answer
in one write transaction: a resent edit (the answer was lost on the way back) gets the
first answer and changes nothing. Refusals are answers too: a submission the per-pair
quota refused stays refused when resent, and the draft it carried is kept.

The rules themselves are the store's (``studio.captions.store``): the quota, one caption
per person and pair and one draft per person are checked inside the same transaction as
the submission. The server adds one: a pair other people hold up to its quota is refused
to someone without a lease on it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from studio.captions import store as caption_store
from studio.errors import ProjectBusyError, ProjectReadOnlyError, StudioError
from studio.server.errors import ApiError, error_body
from studio.server.tokens import Identity
from studio.store import Project
from studio.store.database import utc_now
from studio.store.repos import server as server_repo

KIND = server_repo.CAPTION


def _answer(caption: Any) -> dict[str, Any]:
    return {"pair_id": caption.pair_id, "caption_id": caption.id, "status": caption.status,
            "text": caption.text}


def _check_room(project: Project, who: Identity, pair_id: int) -> None:
    now = time.time()
    room = server_repo.pair_room(project, pair_id, who.name, now)
    if room is None:
        raise ApiError(404, f"Pair {pair_id} does not exist or cannot be captioned.")
    if server_repo.lease_on(project, KIND, pair_id, who.name, now) is not None:
        return
    if caption_store.own_caption(project, pair_id, who.name) is not None:
        return  # their own draft or caption: theirs to change
    live, others = room
    if live + others >= caption_store.load_policy(project).per_pair:
        raise ApiError(409, f"Pair {pair_id} is held by others; ask for your next item.")


def apply_once(
    project: Project,
    who: Identity,
    uid: str,
    work: Callable[[], dict[str, Any]],
    kind: str = "captions",
    what: str = "",
) -> tuple[int, dict[str, Any]]:
    """Run ``work`` once for ``uid`` and keep its answer; a repeated uid gets that answer.

    ``what`` names the edit (``draft 12``: the route and its item): a uid resent for
    another edit is refused, never answered with the first edit's answer."""
    with project.writing(kind):
        done = server_repo.applied_edit(project, uid)
        if done is not None:
            if done["holder"] != who.name:
                raise ApiError(409, "This edit_uid was already used by someone else; make a new one.")
            kept = json.loads(done["answer"])
            if isinstance(kept, dict) and set(kept) == {"edit", "answer"}:
                if kept["edit"] != what:
                    raise ApiError(409, f"This edit_uid was already used for another edit "
                                        f"({kept['edit']}); make a new one.")
                kept = kept["answer"]
            return int(done["status"]), kept
        try:
            status, answer = 200, work()
        except (ProjectBusyError, ProjectReadOnlyError):
            raise  # the database, not the edit: no answer kept, the client sends it again
        except StudioError as error:
            status, answer = 409, error_body(409, str(error))
        server_repo.record_edit(project, uid, who.name, status,
                                json.dumps({"edit": what, "answer": answer}), utc_now())
    return status, answer


def save_draft(
    project: Project, who: Identity, pair_id: int, uid: str, text: str
) -> tuple[int, dict[str, Any]]:
    def work() -> dict[str, Any]:
        _check_room(project, who, pair_id)
        return _answer(caption_store.save_draft(project, pair_id, who.name, text))

    return apply_once(project, who, uid, work, what=f"draft {pair_id}")


def submit(
    project: Project, who: Identity, pair_id: int, uid: str, text: str
) -> tuple[int, dict[str, Any]]:
    def work() -> dict[str, Any]:
        _check_room(project, who, pair_id)
        caption, _ = caption_store.submit_caption(project, pair_id, who.name, text)
        server_repo.release_item(project, KIND, pair_id, who.name)
        return _answer(caption)

    return apply_once(project, who, uid, work, what=f"submit {pair_id}")


def mark(
    project: Project, who: Identity, pair_id: int, uid: str, action: str, reason: str = ""
) -> tuple[int, dict[str, Any]]:
    """Skip or flag (with a reason) the pair, as the desktop does: it leaves this person's
    queue, a flag waits for a coordinator, and the lease on it ends."""

    def work() -> dict[str, Any]:
        if server_repo.pair_room(project, pair_id, who.name, time.time()) is None:
            raise ApiError(404, f"Pair {pair_id} does not exist or cannot be captioned.")
        if action == "flag":
            caption_store.mark_pair(project, pair_id, who.name, "flag", reason.strip())
        caption_store.mark_pair(project, pair_id, who.name, "skip")
        server_repo.release_item(project, KIND, pair_id, who.name)
        return {"pair_id": pair_id, "action": action}

    return apply_once(project, who, uid, work, what=f"{action} {pair_id}")


def undo(
    project: Project, who: Identity, pair_id: int, uid: str, text: str, status: str
) -> tuple[int, dict[str, Any]]:
    """Take back this person's last save of the pair: the caption returns to ``text``
    and ``status`` (a submitted caption may become a draft again, never the reverse)."""

    def work() -> dict[str, Any]:
        own = caption_store.own_caption(project, pair_id, who.name)
        if own is None:
            raise StudioError(f"You have no caption on pair {pair_id} to take back.")
        if status == "submitted" and own.status != "submitted":
            raise StudioError("Taking back a save never submits a caption.")
        before = {"text": text, "status": status}
        return _answer(caption_store.undo_save(project, own.id, who.name, before))

    return apply_once(project, who, uid, work, what=f"undo {pair_id}")
