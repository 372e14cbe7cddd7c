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


class ChannelListener:
    """A daemon thread that LISTENs on one channel on a connection of its own and calls
    ``on_note(payload)`` for each notification. ``on_listening(True)`` once LISTEN is in
    place (again, after a lost connection), ``on_listening(False)`` when the connection is
    lost: notifications sent meanwhile are never delivered, so a caller that must not miss
    one treats the gap as "anything may have happened". Both run on the listener's thread."""

    def __init__(
        self,
        url: str,
        channel: str,
        on_note: Callable[[str], None],
        on_listening: Callable[[bool], None] | None = None,
        name: str = "cir-pg-events",
        poll_seconds: float = POLL_SECONDS,
    ) -> None:
        self.url, self.channel = url, channel
        self.on_note, self.on_listening = on_note, on_listening or (lambda listening: None)
        self.poll_seconds = poll_seconds
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

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
            listening = False
            try:
                conn = psycopg.connect(self.url, autocommit=True, connect_timeout=10,
                                       application_name=self._thread.name)
                conn.execute(f"LISTEN {self.channel}")
                listening = True
                self.on_listening(True)
                self._ready.set()
                while not self._stop.is_set():
                    for note in conn.notifies(timeout=self.poll_seconds):
                        self._deliver(note.payload)
            except psycopg.Error as error:  # server restarted or unreachable: try again
                log.debug("listener of %s on %s: %s", self.channel, self.url, error)
                if listening:  # deaf from now on, not after the wait
                    listening = False
                    self.on_listening(False)
                self._ready.set()
                self._stop.wait(RETRY_SECONDS)
            finally:
                if listening:
                    self.on_listening(False)
                if conn is not None:
                    with contextlib.suppress(Exception):
                        conn.close()

    def _deliver(self, payload: str) -> None:
        try:
            self.on_note(payload)
        except Exception:  # a listener's bug must not stop the notifications that follow
            log.exception("a listener of %s failed", self.channel)


class EventListener(ChannelListener):
    """Project events: calls ``emit(kinds)`` for the commits of other project objects."""

    def __init__(self, url: str, token: str, emit: Callable[[list[str]], None]) -> None:
        super().__init__(url, EVENT_CHANNEL, self._kinds)
        self.token, self.emit = token, emit

    def _kinds(self, payload: str) -> None:
        token, _, kinds = payload.partition(" ")
        if token == self.token or not kinds:
            return  # our own commit: its events were emitted locally already
        self.emit(kinds.split(","))
