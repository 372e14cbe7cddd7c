"""The application services: the one owner of every worker thread, created by the shell.

napari's and labelme's lessons in one object (ARCHITECTURE.md, "Long work"):

- **lanes**: one GPU/model lane (a single worker: model loading, index builds, training,
  simulations and live ranks never fight for the device) and an IO lane (thumbnails,
  picture decoding, autosaves, file reads). No widget makes a thread of its own.
- **results on the UI thread**: a worker returns a value; ``relay`` carries the callback
  that applies it to the UI thread. A widget submits through a ``Scope`` tied to its
  lifetime: when the widget goes, its tokens are cancelled and its callbacks dropped.
- **one thumbnail cache**, **the resolved device** and **one error reporter**.
- **the team connection** (``team``): the studio as a client of a team server. Its HTTP
  calls run on a lane of their own with one worker (``net``): the client's outbox is one
  SQLite connection that must stay on one thread, edits must leave in the order they
  were made, and a server that does not answer (a timeout of seconds) must never hold up
  thumbnails or autosaves on the IO lane.
- **other programs' writes** (SQLite): every ``WATCH_MS`` the IO lane asks the open
  project what other programs committed (``Project.poll_changes``, nearly free while
  nothing changed) and the project emits those kinds, as
  PostgreSQL's LISTEN/NOTIFY does; views follow them like any other write.
- **ordered shutdown** (``shutdown``): cancel every token, wait for the lanes (bounded),
  flush autosaves, close the project, before any widget is destroyed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from shiboken6 import isValid

from studio.events import Event
from studio.jobs import CancelToken
from studio.workspace import Workspace
from widgets.error_reporter import ErrorReporter
from widgets.job_runner import JobRunner
from widgets.project_signals import install as install_dispatcher
from widgets.quit_notice import trace
from widgets.team_connection import TeamConnection
from widgets.thumbnail_cache import ThumbnailCache
from widgets.ui_gc import UiThreadCollector

SHUTDOWN_WAIT_S = 5.0
IO_WORKERS = 2
WATCH_MS = 500  # how often an SQLite project is asked for other programs' commits


class UiRelay(QObject):
    """Runs callables on the UI thread, in the order they were posted (thread-safe)."""

    _queued = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._queued.connect(self._run, Qt.ConnectionType.QueuedConnection)

    def post(self, function: Callable[[], Any]) -> None:
        if isValid(self):
            self._queued.emit(function)

    @staticmethod
    def _run(function: Callable[[], Any]) -> None:
        function()


class Lane:
    """One executor and the futures it still runs, so shutdown can wait for them."""

    def __init__(self, name: str, workers: int) -> None:
        self.name = name
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=f"cir-{name}")
        self._futures: set[Future] = set()
        self._lock = threading.Lock()
        self.closed = False

    def submit(self, function: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        if self.closed:
            future: Future = Future()
            future.cancel()
            return future
        future = self._executor.submit(function, *args, **kwargs)
        with self._lock:
            self._futures.add(future)
        future.add_done_callback(self._forget)
        return future

    def _forget(self, future: Future) -> None:
        with self._lock:
            self._futures.discard(future)

    def busy(self) -> bool:
        with self._lock:
            return any(not f.done() for f in self._futures)

    def wait(self, timeout: float) -> bool:
        """Wait until what was submitted so far finished; False if it took too long."""
        with self._lock:
            pending = [f for f in self._futures if not f.done()]
        done, not_done = wait_futures(pending, timeout=max(0.0, timeout))
        return not not_done

    def close(self) -> None:
        """Run nothing more; queued work is dropped, running work finishes on its own."""
        self.closed = True
        self._executor.shutdown(wait=False, cancel_futures=True)


class Scope:
    """Work submitted on behalf of one widget; it ends when the widget is destroyed.

    ``submit`` runs a plain function on a lane and applies ``done(result)`` (or
    ``failed(error)``) on the UI thread, unless the scope was closed meanwhile: then the
    callbacks are dropped and the tokens it handed out are cancelled.
    """

    def __init__(self, services: Services, owner: QObject | None = None) -> None:
        self.services = services
        self.closed = False
        self._tokens: set[CancelToken] = set()
        if owner is not None:
            owner.destroyed.connect(self.close)

    def token(self) -> CancelToken:
        token = CancelToken()
        if self.closed:
            token.cancel()
        else:
            self._tokens.add(token)
        return token

    def submit(
        self,
        lane: Lane,
        function: Callable[..., Any],
        *args: Any,
        done: Callable[[Any], Any] | None = None,
        failed: Callable[[BaseException], Any] | None = None,
    ) -> Future:
        future = lane.submit(function, *args)

        def apply(finished: Future) -> None:
            if self.closed or finished.cancelled():
                return
            error = finished.exception()
            if error is None:
                if done is not None:
                    done(finished.result())
            elif failed is not None:
                failed(error)
            else:
                self.services.errors.report_exception(error, f"Background work failed: {error}")

        future.add_done_callback(lambda f: self.services.relay.post(lambda: apply(f)))
        return future

    def close(self, *_destroyed: object) -> None:
        self.closed = True
        for token in self._tokens:
            token.cancel()
        self._tokens.clear()


class Services(QObject):
    """Created once by the shell; every pane receives it in its constructor."""

    def __init__(
        self, workspace: Workspace, parent: QObject | None = None, log_dir: Path | None = None
    ) -> None:
        super().__init__(parent)
        self.workspace = workspace
        install_dispatcher(workspace)  # project events reach views on the UI thread
        self.relay = UiRelay(self)
        self.collector = UiThreadCollector(self)  # no Qt object is freed on a worker thread
        self.window_for_notices: Callable[[], Any] = lambda: None  # the shell sets it
        self.gpu = Lane("gpu", 1)
        self.io = Lane("io", IO_WORKERS)
        self.net = Lane("net", 1)
        self.errors = ErrorReporter(log_dir, self.relay.post, self)
        self.runner = JobRunner(self)
        self.thumbnails = ThumbnailCache(self.io, self.relay.post, parent=self)
        self.flushing = Event()  # autosaves connect here; called at shutdown, project open
        # The garbage collector's pauses: freeze after a job's loads, collect fully when a
        # project closes (nobody types into a closed project), never mid-typing.
        self.runner.finished.connect(lambda *_: self.collector.freeze())
        workspace.project_changed.connect(self._settle_heap)
        self.team = TeamConnection(self)
        self._scopes: list[Scope] = []
        self.shut_down = False
        self._watching = False  # a poll for other programs' writes is on the IO lane
        self._watch = QTimer(self)
        self._watch.setInterval(WATCH_MS)
        self._watch.timeout.connect(self._watch_project)
        self._watch.start()

    def _watch_project(self) -> None:
        """Ask the open SQLite project, on the IO lane, what other programs wrote."""
        project = self.workspace.project
        if project is None or project.url is not None or self._watching or self.shut_down:
            return
        self._watching = True

        def polled(future: Future) -> None:
            self._watching = False
            if not future.cancelled() and future.exception() is not None:
                error = future.exception()
                self.errors.report_exception(error, f"Watching the project failed: {error}")

        self.io.submit(project.poll_changes).add_done_callback(polled)

    def _settle_heap(self, project: object) -> None:
        """A closed project's garbage is collected at once; an opened project's loads are
        frozen (a full collection then would stall the first keystrokes by up to a second)."""
        if project is None:
            self.collector.collect_all()
        else:
            self.collector.freeze()

    @property
    def device(self) -> str | None:
        """The device setting as the model loaders take it ("auto" means: let them choose)."""
        return self.workspace.settings.model_device

    def scope(self, owner: QObject | None = None) -> Scope:
        scope = Scope(self, owner)
        self._scopes = [s for s in self._scopes if not s.closed]
        self._scopes.append(scope)
        return scope

    def busy(self) -> bool:
        """A job (index build, simulation, training …) is running or queued."""
        return bool(self.runner.running)

    def running_labels(self) -> list[str]:
        """Jobs still working (one the person already cancelled is only finishing)."""
        return [h.label for h in self.runner.running.values() if not h.token.cancelled]

    def shutdown(
        self, wait_s: float = SHUTDOWN_WAIT_S, notice: Callable[[str], Any] | None = None
    ) -> bool:
        """Cancel, wait (bounded), flush autosaves, close the project; once.

        ``notice(what)`` is told what is being finished at every step and every 0.1 s of
        waiting (``QuitNotice`` shows it once the quit is past half a second). No full
        garbage collection runs from here on: the process is ending, and a walk over
        torch's half a million objects only held the quit up (0.6–1.4 s, twice).

        Returns False if a worker did not stop within ``wait_s`` (it is left to finish
        on its own; nothing more is submitted).
        """
        if self.shut_down:
            return True
        self.shut_down = True
        self._watch.stop()
        say = notice or (lambda _what: None)
        self.collector.closing()
        running = self.running_labels()
        self.runner.cancel_all()
        for scope in self._scopes:
            scope.close()
        self.thumbnails.clear_queue()
        deadline = time.monotonic() + wait_s
        what = running[0] if running else "background work"
        for lane in (self.gpu, self.io):
            while lane.busy() and time.monotonic() < deadline:
                say(what)
                lane.wait(min(0.1, deadline - time.monotonic()))
        stopped = not (self.gpu.busy() or self.io.busy())
        say("saving what you typed")
        self.flushing.emit()
        if self.team.client is not None:
            say("sending your work to the team server")
        self.team.shutdown(max(1.0, deadline - time.monotonic()))  # after the writers' flush
        self.gpu.close()
        self.io.close()
        self.net.close()
        say("closing the project")
        self.workspace.close_project()
        trace("project-closed")
        self.errors.uninstall_hooks()
        if stopped:
            self.collector.stop()  # no worker left that could collect Qt objects
        return stopped
