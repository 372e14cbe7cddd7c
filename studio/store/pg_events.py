"""Project events across machines: PostgreSQL's LISTEN/NOTIFY.

Every committed write on a PostgreSQL project sends one ``NOTIFY`` (inside its
transaction, so it is delivered exactly when the commit is) carrying the sender's token
and the kinds it changed. Each open project that somebody listens to (a studio window;
``Project.listen``) runs one listener thread on its own connection; a notification from
another project object — another process, another machine — is re-emitted as the same
project events a local write emits. The thread never
touches Qt: the studio's dispatcher moves events to the UI thread as for job threads.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from typing import Any

from studio.store.pg_database import EVENT_CHANNEL
from studio.timeouts import pg_events_retry_s

log = logging.getLogger(__name__)
POLL_SECONDS = 0.05
RETRY_SECONDS = pg_events_retry_s()  # 1 s (studio/timeouts.py)


class EventListener:
    """A daemon thread that LISTENs and calls ``emit(kinds)`` for others' commits."""

    def __init__(self, url: str, token: str, emit: Callable[[list[str]], None]) -> None:
        self.url, self.token, self.emit = url, token, emit
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="cir-pg-events", daemon=True)

    def start(self) -> None:
        """Start, and wait (briefly) until LISTEN is in place: no commit after this is missed."""
        self._thread.start()
        self._ready.wait(timeout=5)

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def _run(self) -> None:
        import psycopg

        while not self._stop.is_set():
            conn: Any = None
            try:
                conn = psycopg.connect(self.url, autocommit=True, connect_timeout=10)
                conn.execute(f"LISTEN {EVENT_CHANNEL}")
                self._ready.set()
                while not self._stop.is_set():
                    for note in conn.notifies(timeout=POLL_SECONDS):
                        self._deliver(note.payload)
            except psycopg.Error as error:  # server restarted or unreachable: try again
                log.debug("event listener on %s: %s", self.url, error)
                self._ready.set()
                self._stop.wait(RETRY_SECONDS)
            finally:
                if conn is not None:
                    with contextlib.suppress(Exception):
                        conn.close()

    def _deliver(self, payload: str) -> None:
        token, _, kinds = payload.partition(" ")
        if token == self.token or not kinds:
            return  # our own commit: its events were emitted locally already
        try:
            self.emit(kinds.split(","))
        except Exception:  # a listener's bug must not stop the events of others
            log.exception("a project event listener failed")
