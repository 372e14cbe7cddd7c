"""A project: one database (an SQLite file, or a PostgreSQL database named by a URL), an
image root, and a cache folder (beside the SQLite file; named in a PostgreSQL project's meta).

Each thread gets its own connection (SQLite connections are not shared across threads),
so a background job can write while the UI reads. Every change a person makes goes
through ``Project.change``: one transaction plus one audit-log row.
"""

from __future__ import annotations

import json
import os
import secrets
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, cast

from studio.errors import ImagePathError, ProjectError, ProjectReadOnlyError
from studio.project_events import KINDS, ProjectEvents, kinds_for
from studio.store import binds, pg_database, thread_connections
from studio.store.database import (
    StudioDatabase,
    check_header,
    connect,
    migrate,
    read_only_reason,
    refuse_outdated,
    schema_version,
    utc_now,
)
from studio.store.engines import is_url
from studio.store.records import ROLES, ImageRecord, Person

PROJECT_SUFFIX = ".cirdb"
DEFAULT_FILE_NAME = "project" + PROJECT_SUFFIX


def resolve_project_path(path: Path | str) -> Path:
    """Accept either the database file or the folder that holds ``project.cirdb``."""
    path = Path(path).expanduser()
    if path.is_dir() or (not path.suffix and not path.exists()):
        return path / DEFAULT_FILE_NAME
    return path


def _weakly(method: Callable[[], None]) -> Callable[[], None]:
    """``method`` called through a weak reference to its object: the project's events call
    back into the project without keeping it alive."""
    held = weakref.WeakMethod(method)

    def call() -> None:
        found = held()
        if found is not None:
            found()

    return call


