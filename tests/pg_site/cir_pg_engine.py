"""PostgreSQL for the tests: a throwaway server, fresh databases, and the test engine.

``start_server(folder)`` starts PostgreSQL 16 from the ``pgserver`` wheel (binaries from
the package registry, nothing from the OS) in ``folder``, listening on a Unix socket
there only. ``new_database(admin_url)`` makes an empty database and returns its URL.

``install()`` is the test engine: with ``CIR_STUDIO_TEST_ENGINE=postgresql`` every
project a test creates *by path* is made on PostgreSQL instead, and a small link file at
that path says where it went, so the test's later ``Project.open(path)`` (in this
process, a worker or a ``cir-studio`` subprocess: ``sitecustomize`` installs it there)
finds it. A link file copied with its folder (``shutil.copytree`` of the demo project)
is a copy: the first open clones the database, so tests stay as independent as copies
of a SQLite file are. Link files are a test device only; the studio knows nothing of them.
"""

from __future__ import annotations

import itertools
import os
import secrets
import shutil
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ENGINE_VARIABLE = "CIR_STUDIO_TEST_ENGINE"
SERVER_VARIABLE = "CIR_STUDIO_TEST_PG_URL"
LINK_HEADER = "CIR-STUDIO-TEST-LINK\n"
_counter = itertools.count(1)


def start_server(folder: Path) -> Any:
    """Start a server in ``folder``; raises with the reason when it cannot."""
    try:
        import pgserver
    except ImportError as error:
        raise RuntimeError(
            "PostgreSQL tests need the 'pgserver' wheel: pip install -e '.[test]' "
            f"({error})."
        ) from error
    folder.mkdir(parents=True, exist_ok=True)
    server = pgserver.get_server(folder, cleanup_mode="delete")
    admin = server.get_uri()
    import psycopg

    with psycopg.connect(admin, autocommit=True) as conn:
        # A throwaway server: no durability against power loss needed, speed is.
        conn.execute("ALTER SYSTEM SET fsync = off")
        conn.execute("ALTER SYSTEM SET full_page_writes = off")
        conn.execute("ALTER SYSTEM SET max_connections = 300")
        conn.execute("SELECT pg_reload_conf()")
    return server


def discard_server(server: Any, folder: Path) -> None:
    """Stop a throwaway server at once and delete its files after this process ends: its
    hundreds of test databases are gigabytes, and a clean shutdown and delete took 20-240 s
    of a test run's last teardown under load (nothing in them is kept)."""
    import signal
    import subprocess

    process = server._postmaster_info.process if server._postmaster_info else None
    if process is not None and process.is_running():
        process.send_signal(signal.SIGQUIT)  # PostgreSQL's immediate shutdown
        process.wait(30)
    server.cleanup_mode = None  # stopped here; pgserver deletes nothing more
    server.cleanup()
    subprocess.Popen(["rm", "-rf", str(folder)], start_new_session=True,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + name))


def new_database(admin_url: str, template: str | None = None) -> str:
    """An empty database (or a copy of ``template``), and its URL."""
    import psycopg

    name = f"t_{os.getpid()}_{next(_counter)}_{secrets.token_hex(2)}"
    source = f"TEMPLATE {template}" if template else "TEMPLATE template0"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name} {source}")
    return with_database(admin_url, name)


def engine_is_postgresql() -> bool:
    return os.environ.get(ENGINE_VARIABLE, "sqlite").lower() in {"postgresql", "postgres", "pg"}


def install() -> None:
    """Route path projects to PostgreSQL (see the module docstring). Idempotent."""
    from studio.store.project import Project, resolve_project_path

    if getattr(Project, "_test_engine_installed", False):
        return
    admin = os.environ[SERVER_VARIABLE]
    original_create = Project.create.__func__  # type: ignore[attr-defined]
    original_open = Project.open.__func__  # type: ignore[attr-defined]

    def create(cls, path, name="", image_root=None, **options):  # noqa: ANN001, ANN202
        from studio.errors import ProjectError
        from studio.store.engines import is_url

        if is_url(path) or options:
            return original_create(cls, path, name, image_root, **options)
        target = resolve_project_path(path)
        if target.exists():
            raise ProjectError(f"{target} already exists; open it instead of creating it.")
        target.parent.mkdir(parents=True, exist_ok=True)
        if not os.access(target.parent, os.W_OK):
            from studio.errors import ProjectReadOnlyError

            raise ProjectReadOnlyError(
                f"Cannot create {target}: the folder {target.parent} is read-only."
            )
        project = _create_from_template(cls, admin, original_create, target, name, image_root)
        _write_link(target, project.url)
        return project

    def open_(cls, path, **options):  # noqa: ANN001, ANN003, ANN202
        from studio.store.engines import is_url

        if is_url(path):
            return original_open(cls, path, **options)
        target = resolve_project_path(path)
        link = _read_link(target)
        if link is None:
            return original_open(cls, path, **options)
        url, recorded = link
        if Path(recorded) != target.resolve():
            url = _clone(admin, url, Path(recorded), target.resolve())
            _write_link(target, url)
        return original_open(cls, url, **options)

    Project.create = classmethod(create)  # type: ignore[method-assign, assignment]
    Project.open = classmethod(open_)  # type: ignore[method-assign, assignment]
    Project._test_engine_installed = True  # type: ignore[attr-defined]


