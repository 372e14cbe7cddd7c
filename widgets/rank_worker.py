"""Ranks captions on the services' GPU/model lane; a newer request supersedes an older one.

Typing asks for a rank on every pause. Requests go to the one model lane (ranks are too
quick and too many for the status bar, so they do not go through the job runner). Each
live request gets a generation number and a cancel token: a new request cancels the
previous one, a request whose generation is no longer current is skipped before it
starts, and its result, if it still comes, is dropped by the view. Store requests (rank
a submitted caption and keep the rank with it) are never superseded.

The worker keeps one ``CaptionRanker`` and reopens it when the project, model, strategy
or index changes. Opening it reads what exists (model, index, facets): nothing
gallery-wide runs here. The work never touches Qt: results are handed to the services'
relay and the signals below are emitted on the UI thread, only while this object lives.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from shiboken6 import isValid

from studio.captions.ranking import (
    CaptionRanker,
    NoIndexError,
    PairQuery,
    RankResult,
    RankSettings,
    index_key,
    pair_query,
    rank_settings,
)
from studio.captions.ranks import save_rank
from studio.captions.store import get_caption
from studio.errors import StudioError
from studio.jobs import CancelToken, JobCancelled
from studio.store import Project

if TYPE_CHECKING:
    from widgets.services import Services


class RankWorker(QObject):
    ready = Signal(int, object)  # generation, RankResult
    unavailable = Signal(int, str)  # generation, why (no index for the model …)
    failed = Signal(int, str)  # generation, error text
    loading = Signal(int, str)  # generation, what is being loaded
    stored = Signal(int, object)  # caption id, RankResult (None: not ranked)

    def __init__(self, services: Services, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._services = services
        self._lane = services.gpu
        self._lock = threading.Lock()
        self.generation = 0
        self._ahead = 0  # the newest encode-ahead request (older ones are skipped)
        self._token: CancelToken | None = None
        self._ranker: CaptionRanker | None = None
        self._ranker_key: tuple[Any, ...] | None = None
        self._pairs: dict[tuple[str, int], PairQuery] = {}
        self._closed = False
        if parent is not None:
            parent.destroyed.connect(self.shutdown)

    @property
    def device(self) -> str | None:
        return self._services.device

    def _emit(self, signal_name: str, *args: Any) -> None:
        """From the lane: emit ``signal_name`` on the UI thread if this object still lives."""

        def deliver() -> None:
            if not self._closed and isValid(self):
                getattr(self, signal_name).emit(*args)

        self._services.relay.post(deliver)

    # -- requests (UI thread) ----------------------------------------------------------

    def supersede(self) -> int:
        """Make every request in flight stale (the pair or the text changed)."""
        with self._lock:
            self.generation += 1
            if self._token is not None:
                self._token.cancel()
            self._token = CancelToken()
            return self.generation

    def request(self, project: Project, settings: RankSettings, pair_id: int, text: str) -> int:
        generation = self.supersede()
        token = self._token
        if self._closed or token is None:
            return generation
        self._lane.submit(self._live, generation, token, project, settings, pair_id, text)
        return generation

    def encode_ahead(self, project: Project, settings: RankSettings, text: str) -> None:
        """A key was pressed: encode the text so far on the lane, before its rank is
        asked for. Only the newest text is encoded; a ranker not open yet is not opened."""
        if self._closed:
            return
        with self._lock:
            self._ahead += 1
            ahead = self._ahead
        self._lane.submit(self._encode_ahead, ahead, project, settings, text)

    def _encode_ahead(self, ahead: int, project: Project, settings: RankSettings, text: str) -> None:
        ranker = self._ranker
        if ahead != self._ahead or ranker is None or self._ranker_key != self._key(project, settings):
            return
        try:
            ranker.encode_ahead(text)
        except Exception:  # noqa: BLE001 (the rank itself reports what is wrong)
            return

    def preload(self, project: Project, settings: RankSettings, pair_id: int | None = None) -> None:
        """Open the ranker (model, index, facets) on the lane before the first keystroke,
        and with a pair, build its gallery and warm the text tower, so the first rank
        waits for none of it; a project without an index is left for the first request
        to report."""
        if not self._closed:
            self._lane.submit(self._warm, project, settings, pair_id)

    def _warm(self, project: Project, settings: RankSettings, pair_id: int | None) -> None:
        try:
            ranker = self._ranker_for(project, settings, -1)  # -1: no view shows "Loading …"
            if pair_id is not None:
                ranker.warm(self._pair(project, pair_id))
        except Exception:  # noqa: BLE001 (no index, a closed project: the request says so)
            return

    def store(self, project: Project, caption_id: int) -> Future | None:
        """Rank a caption as it is stored now and keep the rank with it."""
        if self._closed:
            return None
        return self._lane.submit(self._store, project, caption_id)

    def forget(self) -> None:
        """Drop the loaded ranker (the project closed, or its index was rebuilt)."""
        self.supersede()
        if not self._closed:
            self._lane.submit(self._drop)

    def shutdown(self, *_destroyed: object) -> None:
        """Make every request stale and drop its results (the view is going away)."""
        if self._closed:
            return
        self.supersede()
        self._closed = True

    def wait_idle(self) -> None:
        """Block until requests queued so far ran (tests and the benchmark)."""
        if self._closed or self._lane.closed:
            return
        self._lane.submit(lambda: None).result()

    # -- work (the worker thread) ------------------------------------------------------

    def _drop(self) -> None:
        self._ranker = self._ranker_key = None
        self._pairs.clear()

    def _ranker_for(
        self, project: Project, settings: RankSettings, generation: int
    ) -> CaptionRanker:
        key = self._key(project, settings)
        if self._ranker is None or self._ranker_key != key:
            self._ranker = None
            self._emit("loading", generation, f"Loading model {settings.model} and its index …")
            self._ranker = CaptionRanker.open(
                project, settings.model, settings.strategy, self.device
            )
            self._ranker_key = key
            # The model, its libraries and the facets live as long as the ranker: keep them
            # out of the UI thread's threshold collections (a whole-heap scan is 0.2-0.6 s).
            self._services.relay.post(self._services.collector.freeze)
        return self._ranker

    @staticmethod
    def _key(project: Project, settings: RankSettings) -> tuple[Any, ...]:
        """What a loaded ranker must match to be used again."""
        return (
            str(project.path),
            settings.model,
            settings.strategy,
            index_key(project, settings.model),
        )

    def _pair(self, project: Project, pair_id: int) -> PairQuery:
        key = (str(project.path), pair_id)
        if key not in self._pairs:
            self._pairs[key] = pair_query(project, pair_id)
        return self._pairs[key]

    def _live(
        self,
        generation: int,
        token: CancelToken,
        project: Project,
        settings: RankSettings,
        pair_id: int,
        text: str,
    ) -> None:
        if token.cancelled or generation != self.generation:
            return  # a newer keystroke came before this one started
        try:
            ranker = self._ranker_for(project, settings, generation)
            result = ranker.rank(self._pair(project, pair_id), text, cancel=token)
        except JobCancelled:
            return
        except NoIndexError as error:
            self._emit("unavailable", generation, str(error))
            return
        except StudioError as error:
            self._emit("failed", generation, str(error))
            return
        except Exception as error:  # noqa: BLE001 (the view shows one line; the log has it)
            self._services.errors.report(f"Ranking failed: {error}", repr(error), show=False)
            self._emit("failed", generation, f"Ranking failed: {error}")
            return
        self._emit("ready", generation, result)

    def _store(self, project: Project, caption_id: int) -> RankResult | None:
        result = None
        try:
            caption = get_caption(project, caption_id)
            ranker = self._ranker_for(project, rank_settings(project), -1)
            result = ranker.rank(self._pair(project, caption.pair_id), caption.text)
            save_rank(project, caption_id, result)
        except Exception:  # noqa: BLE001 (no index or a closed project: nothing stored)
            result = None
        self._emit("stored", caption_id, result)
        return result
