"""A Qt-free client of the team server whose edits survive a dropped network.

``save_draft`` and ``submit`` first put the edit in the outbox (``studio.store.outbox``)
under a fresh ``edit_uid``, then try to send everything waiting. An edit leaves the
outbox only with the server's answer: a refusal (4xx: the quota was full, the text was
refused) is an answer too, and resending would not change it. No answer (no network,
the server stopped, a 5xx, a token the server does not know at the moment) keeps it
waiting for the next ``flush``. The server applies each uid once, so an edit whose
answer was lost on the way back is simply sent again.

Standard library only (``urllib``): the desktop studio and a script use it alike.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import json
import secrets
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from studio.errors import StudioError
from studio.settings import data_dir
from studio.store import outbox

# Answers worth sending again later: the server (or the way to it) failed, or did not
# know the token just now (a coordinator may issue a new one); the edit stays.
_RETRY = {401, 408, 429}


class Offline(StudioError):
    """The server did not answer (no network, stopped, or failing)."""


class Client:
    def __init__(self, base_url: str, token: str, outbox_path: Path | None = None,
                 timeout: float = 10.0) -> None:
        self.base = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout
        if outbox_path is None:
            key = hashlib.sha256(self.base.encode()).hexdigest()[:16]
            outbox_path = data_dir() / "outbox" / f"{key}.sqlite"
        self.outbox_path = outbox_path
        self._outbox: outbox.Outbox = outbox.open_outbox(outbox_path)

    def close(self) -> None:
        self._outbox.close()

    # -- the wire ---------------------------------------------------------------------

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        """One request: ``(status, answer)`` for any answer; ``Offline`` for none."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.token}")
        request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                return answer.status, json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as error:
            try:
                payload = json.loads(error.read() or b"null")
            except ValueError:
                payload = {"error": error.reason}
            if error.code >= 500:
                raise Offline(f"The server failed ({error.code}); your edits wait.") from None
            return error.code, payload
        except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as error:
            # HTTPException: the server went away in the middle of its answer
            raise Offline(f"The server does not answer ({error}); your edits wait.") from None

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

    # -- edits (outbox first) ----------------------------------------------------------

    def save_draft(self, pair_id: int, text: str, send: bool = True) -> str:
        return self._edit("PUT", f"/v1/captions/{int(pair_id)}/draft", text, send)

    def submit(self, pair_id: int, text: str, send: bool = True) -> str:
        return self._edit("POST", f"/v1/captions/{int(pair_id)}/submit", text, send)

    def _edit(self, method: str, path: str, text: str, send: bool) -> str:
        uid = secrets.token_hex(16)
        outbox.add(self._outbox, self.base, uid, method, path, {"edit_uid": uid, "text": text})
        if send:
            with contextlib.suppress(Offline):  # kept; ``waiting()`` tells the person
                self.flush()
        return uid

    def flush(self) -> int:
        """Send what waits, oldest first; how many got an answer. Raises ``Offline``
        (keeping the rest) at the first edit that gets none."""
        done = 0
        for edit in outbox.waiting(self._outbox, self.base):
            status, answer = self.call(edit["method"], edit["path"], edit["body"])
            if status in _RETRY:
                raise Offline(f"The server refused the token just now ({status}); edits wait.")
            outbox.answered(self._outbox, edit["uid"], status, answer)
            done += 1
        return done

    def waiting(self) -> int:
        """Edits not yet answered (the status bar's 'offline — 3 edits waiting')."""
        return outbox.waiting_count(self._outbox, self.base)

    def answer(self, uid: str) -> tuple[int, Any] | None:
        """The server's answer to an edit, once it came."""
        return outbox.answer_of(self._outbox, uid)

    # -- for the desktop studio: any edit through the outbox, ratings, progress -----------

    def send_edit(self, method: str, path: str, body: dict[str, Any], send: bool = True) -> str:
        """Any edit the server applies once by ``edit_uid`` (scores, decisions), outbox
        first like ``save_draft``; returns its uid."""
        uid = secrets.token_hex(16)
        outbox.add(self._outbox, self.base, uid, method, path, {**body, "edit_uid": uid})
        if send:
            with contextlib.suppress(Offline):
                self.flush()
        return uid

    def next_rating(self, sample: str = "main") -> dict[str, Any] | None:
        """The rater's next turn, blind (waiting scores are sent first)."""
        self.flush()
        item = self._ok("POST", "/v1/ratings/next", {"sample": sample})["item"]
        return None if item is None else dict(item)

    def save_scores(self, assignment_id: int, scores: dict[str, int | None],
                    note: str | None = None, send: bool = True) -> str:
        return self.send_edit("PUT", f"/v1/ratings/{int(assignment_id)}/scores",
                              {"scores": scores, "note": note}, send)

    def set_rating_status(self, assignment_id: int, status: str, note: str | None = None,
                          send: bool = True) -> str:
        return self.send_edit("POST", f"/v1/ratings/{int(assignment_id)}/status",
                              {"status": status, "note": note}, send)

    def progress(self) -> dict[str, Any]:
        """The coordinator's live figures (``GET /v1/progress``)."""
        return dict(self._ok("GET", "/v1/progress"))
