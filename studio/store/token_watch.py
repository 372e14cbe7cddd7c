"""When a team server's worker may trust a token it verified earlier without asking again.

Asking the database "revoked since?" at every request was one statement of every request:
about a seventh of a worker's CPU with one client at a time (py-spy), 5-8 % of it under
the 100-person bench. On PostgreSQL a worker instead hears revocations:
``revoke_tokens`` sends a notification on ``TOKENS_CHANNEL`` with its commit, and this
watch counts *generations*: each revocation heard, and each time its listening connection
is lost or made again, starts a new one. A token verified in generation *g* is trusted
while the generation is still *g*; otherwise (and whenever the watch is not listening,
and on SQLite, where the check is a local read) it is checked again.

What a revocation may still let through is what the per-request check let through: the
requests under way when it commits, and those the worker answers in the milliseconds
before the notification reaches it (or before it notices its connection was lost).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from studio.store.pg_events import ChannelListener
    from studio.store.project import Project

Generation = int | None  # None: not listening, nothing may be trusted


class TokenWatch:
    """One per worker (per open project). Read ``generation()`` before reading a token from
    the database; a token verified then is trusted while ``generation()`` answers the same
    number. Starts listening on first use; ``close`` stops the thread."""

    def __init__(self, project: Project) -> None:
        self._url = project.url
        self._lock = threading.Lock()
        self._generation = 0
        self._listening = False
        self._listener: ChannelListener | None = None
        self._closed = False

    def generation(self) -> Generation:
        """The current generation; None when revocations cannot be heard right now."""
        if self._url is None:
            return None
        self._start()
        with self._lock:
            return self._generation if self._listening else None

    def close(self) -> None:
        with self._lock:
            self._closed = True
            listener, self._listener = self._listener, None
            self._listening = False
        if listener is not None:
            listener.stop()

    def _start(self) -> None:
        with self._lock:
            if self._listener is not None or self._closed or self._url is None:
                return
            from studio.store.pg_database import TOKENS_CHANNEL
            from studio.store.pg_events import ChannelListener

            self._listener = ChannelListener(
                self._url, TOKENS_CHANNEL, self._heard, self._listening_changed,
                name="cir-token-watch", poll_seconds=0.5,
            )
            listener = self._listener
        listener.start()  # returns once LISTEN is in place (or the first try failed)

    def _heard(self, _name: str) -> None:
        with self._lock:
            self._generation += 1

    def _listening_changed(self, listening: bool) -> None:
        with self._lock:
            self._generation += 1  # notifications may have been missed in the gap
            self._listening = listening and not self._closed
