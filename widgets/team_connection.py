"""The studio's connection to a team server: one client, its outbox, online or offline.

Owned by ``Services`` (``services.team``); panes never talk HTTP themselves. Every call
runs on the services' ``net`` lane (one worker: the outbox's SQLite connection stays on
one thread and edits leave in the order they were made) and its result is applied on
the UI thread. A timer flushes the outbox while edits wait, so the person never has to
press anything when the network comes back. ``status_text`` is what the status bar
shows: "online as ana (annotator)" or "offline — 3 edits waiting".

The token is kept by ``studio.server.credentials`` (keyring, else settings with a note);
``reconnect_saved`` connects on start to the server of the last session. Reconnecting
while the server is down still opens the outbox, so edits left by the last session are
counted and sent as soon as it answers.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal
from shiboken6 import isValid

from studio.errors import StudioError
from studio.server import credentials
from studio.server.client import Client, Offline, outbox_for
from studio.wording import count

if TYPE_CHECKING:
    from widgets.queue_calls import QueueCalls
    from widgets.services import Services

FLUSH_MS = 3000  # while edits wait or the server is away, try again this often
CLIENT_TIMEOUT_S = 5.0  # a desktop waits no longer than this for one answer
ROLES_THAT_WRITE = ("annotator",)


class TeamConnection(QObject):
    changed = Signal()  # online/offline, edits waiting, or who we are
    identity_changed = Signal()  # connected, disconnected, or the role became known
    back_online = Signal()  # the server answers again after it did not
    leaving = Signal()  # about to disconnect: writers put what is typed in the outbox now

    def __init__(self, services: Services) -> None:
        super().__init__(services)
        self.services = services
        self.client: Client | None = None
        self.url = ""
        self.name = ""
        self.role = ""
        self.online = False
        self.waiting = 0
        self.last_error = ""
        self._generation = 0  # answers meant for an earlier connection are dropped
        self._timer = QTimer(self, interval=FLUSH_MS)
        self._timer.timeout.connect(self._tick)

    # -- state -------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self.client is not None

    def status_text(self) -> str:
        if self.client is None:
            return ""
        if not self.online:
            return f"offline — {count(self.waiting, 'edit')} waiting"
        who = f"online as {self.name} ({self.role})" if self.name else "online"
        return who + (f" · {count(self.waiting, 'edit')} waiting" if self.waiting else "")

    def queue_calls(self, queue: Any, owner: QObject) -> QueueCalls:
        """Where a ``RemoteCaptionQueue`` over this connection's client runs its calls:
        this lane, in order; the queue says whether the server answered."""
        from widgets.queue_calls import QueueCalls

        def on_client(function: Callable[..., Any]) -> Callable[..., Any]:
            return lambda _client, *args: function(*args)

        def run(function: Callable[..., Any], *args: Any, done: Callable[[Any], Any],
                failed: Callable[[BaseException], Any]) -> Future | None:
            return self.run(on_client(function), *args, done=done, failed=failed, owner=owner,
                            answered=lambda: bool(queue.online))

        def run_now(function: Callable[..., Any], *args: Any) -> Any:
            return self.run_now(on_client(function), *args)

        return QueueCalls(run, run_now)

    # -- calls -------------------------------------------------------------------------

    def run(
        self,
        function: Callable[..., Any],
        *args: Any,
        done: Callable[[Any], Any] | None = None,
        failed: Callable[[BaseException], Any] | None = None,
        owner: QObject | None = None,
        tells_online: bool = True,
        answered: Callable[[], bool] | None = None,
    ) -> Future | None:
        """``function(client, *args)`` on the net lane; ``done``/``failed`` on the UI thread
        (dropped if ``owner`` is gone or the connection changed meanwhile). Its outcome says
        whether the server answers unless ``tells_online`` is False (a picture can come
        from the disk cache or a local folder while the server is away); ``answered``
        says it for a call that keeps its own offline state (a work queue that returns
        what it last knew instead of raising ``Offline``)."""
        client = self.client
        if client is None:
            return None
        generation = self._generation

        def work() -> tuple[Any, int, bool]:
            try:
                result = function(client, *args)
                return result, client.waiting(), True if answered is None else answered()
            except BaseException as error:
                error.waiting = client.waiting()  # type: ignore[attr-defined]
                raise

        future = self.services.net.submit(work)

        def apply(finished: Future) -> None:
            if finished.cancelled() or generation != self._generation:
                return
            if owner is not None and not isValid(owner):
                return
            error = finished.exception()
            if error is None:
                result, waiting, heard = finished.result()
                if tells_online:
                    self._heard(heard, waiting)
                if done is not None:
                    done(result)
                return
            if tells_online:
                self._heard(not isinstance(error, Offline),
                            getattr(error, "waiting", self.waiting))
            if isinstance(error, Offline):
                self.last_error = str(error)
            if failed is not None:
                failed(error)
            elif not isinstance(error, StudioError):
                self.services.errors.report_exception(error, f"Team server: {error}")

        future.add_done_callback(lambda f: self.services.relay.post(lambda: apply(f)))
        return future

    def run_now(self, function: Callable[..., Any], *args: Any, timeout: float = 5.0) -> Any:
        """The same on the net lane, waited for here (closing: the text goes to the outbox
        before the window does). None if it failed or took too long."""
        client = self.client
        if client is None:
            return None
        future = self.services.net.submit(function, client, *args)
        try:
            return future.result(timeout=timeout)
        except (FutureTimeout, StudioError):
            return None

    def _heard(self, answered: bool, waiting: int) -> None:
        """After each call: the server answered it, and nothing waits (an edit still waiting
        after a send means the server did not answer that send)."""
        was_online = self.online
        self.online = answered and waiting == 0
        self.waiting = waiting
        if self.waiting or not self.online:
            self._timer.start()
        self.changed.emit()
        if self.online and not was_online:
            self.back_online.emit()

    def _tick(self) -> None:
        """Send what waits; learn who we are if we connected while the server was away."""
        if self.client is None:
            self._timer.stop()
            return
        if self.online and not self.waiting and self.name:
            self._timer.stop()
            return

        def work(client: Client) -> dict[str, Any] | None:
            client.flush()
            return None if self.name else client.whoami()

        self.run(work, done=self._learned, failed=lambda _error: None)

    def _learned(self, who: dict[str, Any] | None) -> None:
        if who is not None:
            self.name, self.role = str(who.get("name", "")), str(who.get("role", ""))
            self.identity_changed.emit()
            self.changed.emit()

    # -- connecting --------------------------------------------------------------------

    def connect_to(
        self,
        url: str,
        token: str,
        done: Callable[[str], Any] | None = None,
        failed: Callable[[str], Any] | None = None,
        keep_offline: bool = False,
        owner: QObject | None = None,
    ) -> None:
        """Check the token with ``/v1/whoami``; on success keep it (keyring or settings)
        and use this server. ``done(note)`` says where the token went; ``failed(message)``
        is one sentence for the person. ``keep_offline``: an unreachable server still
        becomes the connection (start-up), its edits waiting."""
        url = url.strip().rstrip("/")
        token = token.strip()
        if not url.startswith(("http://", "https://")):
            if failed is not None:
                failed("The address must start with http:// or https://.")
            return
        if not token:
            if failed is not None:
                failed("Paste the token your coordinator gave you.")
            return

        def work() -> tuple[Client, dict[str, Any] | None, str]:
            client = Client(url, token, outbox_for(url, token), timeout=CLIENT_TIMEOUT_S)
            try:
                who = client.whoami()
                with contextlib.suppress(Offline):
                    client.flush()  # what the last session left waiting goes out first
                return client, who, ""
            except Offline as error:
                if keep_offline:
                    return client, None, str(error)
                client.close()
                raise
            except BaseException:
                client.close()
                raise

        def apply(finished: Future) -> None:
            if finished.cancelled():
                return
            error = finished.exception()
            gone = owner is not None and not isValid(owner)  # the dialog went meanwhile
            if error is not None:
                if failed is not None and not gone:
                    failed(_message(error))
                elif not isinstance(error, StudioError):
                    self.services.errors.report_exception(error, f"Team server: {error}")
                return
            client, who, offline = finished.result()
            if self.client is not None:
                self.leaving.emit()  # what is typed goes to the old outbox, under its token
            self._drop_client()
            self.client, self.url = client, url
            self.name = str(who["name"]) if who else ""
            self.role = str(who["role"]) if who else ""
            self.last_error = offline
            note = credentials.save_token(self.services.workspace.settings, url, token)
            self.services.net.submit(client.waiting).add_done_callback(
                lambda f: self.services.relay.post(
                    lambda: self._heard(who is not None, f.result() if not f.exception() else 0)
                )
            )
            self.identity_changed.emit()
            self.changed.emit()
            if done is not None and not gone:
                done(note)

        future = self.services.net.submit(work)
        future.add_done_callback(lambda f: self.services.relay.post(lambda: apply(f)))

    def reconnect_saved(self) -> None:
        """On start: the server of the last session, if the person did not disconnect."""
        settings = self.services.workspace.settings
        token = credentials.load_token(settings)
        if settings.team_server and token:
            self.connect_to(settings.team_server, token, keep_offline=True,
                            failed=lambda message: setattr(self, "last_error", message))

    def disconnect(self) -> None:
        """Stop using the server and forget the token; edits still waiting stay in the
        outbox (on disk) and go out the next time this server is connected."""
        self.leaving.emit()
        self._drop_client()
        credentials.forget(self.services.workspace.settings)
        self.identity_changed.emit()
        self.changed.emit()

    def _drop_client(self) -> None:
        client, self.client = self.client, None
        self._generation += 1
        self._timer.stop()
        self.name = self.role = self.url = ""
        self.online, self.waiting = False, 0
        if client is not None:
            self.services.net.submit(client.close)  # on the thread that opened its outbox

    def shutdown(self, wait_s: float) -> None:
        """Closing: the outbox is closed on its own thread (nothing waiting is lost)."""
        self._timer.stop()
        client, self.client = self.client, None
        self._generation += 1
        if client is not None:
            future = self.services.net.submit(client.close)
            # a call still hanging on the network: the outbox is on disk anyway
            with contextlib.suppress(FutureTimeout, Exception):
                future.result(timeout=wait_s)


def _message(error: BaseException) -> str:
    """One sentence for the person, never a traceback."""
    if isinstance(error, Offline):
        return f"{error}".replace("; your edits wait.", ".") + (
            " Check the address, and that the server is running."
        )
    if isinstance(error, StudioError):
        return f"The server refused: {error}"
    return f"Could not connect: {error}"
