"""Who is asking, and may they: bearer tokens, roles per endpoint, slowed failed logins.

Verifying a token costs one database read and a SHA-256 (scrypt, tens of milliseconds,
for tokens made before 2026-11-28: studio/server/tokens.py). A worker keeps the tokens it
verified in memory, keyed by their SHA-256, and still asks the database on
every request whether the token was revoked since: revoking takes effect at once on every
worker. The failed-login delay is per worker and per client address, grows with each
failure (0.1 s, 0.2 s, 0.4 s … at most ``MAX_DELAY``) and is forgotten after a success
or ``FORGET_AFTER`` quiet seconds: it slows guessing without locking anyone out.
"""

from __future__ import annotations

import hashlib
import threading
import time

from studio.server.tokens import Identity
from studio.store.token_watch import Generation
from studio.timeouts import login_delay_max_s

# Which roles may call which group of endpoints.
PERMISSIONS: dict[str, frozenset[str]] = {
    "captions": frozenset({"annotator", "reviewer", "coordinator"}),
    "leases": frozenset({"annotator", "reviewer", "coordinator"}),
    "reviews": frozenset({"reviewer", "coordinator"}),
    "attributes": frozenset({"annotator", "coordinator"}),
    "images": frozenset({"annotator", "reviewer", "rater", "coordinator"}),
    "ratings": frozenset({"rater"}),
    "progress": frozenset({"coordinator"}),
    "whoami": frozenset({"annotator", "reviewer", "rater", "coordinator"}),
}
MAX_DELAY = login_delay_max_s()  # 2 s (studio/timeouts.py)
FORGET_AFTER = 600.0
_MAX_CLIENTS = 10_000


def allowed(identity: Identity, group: str) -> bool:
    return identity.role in PERMISSIONS[group]


def delay_for(failures: int) -> float:
    """Seconds to wait before answering the ``failures``-th failed login in a row."""
    if failures <= 0:
        return 0.0
    return min(MAX_DELAY, 0.1 * 2 ** (failures - 1))


class FailedLogins:
    """Per-client failure counts (memory of one worker; bounded in size)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: dict[str, tuple[int, float]] = {}

    def fail(self, client: str) -> float:
        """Count a failure; the delay to wait before answering it."""
        now = time.monotonic()
        with self._lock:
            count, last = self._seen.get(client, (0, now))
            count = 1 if now - last > FORGET_AFTER else count + 1
            if len(self._seen) >= _MAX_CLIENTS and client not in self._seen:
                self._seen.pop(next(iter(self._seen)))
            self._seen[client] = (count, now)
        return delay_for(count)

    def succeed(self, client: str) -> None:
        with self._lock:
            self._seen.pop(client, None)


class TokenCache:
    """Tokens this worker verified: SHA-256 of the token → identity and the generation of
    the worker's ``TokenWatch`` it was verified in (trusted while that still holds)."""

    def __init__(self, size: int = 1000) -> None:
        self._lock = threading.Lock()
        self._known: dict[str, tuple[Identity, Generation]] = {}
        self._size = size

    @staticmethod
    def key(token: str) -> str:
        return hashlib.sha256(token.encode()).hexdigest()

    def get(self, token: str) -> tuple[Identity, Generation] | None:
        with self._lock:
            return self._known.get(self.key(token))

    def put(self, token: str, identity: Identity, generation: Generation = None) -> None:
        with self._lock:
            if len(self._known) >= self._size:
                self._known.pop(next(iter(self._known)))
            self._known[self.key(token)] = (identity, generation)

    def forget(self, token: str) -> None:
        with self._lock:
            self._known.pop(self.key(token), None)
