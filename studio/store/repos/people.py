"""People: who made, reviewed or rated something (``Project.ensure_person`` adds them)."""

from __future__ import annotations

from studio.store.project import Project
from studio.store.records import Person


def find_person(project: Project, name: str) -> Person | None:
    """The person called ``name``, or None; never adds anyone."""
    row = project.db.execute(
        "SELECT id, name, role FROM people WHERE name = :name", {"name": name.strip()}
    ).fetchone()
    return None if row is None else Person(int(row[0]), str(row[1]), row[2])
