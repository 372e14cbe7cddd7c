"""A project the user may not write, as ``Project.open`` finds it."""

from __future__ import annotations

from studio.store import Project


def as_read_only(project: Project) -> None:
    """What Project.open finds for a file the user may not write. The tests run as root,
    whom permissions do not stop, so the test says it; tests/reliability runs the same
    refusal as an unprivileged user on a chmod'ed folder."""
    project.read_only_reason = "the file is read-only"
    project.db.execute("PRAGMA query_only = ON")
