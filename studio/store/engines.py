"""Which engine holds a project, chosen by its location (MLflow's store-registry shape).

A path (``foo.cirdb`` or a folder holding ``project.cirdb``) is SQLite, exactly as
before; a URL names its engine by its scheme: ``postgresql://user@host/db`` or
``postgresql:///db?host=/socket/dir`` is PostgreSQL. Adding an engine is adding a scheme
here and a database class with the surface ``studio.store.pg_database`` documents.
"""

from __future__ import annotations

from pathlib import Path

SQLITE = "sqlite"
POSTGRESQL = "postgresql"

# URL scheme -> engine name
SCHEMES: dict[str, str] = {"postgresql": POSTGRESQL, "postgres": POSTGRESQL}


def is_url(location: object) -> bool:
    """Whether ``location`` is a URL (``scheme://…``) rather than a file path."""
    return isinstance(location, str) and "://" in location


def engine_for(location: str | Path) -> str:
    """The engine of a project location; an unknown scheme is refused by name."""
    if not is_url(location):
        return SQLITE
    scheme = str(location).split("://", 1)[0].lower()
    engine = SCHEMES.get(scheme)
    if engine is None:
        from studio.errors import ProjectError

        known = ", ".join(f"{s}://" for s in SCHEMES)
        raise ProjectError(
            f"{location}: no engine for '{scheme}://' projects; use a file path (SQLite) or "
            f"one of {known}."
        )
    return engine
