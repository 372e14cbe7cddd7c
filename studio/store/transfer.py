"""Moving a project between engines (``project copy``) and comparing two (``project check``).

A copy carries every table row for row: ids, uids, the audit log, identities (the
project and origin ids stay: it is the same project in another store), caption ranks,
runs. The destination schema is made by the same migrations as any project; rows are
inserted parents first (the foreign keys say the order of the tables, and within a table
that references itself a row follows the row it names); rows the schema's triggers
made while the copy inserted (gallery membership) are replaced by the source's own.

Nothing half done survives: an SQLite destination is built under a temporary name and
linked into place only when complete (as ``Project.create`` does); a PostgreSQL one is
built in one transaction, so a kill, a cancel or an error rolls all of it back. The
folders of a project (image root, registered image folders, cache) are files on this
machine: the copy stores them so that they name the same folders as before.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from studio.errors import ProjectError
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import binds, pg_database
from studio.store.database import connect, migrate
from studio.store.engines import POSTGRESQL, engine_for
from studio.store.project import (
    Project,
    _publish,
    _remove_build,
    _remove_dead_builds,
    resolve_project_path,
)

# Meta rows that name places on this machine: rewritten by a copy, compared resolved.
LOCAL_KEYS = ("image_root", "image_folders", "local_path", "cache_dir")
# The schema's bookkeeping: each destination gets its own from the migration chain.
NOT_PROJECT_TABLES = {"sqlite_sequence", "sqlite_stat1", "cir_schema", "alembic_version"}
ORDERED_TABLES = ("images", "gallery_members")  # their ``seq`` numbers follow the copy
# Kept by the destination's triggers as the rows arrive (copied, they would count twice).
DERIVED_COLUMNS = {"pairs": ("live_captions",)}
BATCH = 1000


@dataclass(frozen=True)
class Difference:
    table: str
    key: str
    text: str

    def __str__(self) -> str:
        return f"{self.table} {self.key}: {self.text}"


def copy_project(
    source: str | Path,
    destination: str | Path,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> dict[str, int]:
    """Copy the project at ``source`` to ``destination`` (a path or a URL); rows per table.

    Refuses a destination that exists (SQLite) or holds any table (PostgreSQL).
    """
    cancel = cancel or CancelToken()
    with Project.open(source) as src:
        _read_snapshot(src)  # every table as of one moment, while others keep writing
        try:
            tables = project_tables(src.db)
            counts = {table: count_rows(src.db, table) for table in tables}
            if engine_for(destination) == POSTGRESQL:
                _copy_to_postgresql(src, str(destination), counts, progress, cancel)
            else:
                _copy_to_sqlite(src, resolve_project_path(destination), counts, progress, cancel)
        finally:
            src.db.conn.rollback()
    return counts


def _read_snapshot(src: Project) -> None:
    if src.url is not None:
        src.pg_db.raw.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    else:
        src.db.execute("BEGIN")  # deferred: WAL gives it one snapshot from its first read


def _copy_to_sqlite(
    src: Project, path: Path, counts: dict[str, int], progress: ProgressCallback,
    cancel: CancelToken,
) -> None:
    if path.exists():
        raise ProjectError(f"{path} already exists; copy into a new file or folder.")
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_dead_builds(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.creating")
    db: Any = None
    try:
        db = connect(temporary, journal="DELETE")
        migrate(db, temporary)
        with db.atomic():
            db.execute("PRAGMA defer_foreign_keys = ON")
            _copy_rows(src, db, counts, progress, cancel, _local_meta(src, path))
        db.close()
        db = None
        _publish(temporary, path)
    except BaseException:
        if db is not None:
            db.close()
        _remove_build(temporary)
        raise


def _copy_to_postgresql(
    src: Project, url: str, counts: dict[str, int], progress: ProgressCallback,
    cancel: CancelToken,
) -> None:
    from studio.store.pg_project import refuse_non_empty
    from studio.store.schema_upgrade import attach_postgresql, upgrade_postgresql

    db = pg_database.connect(url)
    migrations = None
    try:
        refuse_non_empty(db)
        anchor = src.path.with_suffix(".pg") if src.url is None else src.path
        migrations = attach_postgresql(db.raw)  # before BEGIN: see attach_postgresql
        db.raw.execute("BEGIN")
        db.raw.execute("SELECT pg_advisory_xact_lock(%s)", [pg_database.MIGRATION_LOCK_KEY])
        refuse_non_empty(db)
        upgrade_postgresql(migrations, create=True)  # the Alembic chain, in this transaction
        _copy_rows(src, db, counts, progress, cancel, _local_meta(src, anchor, postgres=True))
        identities = db.identity_tables()
        for table in project_tables(db):
            if table in identities:
                db.raw.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                    f"coalesce((SELECT max(id) FROM {table}), 0) + 1, false)"
                )
        for table in ORDERED_TABLES:  # rows added after the copy follow the copied ones
            db.raw.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'seq'), "
                f"coalesce((SELECT max(seq) FROM {table}), 0) + 1, false)"
            )
        db.raw.execute("COMMIT")
    except BaseException as error:
        db.rollback()
        if isinstance(error, Exception) and _is_psycopg_error(error):
            raise pg_database.translate_error(error, url, "copy") from error
        raise
    finally:
        if migrations is not None:
            migrations.close()  # after COMMIT or ROLLBACK: gives the connection back as is
        db.close()


def _is_psycopg_error(error: BaseException) -> bool:
    return type(error).__module__.startswith("psycopg")


def _copy_rows(
    src: Project, dst: Any, counts: dict[str, int], progress: ProgressCallback,
    cancel: CancelToken, local_meta: dict[str, str],
) -> None:
    total, done = sum(counts.values()), 0
    order = parents_first(dst, [t for t in project_tables(dst) if t in counts])
    missing = sorted(set(counts) - set(order))
    if missing:
        raise ProjectError(f"The destination's schema has no table {', '.join(missing)}.")
    for table in order:
        columns = [c for c in table_columns(src.db, table) if c in table_columns(dst, table)
                   and c not in DERIVED_COLUMNS.get(table, ())]
        dst.execute(f"DELETE FROM {table}")  # rows a migration or trigger made meanwhile
        insert = (
            f"INSERT INTO {table} ({', '.join(columns)}) "
            f"VALUES ({binds.marks(columns)})"
        )
        rows = read_rows(src.db, table, columns)
        if table == "meta":
            rows = _rewrite_meta(rows, local_meta)
        references = [(c, p) for c, p in self_references(dst, table) if c in columns and p in columns]
        if references:
            rows = parent_rows_first(rows, columns, references)
        for start in range(0, len(rows), BATCH):
            cancel.raise_if_cancelled()
            batch = rows[start : start + BATCH]
            named = [binds.row(columns, row) for row in batch]
            (dst if _is_pg(dst) else dst.conn).executemany(insert, named)
            done += len(batch)
            progress(done, total, f"{table}")
    progress(total, total, "copied")


def _rewrite_meta(rows: list[tuple[Any, ...]], local: dict[str, str]) -> list[tuple[Any, ...]]:
    kept = [row for row in rows if row[0] not in LOCAL_KEYS]
    return kept + sorted(local.items())


def _local_meta(src: Project, anchor: Path, *, postgres: bool = False) -> dict[str, str]:
    """The destination's location rows naming the source's folders from ``anchor``."""

    def portable(folder: Path) -> str:
        try:
            return folder.relative_to(anchor.parent).as_posix() or "."
        except ValueError:
            return str(folder)

    folders = src.image_folders()[1:]
    meta = {"image_root": portable(src.image_root)}
    if folders:
        meta["image_folders"] = json.dumps([portable(folder) for folder in folders])
    if postgres:  # the anchor of relative folders, and the cache, stay where they were
        meta["local_path"] = str(anchor)
        meta["cache_dir"] = portable(src.cache_dir)
    return meta


# -- comparing ----------------------------------------------------------------------------


def check_projects(first: str | Path, second: str | Path) -> list[Difference]:
    """Every difference between two projects, record by record (by primary key)."""
    with Project.open(first) as a, Project.open(second) as b:
        differences: list[Difference] = []
        if a.image_root != b.image_root:
            differences.append(Difference("meta", "image_root", f"{a.image_root} vs {b.image_root}"))
        if a.image_folders() != b.image_folders():
            differences.append(Difference("meta", "image_folders", "the image folders differ"))
        tables_a, tables_b = set(project_tables(a.db)), set(project_tables(b.db))
        for table in sorted(tables_a ^ tables_b):
            where = "first" if table in tables_a else "second"
            differences.append(Difference(table, "*", f"the table is only in the {where}"))
        for table in sorted(tables_a & tables_b):
            differences.extend(_compare_table(a.db, b.db, table))
        return differences


def _compare_table(a: Any, b: Any, table: str) -> list[Difference]:
    columns = table_columns(a, table)
    other_columns = table_columns(b, table)
    if columns != other_columns:
        return [Difference(table, "*", f"columns {columns} vs {other_columns}")]
    key = primary_key(a, table) or columns
    positions = [columns.index(column) for column in key]

    def keyed(db: Any) -> dict[tuple[Any, ...], tuple[Any, ...]]:
        rows = read_rows(db, table, columns)
        if table == "meta":
            rows = [row for row in rows if row[0] not in LOCAL_KEYS]
        return {tuple(row[p] for p in positions): tuple(map(_plain, row)) for row in rows}

    left, right = keyed(a), keyed(b)
    found: list[Difference] = []
    for row_key in sorted(set(left) | set(right), key=repr):
        name = ", ".join(f"{c}={v!r}" for c, v in zip(key, row_key, strict=True))
        if row_key not in right:
            found.append(Difference(table, name, "only in the first"))
        elif row_key not in left:
            found.append(Difference(table, name, "only in the second"))
        elif left[row_key] != right[row_key]:
            changed = [
                f"{column}: {x!r} vs {y!r}"
                for column, x, y in zip(columns, left[row_key], right[row_key], strict=True)
                if x != y
            ]
            found.append(Difference(table, name, "; ".join(changed)))
    return found


def _plain(value: Any) -> Any:
    return bytes(value) if isinstance(value, memoryview) else value


# -- what a database holds (engine by engine) ---------------------------------------------


def _is_pg(db: Any) -> bool:
    return getattr(db, "engine", "sqlite") == POSTGRESQL


def project_tables(db: Any) -> list[str]:
    if _is_pg(db):
        names = db.table_names()
    else:
        rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        names = [row[0] for row in rows]
    return sorted(name for name in names if name not in NOT_PROJECT_TABLES)


def table_columns(db: Any, table: str) -> list[str]:
    if _is_pg(db):
        rows = db.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = :table "
            "AND table_schema = current_schema() ORDER BY ordinal_position",
            {"table": table},
        ).fetchall()
        return [row[0] for row in rows]
    return [row[1] for row in db.execute(f"PRAGMA table_info({table})").fetchall()]  # dialect: sqlite


def primary_key(db: Any, table: str) -> list[str]:
    if _is_pg(db):
        rows = db.execute(
            "SELECT k.column_name FROM information_schema.table_constraints c "
            "JOIN information_schema.key_column_usage k ON k.constraint_name = c.constraint_name "
            "AND k.table_name = c.table_name AND k.table_schema = c.table_schema "
            "WHERE c.table_name = :table AND c.constraint_type = 'PRIMARY KEY' "
            "AND c.table_schema = current_schema() ORDER BY k.ordinal_position",
            {"table": table},
        ).fetchall()
        return [row[0] for row in rows]
    rows = db.execute(f"PRAGMA table_info({table})").fetchall()  # dialect: sqlite
    return [row[1] for row in sorted((r for r in rows if r[5]), key=lambda r: r[5])]


def parents_first(db: Any, tables: Iterable[str]) -> list[str]:
    """``tables`` ordered so that every table comes after the tables it references."""
    wanted = sorted(tables)
    parents: dict[str, set[str]] = {}
    for table in wanted:
        if _is_pg(db):
            rows = db.execute(
                "SELECT DISTINCT u.table_name FROM information_schema.table_constraints c "
                "JOIN information_schema.constraint_column_usage u "
                "ON u.constraint_name = c.constraint_name AND u.table_schema = c.table_schema "
                "WHERE c.table_name = :table AND c.constraint_type = 'FOREIGN KEY' "
                "AND c.table_schema = current_schema()",
                {"table": table},
            ).fetchall()
            refs = {row[0] for row in rows}
        else:
            rows = db.execute(f"PRAGMA foreign_key_list({table})").fetchall()  # dialect: sqlite
            refs = {row[2] for row in rows}
        parents[table] = {ref for ref in refs if ref != table and ref in wanted}
    ordered: list[str] = []
    while len(ordered) < len(wanted):
        ready = [t for t in wanted if t not in ordered and parents[t] <= set(ordered)]
        if not ready:  # a cycle: take the rest as they come (constraints are deferred)
            ready = [t for t in wanted if t not in ordered]
        ordered.extend(ready)
    return ordered


def self_references(db: Any, table: str) -> list[tuple[str, str]]:
    """(column, referenced column) of each foreign key of ``table`` into ``table`` itself
    (a garment part names its garment in the same table)."""
    if _is_pg(db):
        rows = db.execute(
            "SELECT k.column_name, u.column_name FROM information_schema.table_constraints c "
            "JOIN information_schema.key_column_usage k ON k.constraint_name = c.constraint_name "
            "AND k.table_schema = c.table_schema "
            "JOIN information_schema.constraint_column_usage u "
            "ON u.constraint_name = c.constraint_name AND u.table_schema = c.table_schema "
            "WHERE c.table_name = :table AND u.table_name = :table AND c.constraint_type = 'FOREIGN KEY' "
            "AND c.table_schema = current_schema()",
            {"table": table},
        ).fetchall()
        return sorted((row[0], row[1]) for row in rows)
    rows = db.execute(f"PRAGMA foreign_key_list({table})").fetchall()  # dialect: sqlite
    return sorted((row[3], row[4] or "id") for row in rows if row[2] == table)


def parent_rows_first(
    rows: list[tuple[Any, ...]], columns: list[str], references: list[tuple[str, str]]
) -> list[tuple[Any, ...]]:
    """``rows`` of one table reordered so that a row comes after the rows it references in
    that table (PostgreSQL checks a foreign key at each insert, and ids need not follow
    the hierarchy: Fashionpedia numbers a sleeve before its dress). Otherwise the order
    stays; a reference to no row, or a cycle, is left for the constraint to report."""
    links = [(columns.index(child), columns.index(parent)) for child, parent in references]
    by_key = {
        (parent, row[parent]): number
        for number, row in enumerate(rows)
        for _, parent in links
        if row[parent] is not None
    }
    placed: list[bool] = [False] * len(rows)
    ordered: list[tuple[Any, ...]] = []
    for start in range(len(rows)):
        stack, seen = [start], {start}
        while stack:
            number = stack[-1]
            if placed[number]:
                stack.pop()
                continue
            waiting = [
                up for child, parent in links
                if (up := by_key.get((parent, rows[number][child]))) is not None
                and not placed[up] and up not in seen
            ]
            if waiting:
                stack.extend(waiting)
                seen.update(waiting)
                continue
            placed[number] = True
            ordered.append(rows[number])
            stack.pop()
    return ordered


def count_rows(db: Any, table: str) -> int:
    return int(db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def read_rows(db: Any, table: str, columns: list[str]) -> list[tuple[Any, ...]]:
    key = primary_key(db, table)
    order = f" ORDER BY {', '.join(key)}" if key else ""
    rows = db.execute(f"SELECT {', '.join(columns)} FROM {table}{order}").fetchall()
    return [tuple(row) for row in rows]