_TEMPLATE: dict[str, str] = {}
_PER_PROJECT_META = ("name", "image_root", "local_path", "created_at")


def _create_from_template(cls, admin, original_create, target, name, image_root):  # noqa: ANN001, ANN202
    """``Project.create`` at ``target``, from a database that already has the schema.

    Running every migration's DDL for each of hundreds of test projects is most of the
    PostgreSQL run's time; a schema-only template made once by the real ``create`` (its
    per-project meta rows removed) is copied instead, and the rows ``create`` writes
    (name, image root, anchor, time, fresh project and origin ids) are written as it does.
    """
    import psycopg

    from studio.store.database import utc_now

    key = f"{admin}:{os.getpid()}"
    if key not in _TEMPLATE:
        url = new_database(admin)
        scratch = Path(tempfile.mkdtemp(prefix="cir-pg-template-"))
        original_create(cls, url, "template", None, local_path=scratch / "project.pg").close()
        shutil.rmtree(scratch, ignore_errors=True)
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("DELETE FROM meta WHERE key = ANY(%s)", [list(_PER_PROJECT_META)])
        _TEMPLATE[key] = urlsplit(url).path.lstrip("/")
    url = new_database(admin, template=_TEMPLATE[key])
    project = cls(target, url=url)
    root = Path(image_root) if image_root is not None else target.parent / "images"
    meta = {
        "name": name or target.parent.name,
        "image_root": project._portable_root(root),
        "local_path": str(target),
        "created_at": utc_now(),
    }
    with psycopg.connect(url, autocommit=True) as conn:
        for meta_key, value in meta.items():
            conn.execute("INSERT INTO meta (key, value) VALUES (%s, %s)", [meta_key, value])
        conn.execute(
            "UPDATE meta SET value = cir_uid() WHERE key IN ('project_id', 'origin_id')"
        )
    project.close()
    return _open_url(cls, url)


def _open_url(cls, url):  # noqa: ANN001, ANN202
    from studio.store.pg_project import open_postgresql

    return open_postgresql(cls, url)


def _write_link(target: Path, url: str) -> None:
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}.link")
    temporary.write_text(f"{LINK_HEADER}{url}\n{target.resolve()}\n")
    os.replace(temporary, target)


def _read_link(target: Path) -> tuple[str, str] | None:
    try:
        with open(target) as handle:
            if handle.read(len(LINK_HEADER)) != LINK_HEADER:
                return None
            url, recorded = handle.read().splitlines()[:2]
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return url, recorded


def _clone(admin: str, url: str, old: Path, new: Path) -> str:
    """A copied link: give the copy its own database, its folders moved with it."""
    import psycopg

    name = urlsplit(url).path.lstrip("/")
    try:
        copy = new_database(admin, template=name)
    except psycopg.errors.ObjectInUse:  # the original is open: copy it record by record
        from studio.store.transfer import copy_project

        copy = new_database(admin)
        copy_project(url, copy)
    with psycopg.connect(copy, autocommit=True) as conn:
        for key in ("image_root", "cache_dir", "local_path"):
            row = conn.execute("SELECT value FROM meta WHERE key = %s", [key]).fetchone()
            if row is None:
                continue
            value = Path(row[0])
            if key == "local_path":
                moved = new
            elif value.is_relative_to(old.parent):
                moved = new.parent / value.relative_to(old.parent)
            else:
                continue
            conn.execute("UPDATE meta SET value = %s WHERE key = %s", [str(moved), key])
    return copy
