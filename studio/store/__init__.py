"""The project store: one SQLite file per project, opened through sqlite-utils."""

from studio.store.project import Project, resolve_project_path

__all__ = ["Project", "resolve_project_path"]