class Project:
    """An open project. Create with ``Project.create`` or ``Project.open``."""

    def __init__(self, path: Path, url: str | None = None) -> None:
        # ``path``: the SQLite file; for PostgreSQL (``url``) a local anchor that is never a
        # file: its folder holds the images and the cache, as a SQLite project's folder does.
        self.path = Path(path).resolve()
        self.url = url
        self.engine = "postgresql" if url else "sqlite"
        self._local = threading.local()
        self._connections: list[tuple[threading.Thread, Any]] = []  # (owner, connection)
        self._token = secrets.token_hex(8)  # tells this project's own NOTIFYs from others'
        self._listener: Any = None
        self._may_listen = False  # opened, not closed: a listener may start (``listen``)
        self._watcher: Any = None  # SQLite: other programs' commits (``poll_changes``)
        self._own_audit: set[int] = set()  # audit ids this object wrote (heard already)
        self._lock = threading.Lock()
        self.backup_path: Path | None = None
        # Why the project cannot be written (None: it can); set by ``open``.
        self.read_only_reason: str | None = None
        self._journal = "WAL"
        self.events = ProjectEvents(heard=_weakly(self._listened_to))

    # -- lifecycle -------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        path: Path | str,
        name: str = "",
        image_root: Path | None = None,
        *,
        local_path: Path | None = None,
    ) -> Project:
        """Create a new project file; refuses to overwrite an existing one.

        Atomic: the file is built beside the target under a temporary name (in rollback-
        journal mode, so every commit is in the file itself, with no write-ahead log to
        carry along), its schema and meta committed, and only then linked into place; its
        first connection there switches it to WAL. A crash at any
        point leaves either no project or a complete one (never a file ``open`` refuses);
        a leftover temporary file of a dead process is removed by the next ``create``.

        A ``postgresql://`` URL creates the project in that (existing, empty) database;
        ``local_path`` is its local anchor (see ``__init__``), by default
        ``<image_root's folder or the current folder>/project.pg``.
        """
        if is_url(path):
            from studio.store.pg_project import create_postgresql

            return create_postgresql(cls, str(path), name, image_root, local_path)
        path = resolve_project_path(path)
        if path.exists():
            raise ProjectError(f"{path} already exists; open it instead of creating it.")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ProjectError(f"Cannot create the folder {path.parent}: {error}") from error
        if not os.access(path.parent, os.W_OK):
            raise ProjectReadOnlyError(
                f"Cannot create {path}: the folder {path.parent} is read-only."
            )
        _remove_dead_builds(path)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.creating")
        builder = cls(temporary)
        builder._journal = "DELETE"  # no write-ahead log: each commit lands in the file itself
        try:
            migrate(builder.db, temporary)
            root = Path(image_root) if image_root is not None else path.parent / "images"
            with builder.db.atomic():
                builder.set_meta("name", name or path.parent.name)
                builder.set_meta("image_root", builder._portable_root(root))
                builder.set_meta("created_at", utc_now())
        except BaseException:
            builder.close()
            _remove_build(temporary)
            raise
        builder.close()
        _publish(temporary, path)
        project = cls(path)
        project.db  # noqa: B018 - connect now: the file switches to WAL at once
        return project

    @classmethod
    def open(cls, path: Path | str, *, upgrade: bool = True) -> Project:
        """Open an existing project, backing up and migrating an older schema first.

        The file's header is checked before SQLite touches it (SQLite would write a header
        into an empty file). A file or folder that cannot be written is opened read-only:
        reading works, and a write says which permission is missing.
        A ``postgresql://`` URL opens the project in that database. ``upgrade=False`` (the
        team server's workers) refuses an older schema instead of migrating it: migrations
        run at ``server start`` or ``server migrate``, never inside a request.
        """
        if is_url(path):
            from studio.store.pg_project import open_postgresql

            return open_postgresql(cls, str(path), upgrade=upgrade)
        path = resolve_project_path(path)
        if not path.is_file():
            raise ProjectError(f"No project at {path}: the file does not exist.")
        check_header(path)
        project = cls(path)
        project.read_only_reason = read_only_reason(project.path)
        try:
            if schema_version(project.db) == 0:
                raise ProjectError(f"{path} is not a CIR Studio project (it has no schema).")
            if not upgrade:
                refuse_outdated(project.db, str(path))
            project.backup_path = migrate(project.db, project.path)
        except Exception:
            project.close()
            raise
        return project

    def close(self) -> None:
        """Tell listeners the project is closing (they flush what they hold), then close."""
        if self._connections:
            self.events.closing.emit()
        with self._lock:
            self._may_listen = False
            listener, self._listener = self._listener, None
        if listener is not None:
            listener.stop()
        if self._watcher is not None:
            self._watcher.close()
            self._watcher = None
        with self._lock:
            for owner, db in self._connections:
                thread_connections.hand_back(owner, db)  # another thread's: it closes it
            self._connections.clear()
        self._local = threading.local()

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def read_only(self) -> bool:
        return self.read_only_reason is not None

    @property
    def db(self) -> StudioDatabase:
        """This thread's connection, opened on first use (PostgreSQL: again after the
        server dropped it, so a restarted server costs one failed write, not the session)."""
        thread_connections.close_mine()
        db = getattr(self._local, "db", None)
        if db is not None and self.url is not None and db.raw.broken:
            with self._lock:
                self._connections = [(t, d) for t, d in self._connections if d is not db]
            db.close()
            db = None
        if db is None:
            if self.url is not None:
                # PgDatabase answers the part of StudioDatabase's surface the store uses.
                db = cast(StudioDatabase, pg_database.connect(self.url, self.read_only_reason))
            else:
                db = connect(self.path, self.read_only_reason, journal=self._journal)
            self._local.db = db
            with self._lock:
                self._close_orphans()
                self._connections.append((threading.current_thread(), db))
        return db

    def _close_orphans(self) -> None:
        """Close the connections of threads that ended (a finished job's worker, a server
        request thread that was replaced): they would stay open until the project closes,
        and on PostgreSQL every one holds a server connection."""
        alive = []
        for owner, db in self._connections:
            if owner.is_alive():
                alive.append((owner, db))
            else:
                thread_connections.hand_back(owner, db)
        self._connections = alive

    @property
    def pg_db(self) -> pg_database.PgDatabase:
        """This thread's connection of a PostgreSQL project (its engine-only operations)."""
        if self.url is None:
            raise ProjectError(f"{self.path} is an SQLite project, not a PostgreSQL one.")
        return cast(pg_database.PgDatabase, self.db)

    # -- locations -------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.get_meta("name") or self.path.stem

    @property
    def image_root(self) -> Path:
        return self._image_places()[0]

    @property
    def location(self) -> str:
        """What opens this project again: the file's path, or the PostgreSQL URL."""
        return self.url if self.url is not None else str(self.path)

    @property
    def shown_location(self) -> str:
        """Where the project is, for people to read: the file's path, or the PostgreSQL URL
        without its password (``path`` of such a project is only a local anchor)."""
        return pg_database.without_password(self.url) if self.url is not None else str(self.path)

    @property
    def cache_dir(self) -> Path:
        """Embeddings and indexes live beside the database, never inside it (a PostgreSQL
        project names its cache folder in its meta: files stay on this machine)."""
        if self.url is not None:
            stored = self.get_meta("cache_dir")
            if stored:
                return (self.path.parent / stored).resolve()
        return self.path.with_name(self.path.stem + ".cache")

    def image_folders(self) -> list[Path]:
        """Where this project's image files may lie: the image root, and every folder an
        import registered (a dataset's image folder outside the root)."""
        return self._image_places()[1]

    def _image_places(self) -> tuple[Path, list[Path]]:
        """The image root (as ``image_root``) and the resolved image folders, from one
        query (this runs for every image path a view, job or server request asks for); the
        paths are worked out again only when the stored values changed."""
        rows = dict(
            self.db.execute(
                "SELECT key, value FROM meta WHERE key IN ('image_root', 'image_folders')"
            ).fetchall()
        )
        key = (rows.get("image_root") or "", rows.get("image_folders") or "[]")
        cached = getattr(self._local, "places", None)
        if cached is not None and cached[0] == key:
            return cached[1], list(cached[2])
        root = Path(key[0] or "images")
        if not root.is_absolute():
            root = (self.path.parent / root).resolve()
        folders = [root]
        for stored in json.loads(key[1]):
            folder = Path(stored)
            folders.append(folder if folder.is_absolute() else (self.path.parent / folder))
        resolved = [folder.resolve() for folder in folders]
        self._local.places = (key, root, resolved)
        return root, list(resolved)

    def add_image_folder(self, folder: Path) -> None:
        """Register ``folder`` as a place images may lie (call inside the import's change)."""
        folder = Path(folder).expanduser().resolve()
        if any(folder.is_relative_to(known) for known in self.image_folders()):
            return
        stored = json.loads(self.get_meta("image_folders") or "[]")
        self.set_meta("image_folders", json.dumps([*stored, self._portable_root(folder)]))

    def image_path(self, image: ImageRecord) -> Path:
        """The image's file. A stored path that leads outside the project's image folders
        (``../`` steps, an absolute path, or a link pointing elsewhere) is refused rather
        than read: a project file from someone else must not make the studio read, hash or
        pack files it has no business with."""
        return self.stored_file(image.path, image.id)

    def stored_file(self, relative: str, image_id: str = "") -> Path:
        """``image_path`` for a path as stored in the images table.

        ``../`` steps are collapsed against the (resolved) image root, so a path into a
        registered folder beside it works even when the image root folder does not exist.
        """
        root, folders = self._image_places()
        path = Path(os.path.normpath(root / relative))
        resolved = path.resolve()
        if not any(resolved.is_relative_to(folder) for folder in folders):
            raise ImagePathError(
                f"Image {image_id!r}: its stored path {relative!r} leads outside the "
                f"project's image folders ({root}); it is not read."
            )
        return path

    def image_file(self, image: ImageRecord) -> Path | None:
        """``image_path`` for views: None (shown as missing) where the path is refused."""
        try:
            return self.image_path(image)
        except ImagePathError:
            return None

    def _portable_root(self, root: Path) -> str:
        """Store the image root relative to the database when it lies below it."""
        root = Path(root).expanduser().resolve()
        try:
            return root.relative_to(self.path.parent).as_posix() or "."
        except ValueError:
            return str(root)

    # -- meta ------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = :key", {"key": key}).fetchone()
        return None if row is None else row[0]

    def get_metas(self, *keys: str) -> dict[str, str | None]:
        """Several settings in one statement (None where unset)."""
        marks, params = binds.in_list("key", keys)
        rows = self.db.execute(f"SELECT key, value FROM meta WHERE key IN ({marks})", params)
        found = dict(rows.fetchall())
        return {key: found.get(key) for key in keys}

    def get_metas_later(self, *keys: str) -> Callable[[], dict[str, str | None]]:
        """``get_metas`` sent with the transaction's next statement (``db.defer``: no
        round trip of its own on PostgreSQL); call the answer to read the settings."""
        marks, params = binds.in_list("key", keys)
        answer = self.db.defer(f"SELECT key, value FROM meta WHERE key IN ({marks})", params)

        def read() -> dict[str, str | None]:
            found = {row["key"]: row["value"] for row in answer.rows()}
            return {key: found.get(key) for key in keys}

        return read

    def set_meta(self, key: str, value: str) -> None:
        with self.writing("settings"):
            self.db.execute(
                "INSERT INTO meta (key, value) VALUES (:key, :value) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                {"key": key, "value": value},
            )

    @property
    def schema_version(self) -> int:
        return schema_version(self.db)

    # -- changes ---------------------------------------------------------------------

    @contextmanager
    def writing(self, *kinds: str, whole: bool = False) -> Iterator[StudioDatabase]:
        """A write transaction that announces ``kinds`` once the outermost one commits.

        Nested writes (a savepoint inside an open transaction) only add their kinds; the
        listeners hear about them after the outer transaction commits, never before, and
        not at all if it rolls back. (A busy or read-only project raises its
        ``ProjectError`` from ``StudioDatabase``.) ``whole``: an operation on the whole
        project (a team merge): on PostgreSQL it waits for the writes in flight and they
        for it, as every write does on SQLite (``pg_database``).
        """
        for kind in kinds:
            if kind not in KINDS:
                raise ValueError(f"Unknown project event kind {kind!r}.")
        pending = self._pending_kinds()
        outermost = not self.db.conn.in_transaction
        try:
            with self.db.atomic(whole=whole):
                yield self.db
                if outermost and self.url is not None:
                    self._notify(pending | set(kinds))  # delivered with the commit
        except BaseException:
            if outermost:
                pending.clear()
                self._people_read_in_transaction().clear()
            raise
        pending.update(kinds)
        if outermost:
            read = self._people_read_in_transaction()
            self._local.__dict__.setdefault("people", {}).update(read)  # committed now
            read.clear()
            self._announce()

    def _people_read_in_transaction(self) -> dict[str, Person]:
        """People ``ensure_person`` read inside this thread's open transaction: kept for
        good once it commits, forgotten if it rolls back."""
        found: dict[str, Person] = self._local.__dict__.setdefault("people_in_transaction", {})
        return found

    def _notify(self, kinds: set[str]) -> None:
        """PostgreSQL: tell every other studio on this database what changed (NOTIFY)."""
        if kinds:  # sent with the COMMIT, in its round trip
            self.pg_db.notify_at_commit(
                pg_database.EVENT_CHANNEL, f"{self._token} {','.join(sorted(kinds))}"
            )

    def listen(self) -> None:
        """PostgreSQL: emit the events other processes' commits announce, from when
        somebody listens to this project's events (a thread and a connection of its own).

        A project nobody listens to (a team server's worker, the command line, a script)
        starts neither: the thread would wake at every commit on the database, its own
        included, and take the interpreter from the thread that writes (one writer of
        ``bench_store``: a third more writes a second without it, measured).
        """
        if self.url is None:
            return
        with self._lock:
            self._may_listen = True
            if self._listener is not None or not self.events.listened:
                return
            from studio.store.pg_events import EventListener

            listener = self._listener = EventListener(self.url, self._token, self._remote_kinds)
        listener.start()

    def _listened_to(self) -> None:
        """Somebody connected to an event: an opened PostgreSQL project starts hearing
        others' commits (a connect before the project finished opening waits for it)."""
        if self._may_listen and self._listener is None:
            self.listen()

    def poll_changes(self) -> list[str]:
        """SQLite: emit, and return, the kinds other programs committed since the last call.

        Cheap while nothing changed (one ``PRAGMA data_version`` on a connection of its
        own); the first call only takes the starting point. The studio calls it about twice
        a second from its IO lane (PostgreSQL projects hear others by ``listen``).
        """
        if self.url is not None:
            return []
        with self._lock:
            if self._watcher is None:
                from studio.store.sqlite_events import watcher_for

                self._watcher = watcher_for(
                    self.path, self.read_only_reason, self._journal, self._own_audit)
            watcher = self._watcher
        kinds: list[str] = watcher.poll()
        self._remote_kinds(kinds)
        return kinds

    def _remote_kinds(self, kinds: list[str]) -> None:
        for kind in KINDS:
            if kind in kinds:
                self.events.emit(kind)

    def _pending_kinds(self) -> set[str]:
        pending: set[str] | None = getattr(self._local, "pending_kinds", None)
        if pending is None:
            pending = set()
            self._local.pending_kinds = pending
        return pending

    def _announce(self) -> None:
        """Emit every kind written on this thread since the last commit, in KINDS order."""
        pending = self._pending_kinds()
        kinds = [kind for kind in KINDS if kind in pending]
        pending.clear()
        for kind in kinds:
            self.events.emit(kind)

    @contextmanager
    def change(
        self,
        actor: str,
        action: str,
        entity: str,
        entity_id: object = None,
        before: Any = None,
        kinds: tuple[str, ...] | None = None,
        whole: bool = False,
    ) -> Iterator[dict[str, Any]]:
        """One user action: a transaction and an audit row recording before and after.

        The body fills ``record["after"]`` (and may refine ``record["entity_id"]``); if it
        raises, nothing is written, the audit row included. A body that reads the state
        before inside the transaction sets ``record["before"]`` (instead of ``before``). After the commit the project
        announces the kinds of data the entity belongs to (``studio.project_events``). A
        body that found nothing to do (a team merge of a package already merged) sets
        ``record["nothing_changed"] = True``: no audit row then, and no event. ``whole``:
        see ``writing``.
        """
        announced = kinds if kinds is not None else kinds_for(entity)
        for kind in announced:
            if kind not in KINDS:
                raise ValueError(f"Unknown project event kind {kind!r}.")
        record: dict[str, Any] = {"entity_id": entity_id, "after": None}
        written: int | None = None
        outermost = not self.db.conn.in_transaction
        try:
            with self.writing(whole=whole):
                yield record
                if record.get("nothing_changed"):
                    return
                self._pending_kinds().update(announced)
                # The outermost change's audit row is its last statement: on PostgreSQL
                # it travels with the COMMIT (one round trip fewer per change).
                before = record.get("before", before)  # read inside, by the body
                written = self._audit(actor, action, entity, record, before, outermost)
        except BaseException:
            if written is not None:
                self._own_audit.discard(written)  # rolled back: the id may be used again
            raise

    def _audit(
        self,
        actor: str,
        action: str,
        entity: str,
        record: dict[str, Any],
        before: Any,
        last: bool = False,
    ) -> int | None:
        """Write the audit row; on SQLite remember its id (this object's change watcher
        skips it: its events were emitted when it committed). ``last``: nothing else runs
        in the transaction before its COMMIT (PostgreSQL sends the row with the COMMIT)."""
        sql = (
            "INSERT INTO audit_log (at, actor, action, entity, entity_id, before, after) "
            "VALUES (:at, :actor, :action, :entity, :entity_id, :before, :after)"
        )
        values = {
            "at": utc_now(),
            "actor": actor,
            "action": action,
            "entity": entity,
            "entity_id": None if record["entity_id"] is None else str(record["entity_id"]),
            "before": _to_json(before),
            "after": _to_json(record["after"]),
        }
        if self.url is not None:
            # Nobody reads its id on PostgreSQL: the outermost change's row goes with the
            # COMMIT, a nested change's with the transaction's next statement (in order).
            if last:
                self.pg_db.execute_at_commit(sql, values)
            else:
                self.pg_db.defer(sql, values)
            return None
        cursor = self.db.execute(sql, values)
        if self.url is not None or self._watcher is None:
            return None  # nobody watches: a row before the first poll is below its start
        written = int(cursor.lastrowid or 0)
        self._own_audit.add(written)
        return written

    def audit_trail(self, entity: str, entity_id: object) -> list[dict[str, Any]]:
        rows = self.db.query(
            "SELECT * FROM audit_log WHERE entity = :entity AND entity_id = :entity_id ORDER BY id",
            {"entity": entity, "entity_id": str(entity_id)},
        )
        return list(rows)

    # -- people ----------------------------------------------------------------------

    def ensure_person(self, name: str, role: str = "annotator") -> Person:
        name = name.strip()
        if not name:
            raise ProjectError("A person needs a name.")
        if role not in ROLES:
            raise ProjectError(f"Unknown role {role!r}; choose one of {', '.join(ROLES)}.")
        # People are never deleted or changed: a row read outside a transaction is
        # committed for good, and this thread keeps it (one statement fewer per caption
        # write). Inside one it may be that transaction's own insert, which a rollback
        # undoes: kept once the outermost transaction commits (``writing``).
        known_people: dict[str, Person] = self._local.__dict__.setdefault("people", {})
        if name in known_people:
            return known_people[name]
        committed = not self.db.conn.in_transaction
        known = list(self.db.query("SELECT id, name, role FROM people WHERE name = :name", {
            "name": name,
        }))
        if known:
            person = Person.from_row(known[0])  # nothing to write (works read-only too)
            if committed:
                known_people[name] = person
            else:
                self._people_read_in_transaction()[name] = person
            return person
        with self.writing():
            cursor = self.db.execute(
                "INSERT INTO people (name, role, created_at) VALUES (:name, :role, :created_at) "
                "ON CONFLICT (name) DO NOTHING",
                {"name": name, "role": role, "created_at": utc_now()},
            )
            if cursor.rowcount:
                self._pending_kinds().add("people")
        rows = list(self.db.query("SELECT id, name, role FROM people WHERE name = :name", {
            "name": name,
        }))
        return Person.from_row(rows[0])

    def people(self) -> list[Person]:
        rows = self.db.query("SELECT id, name, role FROM people ORDER BY name")
        return [Person.from_row(row) for row in rows]

    # -- images ----------------------------------------------------------------------

    def add_images(self, images: Iterable[ImageRecord], *, replace: bool = False) -> int:
        """Insert images in one transaction; an id already present is kept (or replaced).

        Returns how many rows were new, so importing the same files twice adds nothing.
        """
        from studio.store.repos import images as images_repo

        now = utc_now()
        rows = [{**image.to_row(), "added_at": now} for image in images]
        with self.writing("images"):
            before = self.count_images()
            if replace:
                images_repo.put_images(self, rows)
            else:
                images_repo.add_missing_images(self, rows)
            return self.count_images() - before

    def count_images(self, category: str | None = None, split: str | None = None) -> int:
        where, params = _image_filter(category, split)
        return int(self.db.execute(f"SELECT count(*) FROM images {where}", params).fetchone()[0])

    def image(self, image_id: str) -> ImageRecord | None:
        rows = list(self.db.query("SELECT * FROM images WHERE id = :image_id", {"image_id": image_id}))
        return ImageRecord.from_row(rows[0]) if rows else None

    def iter_images(
        self, category: str | None = None, split: str | None = None
    ) -> Iterator[ImageRecord]:
        where, params = _image_filter(category, split)
        for row in self.db.query(f"SELECT * FROM images {where} ORDER BY id", params):
            yield ImageRecord.from_row(row)

    def image_ids_in(self, category: str | None = None, split: str | None = None) -> list[str]:
        """The ids of a gallery's images (as ``iter_images``), without building records:
        at 100,000 images that is a tenth of the time, which the live rank waits for."""
        where, params = _image_filter(category, split)
        return [str(r[0]) for r in self.db.execute(f"SELECT id FROM images {where}", params)]

    def categories(self) -> list[str]:
        rows = self.db.execute("SELECT DISTINCT category FROM images ORDER BY 1").fetchall()
        return [r[0] for r in rows]

    def table_counts(self) -> dict[str, int]:
        """Row counts of the main tables, for the dashboard and the smoke test."""
        tables = (
            "images",
            "pairs",
            "captions",
            "people",
            "image_attributes",
            "retrieval_sessions",
            "transactions",
            "ratings",
            "audit_log",
        )
        return {
            table: int(self.db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
            for table in tables
        }


def _image_filter(category: str | None, split: str | None) -> tuple[str, dict[str, str]]:
    """Images of a gallery: its members (an image may be in several) or, as before, the
    images whose own category and split match."""
    clauses: list[str] = []
    params: dict[str, str] = {}
    if category is not None:
        clauses.append("category = :category")
        params["category"] = category
    if split is not None:
        clauses.append("split = :split")
        params["split"] = split
    if not clauses:
        return "", params
    condition = " AND ".join(clauses)
    return (
        f"WHERE ({condition}) OR id IN (SELECT image_id FROM gallery_members WHERE {condition})",
        params,
    )


def _to_json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)


def _publish(temporary: Path, path: Path) -> None:
    """Move the finished file into place without replacing one that appeared meanwhile."""
    try:
        os.link(temporary, path)  # fails if ``path`` exists: no clobbering, no race
    except FileExistsError as error:
        _remove_build(temporary)
        raise ProjectError(f"{path} already exists; open it instead of creating it.") from error
    except OSError:  # a file system without hard links: check, then rename
        if path.exists():
            _remove_build(temporary)
            raise ProjectError(f"{path} already exists; open it instead of creating it.") from None
        os.replace(temporary, path)
    else:
        _remove_build(temporary)
    _sync_folder(path.parent)


def _sync_folder(folder: Path) -> None:
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)


def _remove_build(temporary: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with suppress(FileNotFoundError):
            temporary.with_name(temporary.name + suffix).unlink()


def _remove_dead_builds(path: Path) -> None:
    """Remove temporary files that a killed ``create`` of ``path`` left behind."""
    for leftover in path.parent.glob(f".{path.name}.*.creating"):
        pid = leftover.name[len(path.name) + 2 :].split(".")[0]
        if pid.isdigit() and not _alive(int(pid)):
            _remove_build(leftover)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True
