"""A Qt-free client of the team server whose edits survive a dropped network.

``save_draft`` and ``submit`` first put the edit in the outbox (``studio.store.outbox``)
under a fresh ``edit_uid``, then try to send everything waiting. An edit leaves the
outbox only with the server's answer: a refusal (4xx: the quota was full, the text was
refused) is an answer too, and resending would not change it. No answer (no network,
the server stopped, a 5xx, a token the server does not know at the moment) keeps it
waiting for the next ``flush``. The server applies each uid once, so an edit whose
answer was lost on the way back is simply sent again.

Standard library only (``http.client``, one kept-alive connection per thread: ``wire``):
the desktop studio and a script use it alike.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import json
import secrets
import threading
import urllib.parse
from pathlib import Path
from typing import Any

from studio.errors import StudioError
from studio.server.errors import message_of
from studio.server.wire import Wire
from studio.settings import data_dir
from studio.store import outbox
from studio.timeouts import client_timeout_s

# Answers worth sending again later: the server (or the way to it) failed, or did not
# know the token just now (a coordinator may issue a new one); the edit stays.
_RETRY = {401, 408, 429}


def outbox_for(url: str, token: str) -> Path:
    """One outbox per server and person, under the user's data folder: edits wait under
    the token that made them, so a second token on the same machine (a colleague at the
    same desk, two scripts) never sends the first person's waiting edits in its own name.
    The file is named by a hash of both; the token itself is written nowhere."""
    key = hashlib.sha256(f"{url.rstrip('/')}\n{token}".encode()).hexdigest()[:16]
    return data_dir() / "outbox" / f"{key}.sqlite"


def _refusal(payload: Any) -> Any:
    """A refusal as the client's callers read it: ``{"error": message, "code": code}``
    (the server sends ``{"error": {"code", "message"}}``; a server of an earlier version
    sent the message alone)."""
    if isinstance(payload, dict) and isinstance(payload.get("error"), dict):
        detail = payload["error"]
        return {"error": message_of(payload) or "", "code": detail.get("code")}
    return payload


class Offline(StudioError):
    """The server did not answer (no network, stopped, or failing)."""


class Client:
    def __init__(self, base_url: str, token: str, outbox_path: Path | None = None,
                 timeout: float | None = None, picture_cache: Path | None = None) -> None:
        self.base = base_url.rstrip("/")
        self.token = token
        self.timeout = client_timeout_s() if timeout is None else timeout
        self._wire = Wire(self.base, self.timeout)  # kept-alive connections, one per thread
        if outbox_path is None:
            outbox_path = outbox_for(self.base, token)
        self.outbox_path = outbox_path
        # Pictures: one file per (server, image, size) and its ETag, under the data folder.
        self.picture_cache = picture_cache or data_dir() / "pictures"
        self._outbox: outbox.Outbox = outbox.open_outbox(outbox_path)
        # The client may be used from several threads (the studio's UI saves, its IO lane
        # sends): ``_box`` guards each outbox statement, ``_sending`` one flush at a time,
        # so saving an edit never waits for the network.
        self._box = threading.Lock()
        self._sending = threading.Lock()

    def close(self) -> None:
        self._wire.close()
        with self._box:
            self._outbox.close()

    # -- the wire ---------------------------------------------------------------------

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        """One request: ``(status, answer)`` for any answer; ``Offline`` for none."""
        data = None if body is None else json.dumps(body).encode()
        headers = {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"}
        try:
            status, where, content = self._wire.send(method, path, data, headers)
        except (OSError, http.client.HTTPException) as error:
            # HTTPException: the server went away in the middle of its answer
            raise Offline(f"The server does not answer ({error}); your edits wait.") from None
        if status >= 500:
            raise Offline(f"The server failed ({status}); your edits wait.")
        if 300 <= status < 400:  # not an answer about the request: a proxy sends it elsewhere
            raise Offline(f"The server's address sends requests elsewhere ({status} to "
                          f"{where.get('Location')}); check the address. Your edits wait.")
        try:
            payload = json.loads(content or b"null")
        except ValueError:
            if status < 400:
                raise Offline("The server's answer was not JSON; your edits wait.") from None
            payload = {"error": http.client.responses.get(status, str(status))}
        if status >= 400:
            return status, _refusal(payload)
        return status, payload

    def _ok(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        status, answer = self.call(method, path, body)
        if status >= 400:
            raise StudioError(answer.get("error") if isinstance(answer, dict) else str(answer))
        return answer

    # -- reading and leases (need the server) --------------------------------------------

    def whoami(self) -> dict[str, Any]:
        return dict(self._ok("GET", "/v1/whoami"))

    def next_item(self) -> dict[str, Any] | None:
        """The pair held, or the next; waiting edits are sent first, so the server does not
        hand back a pair whose submission is still in the outbox (``Offline`` if it cannot)."""
        self.flush()
        item = self._ok("POST", "/v1/captions/next", {})["item"]
        return None if item is None else dict(item)

    def renew(self, lease_id: int) -> dict[str, Any]:
        return dict(self._ok("POST", f"/v1/leases/{lease_id}/renew", {}))

    def skip(self, lease_id: int) -> dict[str, Any]:
        return dict(self._ok("DELETE", f"/v1/leases/{lease_id}"))

    def hold(self, pair_id: int) -> dict[str, Any] | None:
        """Hold this pair (the one held before is let go, not skipped); waiting edits
        are sent first."""
        self.flush()
        item = self._ok("POST", f"/v1/captions/{int(pair_id)}/hold", {})["item"]
        return None if item is None else dict(item)

    def step(self, pair_id: int, forward: bool) -> dict[str, Any] | None:
        """The previous or next pair from ``pair_id`` among those this person wrote or may
        write, held; None when there is none that way. Waiting edits are sent first."""
        self.flush()
        body = {"pair_id": int(pair_id), "forward": bool(forward)}
        item = self._ok("POST", "/v1/captions/step", body)["item"]
        return None if item is None else dict(item)

    def own_progress(self) -> dict[str, int]:
        """This person's caption figures: ``{done, remaining, total}``."""
        return dict(self._ok("GET", "/v1/captions/progress"))

    # -- edits (outbox first) ----------------------------------------------------------

    def save_draft(self, pair_id: int, text: str, send: bool = True) -> str:
        return self._edit("PUT", f"/v1/captions/{int(pair_id)}/draft", text, send)

    def submit(self, pair_id: int, text: str, send: bool = True) -> str:
        return self._edit("POST", f"/v1/captions/{int(pair_id)}/submit", text, send)

    def skip_pair(self, pair_id: int, send: bool = True) -> str:
        """Skip the pair through the outbox (it can wait there while offline)."""
        return self.send_edit("POST", f"/v1/captions/{int(pair_id)}/skip", {}, send)

    def flag_pair(self, pair_id: int, reason: str = "", send: bool = True) -> str:
        """Flag the pair for a coordinator, with a reason, through the outbox."""
        return self.send_edit("POST", f"/v1/captions/{int(pair_id)}/flag",
                              {"reason": reason}, send)

    def undo_save(self, pair_id: int, text: str, status: str, send: bool = True) -> str:
        """Take back the last save of the pair: its caption returns to ``text`` and
        ``status`` (draft or submitted), through the outbox."""
        return self.send_edit("POST", f"/v1/captions/{int(pair_id)}/undo",
                              {"text": text, "status": status}, send)

    def _edit(self, method: str, path: str, text: str, send: bool) -> str:
        return self.send_edit(method, path, {"text": text}, send)

    def send_edit(self, method: str, path: str, body: dict[str, Any], send: bool = True) -> str:
        """Any edit the server applies once by ``edit_uid`` (drafts, decisions, scores):
        kept in the outbox under a fresh uid first, then what waits is sent; its uid."""
        uid = secrets.token_hex(16)
        with self._box:
            outbox.add(self._outbox, self.base, uid, method, path, {**body, "edit_uid": uid})
        if send:
            with contextlib.suppress(Offline):  # kept; ``waiting()`` tells the person
                self.flush()
        return uid

    # -- reviewing (role reviewer or coordinator) --------------------------------------

    def next_review(self) -> dict[str, Any] | None:
        """The caption held for review, or the next one someone else wrote, with a lease:
        ``{lease_id, expires_at, caption_id, pair_id, reference_id, target_id, category,
        text, status}``; None when nothing waits. Waiting edits are sent first."""
        self.flush()
        item = self._ok("POST", "/v1/reviews/next", {})["item"]
        return None if item is None else dict(item)

    def decide(self, caption_id: int, decision: str, reason: str | None = None,
               text: str | None = None, send: bool = True) -> str:
        """Accept or reject a caption (``decision``: accept | reject; a reject needs a
        ``reason``; ``text`` is the reviewer's edited caption). Through the outbox: applied
        exactly once; the answer (``answer(uid)``) holds the caption or the refusal."""
        fields: dict[str, Any] = {"decision": decision}
        if reason is not None:
            fields["reason"] = reason
        if text is not None:
            fields["text"] = text
        return self.send_edit("POST", f"/v1/reviews/{int(caption_id)}/decision", fields, send)

    def hold_review(self, caption_id: int) -> dict[str, Any] | None:
        """Hold this caption for review (the one held before is let go, not skipped);
        waiting edits are sent first."""
        self.flush()
        item = self._ok("POST", f"/v1/reviews/{int(caption_id)}/hold", {})["item"]
        return None if item is None else dict(item)

    def step_review(self, caption_id: int, forward: bool) -> dict[str, Any] | None:
        """The previous or next caption from ``caption_id`` among those to review or
        reviewed by this person, held; None when there is none that way."""
        self.flush()
        body = {"caption_id": int(caption_id), "forward": bool(forward)}
        item = self._ok("POST", "/v1/reviews/step", body)["item"]
        return None if item is None else dict(item)

    def undo_decision(self, caption_id: int, text: str, status: str = "submitted",
                      reason: str | None = None, send: bool = True) -> str:
        """Take back this reviewer's decision: the caption returns to ``text`` and
        ``status`` (with its reject ``reason``), through the outbox."""
        body: dict[str, Any] = {"text": text, "status": status}
        if reason is not None:
            body["reason"] = reason
        return self.send_edit("POST", f"/v1/reviews/{int(caption_id)}/undo", body, send)

    def review_progress(self) -> dict[str, int]:
        """This reviewer's figures: ``{done, remaining, total}``."""
        return dict(self._ok("GET", "/v1/reviews/progress"))

    # -- attribute decisions (role annotator or coordinator) ---------------------------

    def next_attributes(self) -> dict[str, Any] | None:
        """The image held, or the next with undecided suggestions, with a lease:
        ``{lease_id, expires_at, image_id, attributes: [{attribute, type, status,
        confidence}]}``; None when nothing waits. Waiting edits are sent first."""
        self.flush()
        item = self._ok("POST", "/v1/attributes/next", {})["item"]
        return None if item is None else dict(item)

    def attribute_progress(self) -> dict[str, int]:
        """This person's attribute figures: ``{done, remaining, total}``; waiting edits
        are sent first."""
        self.flush()
        return dict(self._ok("GET", "/v1/attributes/progress"))

    def decide_attributes(self, image_id: str, decisions: list[dict[str, Any]] | dict[str, str],
                          send: bool = True) -> str:
        """Accept or reject attributes of one image: ``[{"attribute": "floral", "status":
        "accepted"}, …]`` or ``{"floral": "accepted", …}``. Through the outbox: applied
        exactly once, all decisions in one transaction."""
        if isinstance(decisions, dict):
            decisions = [{"attribute": name, "status": status}
                         for name, status in decisions.items()]
        path = f"/v1/attributes/{urllib.parse.quote(image_id, safe='')}/decisions"
        return self.send_edit("POST", path, {"decisions": list(decisions)}, send)

    # -- rating (role rater; blind) ----------------------------------------------------

    def rating_samples(self) -> list[dict[str, Any]]:
        """The samples in which this rater has a queue: ``[{name, total, pending, done,
        skipped, flagged}]``, in name order."""
        return [dict(s) for s in self._ok("GET", "/v1/ratings/samples")["samples"]]

    def next_rating(self, sample: str = "main") -> dict[str, Any] | None:
        """The rater's next pending item of ``sample``, blind: ``{assignment_id, position,
        queue_size, history, turn, scores, note, status}``; None when all are rated."""
        self.flush()
        item = self._ok("POST", "/v1/ratings/next", {"sample": sample})["item"]
        return None if item is None else dict(item)

    def save_scores(self, assignment_id: int, scores: dict[str, int | None],
                    note: str | None = None, send: bool = True) -> str:
        """Save scores (merged with those saved before) through the outbox, applied once."""
        fields: dict[str, Any] = {"scores": scores}
        if note is not None:
            fields["note"] = note
        return self.send_edit("PUT", f"/v1/ratings/{int(assignment_id)}/scores", fields, send)

    def set_rating_status(self, assignment_id: int, status: str, note: str | None = None,
                          send: bool = True) -> str:
        """Finish (``done`` needs all five scores), skip, flag or reopen an item; outbox."""
        fields: dict[str, Any] = {"status": status}
        if note is not None:
            fields["note"] = note
        return self.send_edit("POST", f"/v1/ratings/{int(assignment_id)}/status", fields, send)

    def progress(self) -> dict[str, Any]:
        """The coordinator's live figures (``GET /v1/progress``)."""
        return dict(self._ok("GET", "/v1/progress"))

    # -- pictures (cached on disk) -----------------------------------------------------

    def picture(self, image_id: str, size: int | None = None) -> bytes:
        """The image's picture (a JPEG thumbnail of ``size`` pixels, or the file), from
        the disk cache when the server says it did not change (ETag); the cached copy when
        the server does not answer; ``Offline`` when it does not and nothing is cached;
        ``StudioError`` with the server's message when it refuses."""
        cached, tag = self._cache_paths(image_id, size)
        query = f"?size={int(size)}" if size is not None else ""
        headers = {"Authorization": f"Bearer {self.token}"}
        if cached.is_file() and tag.is_file():
            headers["If-None-Match"] = tag.read_text()
        try:
            status, answer, body = self._wire.send(
                "GET", f"/v1/images/{urllib.parse.quote(image_id, safe='')}{query}", None, headers)
        except (OSError, http.client.HTTPException) as error:
            return self._cached_or_offline(cached, str(error))
        if status == 304 and cached.is_file():
            return cached.read_bytes()
        if status >= 500:
            return self._cached_or_offline(cached, f"the server failed ({status})")
        if 300 <= status < 400:
            return self._cached_or_offline(cached, f"the server's address sends requests "
                                                   f"elsewhere ({status} to {answer.get('Location')})")
        if status >= 400:
            try:
                message = message_of(json.loads(body or b"null"))
            except ValueError:
                message = None
            refused = f"The server refused the picture ({status})."
            raise StudioError(message or refused) from None
        etag = answer.get("ETag")
        cached.parent.mkdir(parents=True, exist_ok=True)
        temporary = cached.with_suffix(f".{secrets.token_hex(4)}.part")
        temporary.write_bytes(body)
        temporary.replace(cached)
        if etag:
            tag.write_text(etag)
        else:
            tag.unlink(missing_ok=True)
        return body

    def _cache_paths(self, image_id: str, size: int | None) -> tuple[Path, Path]:
        key = hashlib.sha256(f"{self.base}\0{image_id}\0{size}".encode()).hexdigest()
        folder = self.picture_cache / key[:2]
        return folder / f"{key}.img", folder / f"{key}.etag"

    @staticmethod
    def _cached_or_offline(cached: Path, why: str) -> bytes:
        if cached.is_file():
            return cached.read_bytes()
        raise Offline(f"The server does not answer ({why}) and this picture is not cached.")

    # -- the outbox --------------------------------------------------------------------

    def flush(self) -> int:
        """Send what waits, oldest first; how many got an answer. Raises ``Offline``
        (keeping the rest) at the first edit that gets none."""
        done = 0
        with self._sending:  # one sender at a time: edits go out in the order made
            with self._box:
                edits = outbox.waiting(self._outbox, self.base)
            for edit in edits:
                status, answer = self.call(edit["method"], edit["path"], edit["body"])
                if status in _RETRY:
                    raise Offline(
                        f"The server refused the token just now ({status}); edits wait.")
                with self._box:
                    outbox.answered(self._outbox, edit["uid"], status, answer)
                done += 1
        return done

    def waiting(self) -> int:
        """Edits not yet answered (the status bar's 'offline — 3 edits waiting')."""
        with self._box:
            return outbox.waiting_count(self._outbox, self.base)

    def answer(self, uid: str) -> tuple[int, Any] | None:
        """The server's answer to an edit, once it came."""
        with self._box:
            return outbox.answer_of(self._outbox, uid)
