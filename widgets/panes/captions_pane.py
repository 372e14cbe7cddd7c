"""Captions: write relative captions for pairs, or review other people's, keyboard first.

The pane shows the pair side by side, the writer or the reviewer under it, and each
annotator's progress. One writer (``CaptionWriter``) serves both faces: it takes a work
queue (``studio.work_queue``), the project's (``LocalCaptionQueue``, for the person in
Settings, ``workspace.user_name``; its calls on the IO lane) or, connected to a team
server as an annotator, the server's (``RemoteCaptionQueue``; its calls on the team
connection's net lane). One reviewer (``CaptionReviewer``) likewise takes a review queue:
the project's (``LocalReviewQueue``) or, connected as a reviewer, the server's
(``RemoteReviewQueue``).
"""

from __future__ import annotations

from concurrent.futures import Future
from contextlib import suppress
from dataclasses import replace
from functools import partial

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QButtonGroup,
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QStackedLayout,
    QStackedWidget,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)
from qasync import asyncSlot

from studio.captions.ranking import rank_settings, save_rank_settings
from studio.captions.records import CaptionPolicy
from studio.captions.store import load_policy, save_policy
from studio.captions.writing_and_review import ReviewSession, WritingSession
from studio.errors import StudioError
from studio.jobs import JobCancelled
from studio.pairs.query import pair_images
from studio.project_stats import annotator_throughput
from studio.store import Project
from studio.wording import count
from studio.work_queue import WorkItem
from studio.work_queue.local import LocalCaptionQueue
from studio.work_queue.local_review import LocalReviewQueue
from studio.work_queue.remote import RemoteCaptionQueue
from studio.work_queue.remote_review import RemoteReviewQueue
from widgets import actions
from widgets.annotator_progress import AnnotatorProgress
from widgets.caption_rank_line import CaptionRankLine
from widgets.caption_rank_view import CaptionRankView
from widgets.caption_reviewer import CaptionReviewer
from widgets.caption_writer import CaptionWriter
from widgets.elided_label import ElidedLabel, WrappedLabel
from widgets.pair_view import PairView
from widgets.panes.pane import Pane, empty_state
from widgets.project_signals import follow, follow_closing
from widgets.queue_calls import QueueCalls
from widgets.rank_worker import RankWorker
from widgets.services import Services
from widgets.team_connection import ROLES_THAT_WRITE
from widgets.team_pictures import TeamPictures

TEAM_ROLES = ("annotator", "reviewer")
NO_TEAM_RANK = ("No rank: the project open here does not hold this pair (open a copy of the "
                "team's project with an index to see the caption's rank as you type).")

PROGRESS_DELAY_MS = 500


