"""Quality: rate multi-turn transactions blind, see the report, manage transactions.

Three tabs. *Rate* is the rater's view and never names a dataset; *Report* and
*Transactions* are for whoever runs the study.
"""

from __future__ import annotations

from PySide6.QtWidgets import QStackedLayout, QTabWidget, QWidget

from studio.store import Project
from studio.work_queue.local_rating import LocalRatingQueue
from studio.work_queue.rating_protocol import RatingQueue
from studio.work_queue.remote_rating import RemoteRatingQueue
from widgets.panes.pane import Pane, empty_state
from widgets.project_signals import follow
from widgets.quality_report_view import QualityReportView
from widgets.rating_pictures import LocalPictures, PictureSource, TeamTurnPictures
from widgets.rating_view import RatingView
from widgets.services import Services
from widgets.transactions_view import TransactionsView


class QualityPane(Pane):
    title = "Quality"
    tooltip = ("Rate multi-turn transactions blind on accuracy, historical awareness, "
               "granularity, consistency and coverage")

    def __init__(self, services: Services, parent: QWidget | None = None) -> None:
        super().__init__(services, parent)
        workspace, runner = self.workspace, self.runner
        self._stack = QStackedLayout(self)
        self._stack.addWidget(empty_state(
            "No project open", "Open a project, then import or draft transactions to rate."))
        self.tabs = QTabWidget()
        self.rating = RatingView(workspace, self._local_queue)
        self.report = QualityReportView(workspace, runner)
        self.transactions = TransactionsView(workspace)
        self.tabs.addTab(self.rating, "Rate")
        self.tabs.addTab(self.report, "Report")
        self.tabs.addTab(self.transactions, "Transactions")
        self.tabs.currentChanged.connect(self._tab_changed)
        self._stack.addWidget(self.tabs)
        # A rater connected to a team server rates the server's turns (no project needed).
        # One rating view for both: the Rate tab binds the project's queue of the rater
        # picked, this one the server's queue of whoever connected.
        self.team_rating = RatingView()
        self.team_rating.setObjectName("team_rating")
        self._stack.addWidget(self.team_rating)
        team = services.team
        team.identity_changed.connect(self._team_changed)
        team.back_online.connect(self.team_rating.idle_refresh)
        team.changed.connect(self.team_rating.check_waiting)
        self._report_stale = True
        follow(self, workspace, ("ratings", "transactions", "people", "settings"),
               self.rating.refresh)
        follow(self, workspace, ("transactions", "ratings"), self.transactions.refresh)
        follow(self, workspace, ("ratings", "transactions", "images"), self._report_changed)

    def team_mode(self) -> bool:
        team = self.services.team
        return team.connected and team.role == "rater"

    def _local_queue(self, rater: str, sample: str) -> tuple[RatingQueue, PictureSource]:
        """The Rate tab's queue: the project's, of the rater and sample picked."""
        project = self.workspace.project
        assert project is not None  # the Rate tab shows only with a project open
        queue = LocalRatingQueue(project, rater, sample)
        return queue, LocalPictures(queue)

    def _team_changed(self) -> None:
        team = self.services.team
        if self.team_mode() and team.client is not None:
            self._stack.setCurrentIndex(2)
            queue = RemoteRatingQueue(team.client, team.name)
            self.team_rating.bind(queue, team.queue_calls(queue, self.team_rating),
                                  TeamTurnPictures(team))
            return
        self.team_rating.bind(None)
        self._stack.setCurrentIndex(0 if self.workspace.project is None else 1)

    def focus_widget(self) -> QWidget | None:
        """The rating form takes 1–5, S and F; the other tabs their own widgets."""
        if self.team_mode():
            return self.team_rating.form
        if self.tabs.currentWidget() is self.rating:
            return self.rating.form if self.rating.form.isEnabled() else self.rating
        return self.tabs.currentWidget()

    def show_project(self, project: Project | None) -> None:
        self.rating.bind(None)
        if project is None:
            self._stack.setCurrentIndex(2 if self.team_mode() else 0)
            return
        self.rating.refresh()
        self.transactions.refresh()
        self._report_changed()
        self._stack.setCurrentIndex(2 if self.team_mode() else 1)

    def _report_changed(self) -> None:
        """The report costs a few queries and a chart: build it now only if it is in view."""
        self._report_stale = True
        if self.tabs.currentWidget() is self.report and self.workspace.project is not None:
            self._report_stale = False
            self.report.refresh()

    def _tab_changed(self, _index: int) -> None:
        if self._report_stale:
            self._report_changed()
