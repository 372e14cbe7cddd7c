"""What the studio has open: the current project and the user's settings.

Views subscribe to ``project_changed`` instead of holding their own copy, so opening
another project updates every pane at once.
"""

from __future__ import annotations

from pathlib import Path

from studio.events import Event
from studio.settings import Settings
from studio.store import Project


class Workspace:
    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings.load()
        self.project: Project | None = None
        self.project_changed = Event()

    def open_project(self, path: Path) -> Project:
        project = Project.open(path)
        self._replace(project)
        return project

    def create_project(self, path: Path, name: str = "", image_root: Path | None = None) -> Project:
        project = Project.create(path, name=name, image_root=image_root)
        self._replace(project)
        return project

    def close_project(self) -> None:
        self._replace(None)

    def _replace(self, project: Project | None) -> None:
        if self.project is not None:
            self.project.close()
        self.project = project
        if project is not None:
            self.settings.remember_project(project.path)
            self.settings.save()
        self.project_changed.emit(project)

    @property
    def user_name(self) -> str:
        """Who is working: the configured name, else the login name."""
        if self.settings.user_name:
            return self.settings.user_name
        import getpass

        try:
            return getpass.getuser()
        except (OSError, KeyError):
            return "anonymous"