class CaptionsPane(Pane):
    title = "Captions"
    tooltip = "Write relative captions keyboard-first with autosave and undo; review them"

    def __init__(self, services: Services, parent: QWidget | None = None):
        super().__init__(services, parent)
        workspace = self.workspace
        self.project: Project | None = None
        self._preloaded: Project | None = None
        self.user = ""
        self.writing: WritingSession | None = None
        self.review: ReviewSession | None = None
        self.review_queue: LocalReviewQueue | None = None
        self._progress_timer = QTimer(self, singleShot=True, interval=PROGRESS_DELAY_MS)
        self._progress_timer.timeout.connect(self.refresh_progress)
        self._stack = QStackedLayout(self)
        self._stack.addWidget(
            empty_state(
                "No project open", "Open a project with pairs (import or mine them in Pairs)."
            )
        )
        self._stack.addWidget(self._build())
        self._stack.addWidget(self._build_team())
        services.team.identity_changed.connect(self._team_changed)
        follow_closing(self, workspace, self._on_closing)
        follow(self, workspace, ("settings",), self._on_settings)
        follow(self, workspace, ("pairs", "captions", "people"), self._on_work_changed)
        self._shown_pair: int | None = None
        self._team_pair: int | None = None  # the team writer's pair in the project here
        follow(self, workspace, ("images",), self._show_pictures_again)

    def _build(self) -> QWidget:
        content = QWidget()
        self.user_label = WrappedLabel()
        self.user_label.setTextFormat(Qt.TextFormat.RichText)
        self.write_button = QPushButton("Write")
        self.write_button.setToolTip(actions.tooltip("captions.write_mode", "Write captions"))
        self.review_button = QPushButton("Review")
        self.review_button.setToolTip(
            actions.tooltip("captions.review_mode", "Review other people's captions"))
        self.modes = QButtonGroup(self)
        for number, button in enumerate((self.write_button, self.review_button)):
            button.setCheckable(True)
            self.modes.addButton(button, number)
        self.write_button.setChecked(True)
        self.modes.idClicked.connect(self.set_mode)
        self.per_pair = QSpinBox()
        self.per_pair.setRange(1, 10)
        self.per_pair.setToolTip("How many captions each pair needs")
        self.distinct = QCheckBox("each from a different person")
        self.per_pair.valueChanged.connect(self._policy_changed)
        self.distinct.toggled.connect(self._policy_changed)
        header = QHBoxLayout()
        header.addWidget(self.user_label)
        header.addStretch(1)
        header.addWidget(QLabel("Captions per pair"))
        header.addWidget(self.per_pair)
        header.addWidget(self.distinct)
        header.addSpacing(8)
        header.addWidget(self.write_button)
        header.addWidget(self.review_button)
        self.view = PairView(self.thumbnails)
        self.view.install_zoom_keys(content, "captions")
        self.writer = CaptionWriter()
        self.local_calls = QueueCalls(partial(self.scope.submit, self.services.io),
                                      lambda function, *args: function(*args),
                                      first_at_once=True)
        self.services.flushing.connect(self.writer.flush)  # at shutdown, before the close
        self.reviewer = CaptionReviewer()
        self.panels = QStackedWidget()
        self.panels.addWidget(self.writer)
        self.panels.addWidget(self.reviewer)
        self.progress = AnnotatorProgress()
        layout = QVBoxLayout(content)
        layout.addLayout(header)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.panels)
        layout.addWidget(self.progress)
        # The pair view is shared: only the panel on screen may draw into it. (The hidden
        # reviewer restarting after a captions event emitted "no pair" and blanked the
        # writer's pictures after every autosave.)
        self.writer.pair_changed.connect(lambda pair_id: self._show_pair(pair_id, self.writer))
        self.reviewer.pair_changed.connect(
            lambda pair_id: self._show_pair(pair_id, self.reviewer)
        )
        self.writer.saved.connect(self._progress_timer.start)
        self.reviewer.reviewed.connect(self._progress_timer.start)
        self._build_ranks()
        actions.bind(content, "captions.write_mode", lambda: self.set_mode(0))
        actions.bind(content, "captions.review_mode", lambda: self.set_mode(1))
        return content

    def _build_team(self) -> QWidget:
        """Team mode: an annotator writes the server's pairs, a reviewer reviews its
        captions; pictures come from the server or a local copy."""
        page = QWidget()
        team = self.services.team
        self.team_label = ElidedLabel()
        self.team_pictures = TeamPictures(team)
        self.team_writer = CaptionWriter()  # the same writer, bound to the server's queue
        self.team_writer.setObjectName("team_writer")
        self.team_rank = QLabel(NO_TEAM_RANK)
        self.team_rank.setStyleSheet("color: #6b7280;")
        self.team_rank.setWordWrap(True)
        self.team_writer.details.addWidget(self.team_rank)
        team.back_online.connect(self.team_writer.idle_refresh)
        team.changed.connect(self.team_writer.check_waiting)
        team.leaving.connect(self.team_writer.flush)
        self.services.flushing.connect(self.team_writer.flush)  # closing: outbox first
        self.team_reviewer = CaptionReviewer()  # the same reviewer, on the server's queue
        self.team_reviewer.setObjectName("team_reviewer")
        team.back_online.connect(self.team_reviewer.idle_refresh)
        team.changed.connect(self.team_reviewer.check_waiting)
        self.team_writer.item_changed.connect(self._team_item)
        self.team_writer.editor.textChanged.connect(self._team_rank_text)
        self.team_reviewer.item_changed.connect(
            lambda item: self.team_pictures.show_item(None if item is None else {
                "reference_id": item.reference_id, "target_id": item.target_id}))
        self.team_panels = QStackedWidget()
        self.team_panels.addWidget(self.team_writer)
        self.team_panels.addWidget(self.team_reviewer)
        layout = QVBoxLayout(page)
        layout.addWidget(self.team_label)
        layout.addWidget(self.team_pictures, 1)
        layout.addWidget(self.team_panels)
        return page

    def team_mode(self) -> bool:
        team = self.services.team
        return team.connected and team.role in TEAM_ROLES

    def _team_changed(self) -> None:
        """Connected as an annotator or reviewer: the pane works for the server; otherwise
        as before."""
        team = self.services.team
        self.team_writer.bind(None)
        self.team_reviewer.bind(None)
        if self.team_mode():
            writes = team.role in ROLES_THAT_WRITE
            verb = "Writing" if writes else "Reviewing"
            self.team_label.setText(
                f"{verb} for the team server <b>{team.url}</b> as <b>{team.name}</b> — "
                "items come from the team's queue (File → Connect to Team Server… to leave)"
            )
            self.team_panels.setCurrentWidget(self.team_writer if writes else self.team_reviewer)
            self._stack.setCurrentIndex(2)
            if writes and team.client is not None:
                self.team_writer.details.addWidget(self.rank_view)  # the live rank goes along
                queue = RemoteCaptionQueue(team.client, team.name)
                self.team_writer.bind(queue, team.queue_calls(queue, self.team_writer))
            elif not writes and team.client is not None:
                review = RemoteReviewQueue(team.client, team.name)
                self.team_reviewer.bind(review, team.queue_calls(review, self.team_reviewer))
            return
        if self.rank_view.parent() is not self.writer:
            self.writer.details.addWidget(self.rank_view)
            self.rank_view.set_pair(self.writer.pair_id)
        self._stack.setCurrentIndex(0 if self.project is None else 1)

    def _build_ranks(self) -> None:
        """The live rank under the writer's editor; the stored rank beside the reviewer's."""
        self.rank_worker = RankWorker(self.services, parent=self)
        self.rank_view = CaptionRankView(
            self.workspace, self.thumbnails, self.rank_worker, self.runner
        )
        self.writer.details.addWidget(self.rank_view)
        self.rank_view.keyboard_back.connect(self._caption_takes_keyboard)
        self.writer.editor.textChanged.connect(self.rank_view.set_text)
        self.writer.pair_changed.connect(self.rank_view.set_pair)
        self.writer.saved.connect(self._store_rank)
        self.rank_line = CaptionRankLine()
        self.reviewer.details.addWidget(self.rank_line)
        self.reviewer.pair_changed.connect(lambda _pair: self._show_stored_rank())
        self.reviewer.editor.textEdited.connect(self.rank_line.edited)
        self.rank_line.recompute_requested.connect(
            lambda caption_id: self.project and self.rank_worker.store(self.project, caption_id)
        )
        self.rank_worker.stored.connect(lambda _id, _result: self._show_stored_rank())
        self.rank_line.order_changed.connect(self._review_order)
        self.rank_line.threshold_changed.connect(self._rank_threshold)
        self.rank_line.rank_all_requested.connect(self.rank_all_captions)

    def _caption_takes_keyboard(self) -> None:
        """After Build index… the next keys go on the caption, unless the person has
        meanwhile chosen another field to type in (or left the pane)."""
        if not self.writer.isVisible() or not self.writer.editor.isEnabled():
            return
        focus = self.window().focusWidget()
        if focus is None or focus is self.rank_view.build_button or not isinstance(
            focus, (QLineEdit, QAbstractSpinBox, QPlainTextEdit, QTextEdit)
        ):
            self.writer.editor.setFocus(Qt.FocusReason.OtherFocusReason)

    def _store_rank(self) -> None:
        """Keep the rank with the caption just submitted (on the rank worker)."""
        if self.project is not None and self.writing is not None and self.writing.saves:
            self.rank_worker.store(self.project, self.writing.saves[-1].caption_id)

    def _team_item(self, item: WorkItem | None) -> None:
        """The team writer's pair: its pictures, and its rank from the local index when the
        project open here holds the same pair (the same two pictures)."""
        self.team_pictures.show_item(
            None if item is None else {"reference_id": item.reference_id,
                                       "target_id": item.target_id})
        self._team_pair = None
        project = self.project
        if self.rank_view.parent() is not self.team_writer:
            return  # not writing for a team: the rank follows the local writer
        if item is None or project is None or item.reference_id is None:
            self.team_rank.setText(NO_TEAM_RANK)
            self.rank_view.set_pair(None)
            return
        from studio.pairs.query import pair_with_images

        def found(pair_id: int | None) -> None:
            if self.team_writer.item is not item or self.project is not project:
                return
            self._team_pair = pair_id
            if pair_id is None:
                self.team_rank.setText(NO_TEAM_RANK)
                self.rank_view.set_pair(None)
                return
            self.team_rank.setText("")
            self.rank_view.set_pair(pair_id)
            self.rank_view.set_text(self.team_writer.editor.text())

        self.scope.submit(self.services.io, pair_with_images, project, item.reference_id,
                          item.target_id, done=found, failed=lambda _error: found(None))

    def _team_rank_text(self, text: str) -> None:
        if self._team_pair is not None:
            self.rank_view.set_text(text)

    def _show_stored_rank(self) -> None:
        caption = self.review.caption() if self.review is not None else None
        # The editor's text, which the reviewer may have changed: then the rank is stale.
        text = self.reviewer.editor.text() if caption is not None else None
        self.rank_line.show_caption(self.project, caption, text)

    @asyncSlot()
    async def rank_all_captions(self) -> None:
        """Rank every submitted caption again as a job (status bar, progress, cancel)."""
        project = self.project
        if project is None or self.runner is None:
            return
        from studio.captions.ranks import rank_captions

        self.rank_line.rank_all.setEnabled(False)
        try:
            report = await self.runner.run(
                "Ranking captions", rank_captions, project, device=self.services.device
            )
        except JobCancelled:
            self.rank_line.note.setText("Ranking cancelled; the stored ranks are unchanged.")
            return
        except StudioError as error:
            self.rank_line.note.setText(str(error))
            return
        finally:
            self.rank_line.rank_all.setEnabled(True)
        self._show_stored_rank()
        summary = report["summary"]
        self.rank_line.rank_all.setToolTip(
            f"Last run: {count(summary['captions'], 'caption')}, median rank "
            f"{summary['median_rank']}"
        )

    def _rank_threshold(self, threshold: int) -> None:
        """The flag threshold is a project setting: every reviewer shares it."""
        if self.project is None:
            return
        current = rank_settings(self.project)
        if threshold != current.threshold:
            save_rank_settings(
                self.project, replace(current, threshold=threshold), self.user or "unknown"
            )
            self.reviewer.reread()  # redraw the flags

    def _review_order(self, order: str) -> None:
        if self.review_queue is not None:
            self.reviewer.run(self.review_queue.reorder, order)

    # -- project -----------------------------------------------------------------------

    def _on_closing(self) -> None:
        """Keep what was typed: write it into the project being left, while it is open."""
        self.writer.flush()
        self.writer.bind(None)
        self.reviewer.bind(None)
        self.writing = self.review = self.review_queue = None
        self._team_pair = None

    def _on_settings(self) -> None:
        """The name (Settings) or the caption policy (another pane, the CLI) changed."""
        if self.project is None:
            return
        if self.workspace.user_name != self.user:
            self.writer.flush()
            self._start_sessions()
            return
        policy = load_policy(self.project)
        if self.writing is not None and policy != self.writing.policy:
            self._show_policy(policy)
            self.writing.policy = policy
            self.refresh_progress()

    def _on_work_changed(self) -> None:
        """New pairs, or captions written elsewhere: an idle session finds its next item."""
        if self.writing is not None and self.writer.item is None:
            self.writer.refresh()
        if self.review is not None:
            self.reviewer.idle_refresh()
        self.refresh_progress()

    def show_project(self, project: Project | None) -> None:
        self.project = project
        self.rank_worker.forget()
        if project is None:
            self.writer.bind(None)
            self.reviewer.bind(None)
            self.writing = self.review = self.review_queue = None
            self._stack.setCurrentIndex(2 if self.team_mode() else 0)
            return
        self._stack.setCurrentIndex(2 if self.team_mode() else 1)
        self._start_sessions()
        self._preloaded = None
        if self.isVisible():
            self._preload_ranker()
        if self.writer.editor.text().strip():
            self.rank_view.fire()  # a restored draft: its rank now, not after a keystroke

    def _preload_ranker(self) -> None:
        """Once the pane shows a project, open its ranker (model, index) on the model lane,
        so the first rank does not wait for the model to load."""
        project = self.project
        if project is None or self._preloaded is project:
            return
        self._preloaded = project
        pair_id = self.writer.pair_id if self.panels.currentWidget() is self.writer else None
        with suppress(StudioError, ValueError):  # bad rank settings: the first rank says so
            self.rank_worker.preload(project, rank_settings(project), pair_id)

    def showEvent(self, event) -> None:  # noqa: N802 (Qt name)
        super().showEvent(event)
        self._preload_ranker()

    def _start_sessions(self) -> None:
        project = self.project
        if project is None:
            return
        self.user = self.workspace.user_name
        where = (
            "this work package's person, here only"
            if self.workspace.acting_as
            else "change in File → Settings"
        )
        self.user_label.setText(f"Working as <b>{self.user}</b> ({where})")
        policy = load_policy(project)
        self._show_policy(policy)
        queue = LocalCaptionQueue(project, self.user, policy)
        self.writing = queue.session
        self.review_queue = LocalReviewQueue(project, self.user,
                                             self.rank_line.order.currentData())
        self.review = self.review_queue.session
        self.writer.bind(queue, self.local_calls)
        self.reviewer.bind(self.review_queue, self.local_calls)
        self.set_mode(self.modes.checkedId())

    def _show_policy(self, policy: CaptionPolicy) -> None:
        self.per_pair.blockSignals(True)
        self.distinct.blockSignals(True)
        self.per_pair.setValue(policy.per_pair)
        self.distinct.setChecked(policy.distinct_authors)
        self.per_pair.blockSignals(False)
        self.distinct.blockSignals(False)

    def set_mode(self, mode: int) -> None:
        """0: write, 1: review."""
        self.writer.flush()
        self.modes.button(mode).setChecked(True)
        self.panels.setCurrentIndex(mode)
        if mode == 0:
            self.writer.show_again()  # redraw the pair of this mode
        else:
            self.reviewer.show_again()
        self.refresh_progress()

    def focus_widget(self) -> QWidget | None:
        if self.team_mode():
            panel = self.team_panels.currentWidget()
            return panel.editor if isinstance(panel, (CaptionWriter, CaptionReviewer)) else None
        panel = self.panels.currentWidget()
        return panel.editor if isinstance(panel, (CaptionWriter, CaptionReviewer)) else None

    def _policy_changed(self, *_args) -> None:
        if self.project is None:
            return
        policy = CaptionPolicy(self.per_pair.value(), self.distinct.isChecked())
        try:
            save_policy(self.project, policy, self.user)
        except StudioError as error:  # a busy or read-only project: show what holds
            self.writer.state.setText(str(error))
            self._show_policy(load_policy(self.project))
            return
        if self.writing is not None:
            self.writing.policy = policy
        self.refresh_progress()

    def _show_pair(self, pair_id: int | None, panel: QWidget) -> None:
        if self.panels.currentWidget() is not panel:
            return
        images = pair_images(self.project, pair_id) if self.project and pair_id else None
        self._shown_pair = pair_id if images is not None else None
        if images is None:
            self.view.clear()
        else:
            self.view.show_pair(self.project, *images)
            self._warm_rank(pair_id)
        self._progress_timer.start()

    def _show_pictures_again(self) -> None:
        """The pictures moved (Set Image Folder…): the pair on screen redraws in place."""
        pair_id = self._shown_pair
        images = pair_images(self.project, pair_id) if self.project and pair_id else None
        if images is not None:
            self.view.show_pair(self.project, *images)

    def _warm_rank(self, pair_id: int | None) -> None:
        """The pair on screen will be ranked as soon as the person types: build its
        gallery on the model lane now (cached, so showing the next pair costs nothing)."""
        if self.project is None or pair_id is None or not self.isVisible():
            return
        with suppress(StudioError, ValueError):  # bad rank settings: the first rank says so
            self.rank_worker.preload(self.project, rank_settings(self.project), pair_id)

    def refresh_progress(self) -> Future | None:
        """Count what is left and who wrote what on the IO lane, and show it here: the
        counts scan the project's pairs and captions (tens of ms at 100,000 pairs), which
        must not stall typing after every autosave."""
        if self.project is None or self.writing is None or self.review is None:
            return None
        mode = "write" if self.panels.currentIndex() == 0 else "review"
        session = self.writing if mode == "write" else self.review
        project, user = self.project, self.user

        def read_counts() -> tuple[list[dict], int]:
            return annotator_throughput(project), session.remaining()

        def show(counts: tuple[list[dict], int]) -> None:
            if self.project is project:
                self.progress.show_counts(counts[0], user, counts[1], mode)

        return self.scope.submit(self.services.io, read_counts, done=show, failed=self._progress_failed)

    def _progress_failed(self, error: BaseException) -> None:
        """The counts could not be read (a closed or busy project): keep the last ones."""
        if not isinstance(error, StudioError):
            self.services.errors.report_exception(error, f"Counting progress failed: {error}")

    # -- visibility --------------------------------------------------------------------

    def hideEvent(self, event) -> None:  # noqa: N802 (Qt name)
        self.writer.flush()
        super().hideEvent(event)
