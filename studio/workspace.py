"""What the studio has open: the current project and the user's settings.

Views subscribe to ``project_changed`` instead of holding their own copy, so opening
another project updates every pane at once, and to ``events`` (one event per kind of
project data, see ``studio.project_events``) so a change made anywhere shows everywhere.
``events`` outlives any one project: the workspace forwards the open project's events
to it, through ``dispatch`` (which the Qt shell points at its UI thread), and emits
``events.settings`` when the user's own settings change.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from studio.events import Event
from studio.project_events import ProjectEvents
from studio.settings import Settings
from studio.store import Project
from studio.store.pg_database import without_password

Dispatcher = Callable[[Callable[[], None]], None]


def _call_now(function: Callable[[], None]) -> None:
    function()


class Workspace:
    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings.load()
        self.project: Project | None = None
        self.project_changed = Event()
        self.events = ProjectEvents()
        self.dispatch: Dispatcher = _call_now
        # A name taken for the open project only (a work package's person): it never
        # reaches the settings, and it goes when that project closes (issue 27, D2).
        self.acting_as: str | None = None

    def save_settings(self) -> None:
        """Save the user's settings and tell every view (the name shows in several)."""
        self.settings.save()
        self.events.emit("settings")

    def _forward(self, kind: str) -> None:
        project = self.project

        def emit() -> None:
            if self.project is project and project is not None:
                self.events.emit(kind)

        self.dispatch(emit)

    def open_project(self, path: Path | str) -> Project:
        """Open a project: a path (SQLite) or a ``postgresql://`` URL."""
        project = Project.open(path)
        self._replace(project)
        return project

    def create_project(self, path: Path, name: str = "", image_root: Path | None = None) -> Project:
        project = Project.create(path, name=name, image_root=image_root)
        self._replace(project)
        return project

    def close_project(self) -> None:
        self._replace(None)

    def work_as(self, person: str | None) -> None:
        """Work as ``person`` in the open project only (None: as yourself again).

        Views hear it as a settings change (the name shows in several); the saved name in
        Settings is untouched, and leaving the project ends it.
        """
        self.acting_as = person if self.project is not None and person else None
        self.events.emit("settings")

    def _replace(self, project: Project | None) -> None:
        old = self.project
        if old is not None:
            # Views flush what they hold while the old project is still open.
            self.events.closing.emit()
            old.events.changed.disconnect(self._forward)
            old.close()
        self.acting_as = None  # the package's person stays with the package
        self.project = project
        if project is not None:
            project.events.changed.connect(self._forward)
            # A PostgreSQL project is remembered by its URL without the password
            # (~/.pgpass or PGPASSWORD supply it when reopened).
            self.settings.remember_project(
                without_password(project.url) if project.url else project.path
            )
            self.settings.save()
        self.project_changed.emit(project)

    @property
    def user_name(self) -> str:
        """Who is working: the name taken for this project, the configured name, the login."""
        if self.acting_as:
            return self.acting_as
        if self.settings.user_name:
            return self.settings.user_name
        import getpass

        try:
            return getpass.getuser()
        except (OSError, KeyError):
            return "anonymous"
