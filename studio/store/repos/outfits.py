"""Outfit tables: ontology, pictures, regions and their labels (issue #25).

Plain functions taking the ``Project`` first, returning ``dict`` rows; writes run inside
the caller's ``project.change(...)``. Labels of regions (``outfit_region_attributes``) and
of pictures (``outfit_attributes``) share one set of functions, told apart by ``table``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from studio.store import binds
from studio.store.project import Project

# table -> (owner column, value column)
LABEL_TABLES = {
    "outfit_region_attributes": ("region_id", "attribute_id"),
    "outfit_attributes": ("image_id", "value_id"),
}
REGION_COLUMNS = (
    "image_id", "garment_id", "role", "category_id", "box", "polygon", "rle", "source",
    "model", "confidence", "status", "author", "reviewer", "external_id", "raw", "position",
    "updated_at",
)
PICTURE_COLUMNS = (
    "image_id", "general", "concise", "description_source", "dataset", "external_id", "raw",
    "position", "updated_at",
)
ONTOLOGY_COLUMNS = (
    "key", "kind", "name", "supercategory", "level", "taxonomy_id", "description", "external_id",
    "origin", "raw", "position",
)


def _rows(
    project: Project, sql: str, params: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    return list(project.db.query(sql, dict(params or {})))


def _tables(table: str) -> tuple[str, str]:
    if table not in LABEL_TABLES:
        raise ValueError(f"not an outfit label table: {table!r}")
    return LABEL_TABLES[table]


# -- ontology ---------------------------------------------------------------------------


def ontology_rows(project: Project) -> list[dict[str, Any]]:
    return _rows(project, "SELECT * FROM outfit_ontology ORDER BY kind, position, id")


def insert_ontology(project: Project, row: Mapping[str, Any]) -> int:
    """Insert an entry (a same-named one is kept); returns the entry's id."""
    key = f"{row['kind']}/{row.get('supercategory') or ''}/{row['name']}"
    values = {column: key if column == "key" else row.get(column) for column in ONTOLOGY_COLUMNS}
    project.db.execute(
        f"INSERT INTO outfit_ontology ({', '.join(ONTOLOGY_COLUMNS)}) "
        f"VALUES ({binds.marks(ONTOLOGY_COLUMNS)}) "
        "ON CONFLICT (kind, supercategory, name) DO NOTHING",
        values,
    )
    found = project.db.execute(
        "SELECT id FROM outfit_ontology WHERE kind = :kind AND supercategory = :supercategory AND name = :name",
        {"kind": row["kind"], "supercategory": row.get("supercategory") or "", "name": row["name"]},
    ).fetchone()
    return int(found[0])


def adopt_ontology(project: Project, entry_id: int, row: Mapping[str, Any]) -> None:
    """Give a studio entry the identity a dataset file gives it (id, raw entry, level)."""
    project.db.execute(
        "UPDATE outfit_ontology SET external_id = :external_id, origin = :origin, raw = :raw, level = :level, "
        "taxonomy_id = :taxonomy_id, position = :position WHERE id = :entry_id",
        {
            "external_id": row.get("external_id"),
            "origin": row.get("origin"),
            "raw": row.get("raw"),
            "level": row.get("level"),
            "taxonomy_id": row.get("taxonomy_id") or "",
            "position": row.get("position") or 0,
            "entry_id": entry_id,
        },
    )


# -- sources ----------------------------------------------------------------------------


def source_rows(project: Project, dataset: str) -> list[dict[str, Any]]:
    return _rows(project, "SELECT * FROM outfit_sources WHERE dataset = :dataset ORDER BY id",
                 {"dataset": dataset})


def save_source(project: Project, dataset: str, file: str, header: str, fmt: str | None,
                now: str) -> None:
    project.db.execute(
        "INSERT INTO outfit_sources (dataset, file, header, format, imported_at) "
        "VALUES (:dataset, :file, :header, :fmt, :now) ON CONFLICT (dataset, file) DO UPDATE SET "
        "header = excluded.header, format = excluded.format, imported_at = excluded.imported_at",
        {"dataset": dataset, "file": file, "header": header, "fmt": fmt, "now": now},
    )


# -- pictures ---------------------------------------------------------------------------


def picture_rows(project: Project) -> list[dict[str, Any]]:
    return _rows(project, "SELECT * FROM outfit_pictures ORDER BY position, image_id")


def picture_row(project: Project, image_id: str) -> dict[str, Any] | None:
    rows = _rows(project, "SELECT * FROM outfit_pictures WHERE image_id = :image_id",
                 {"image_id": image_id})
    return rows[0] if rows else None


def next_picture_position(project: Project) -> int:
    row = project.db.execute("SELECT coalesce(max(position), -1) + 1 FROM outfit_pictures")
    return int(row.fetchone()[0])


def insert_picture(project: Project, row: Mapping[str, Any]) -> bool:
    """Insert a picture unless the image already is one; True when it was new."""
    cursor = project.db.execute(
        f"INSERT INTO outfit_pictures ({', '.join(PICTURE_COLUMNS)}) "
        f"VALUES ({binds.marks(PICTURE_COLUMNS)}) ON CONFLICT (image_id) DO NOTHING",
        binds.row(PICTURE_COLUMNS, row),
    )
    return bool(cursor.rowcount)


def picture_ids_in_category(project: Project, category: str) -> list[str]:
    """Outfit pictures whose image is of ``category`` (a team attributes batch)."""
    rows = project.db.execute(
        "SELECT p.image_id FROM outfit_pictures p JOIN images i ON i.id = p.image_id "
        "WHERE i.category = :category AND i.missing = 0 ORDER BY p.image_id",
        {"category": category},
    ).fetchall()
    return [str(row[0]) for row in rows]


def set_descriptions(project: Project, image_id: str, general: str, concise: str,
                     source: str, now: str) -> None:
    project.db.execute(
        "UPDATE outfit_pictures SET general = :general, concise = :concise, description_source = :source, "
        "updated_at = :now WHERE image_id = :image_id",
        {
            "general": general,
            "concise": concise,
            "source": source,
            "now": now,
            "image_id": image_id,
        },
    )


def pictures_by_external_id(project: Project, dataset: str) -> dict[int, str]:
    rows = project.db.execute(
        "SELECT external_id, image_id FROM outfit_pictures "
        "WHERE dataset = :dataset AND external_id IS NOT NULL",
        {"dataset": dataset},
    ).fetchall()
    return {int(r[0]): str(r[1]) for r in rows}


# -- regions ----------------------------------------------------------------------------


def region_rows(project: Project, image_id: str | None = None) -> list[dict[str, Any]]:
    if image_id is None:
        return _rows(project, "SELECT * FROM outfit_regions ORDER BY image_id, position, id")
    return _rows(
        project, "SELECT * FROM outfit_regions WHERE image_id = :image_id ORDER BY position, id",
        {"image_id": image_id},
    )


def region_row(project: Project, region_id: int) -> dict[str, Any] | None:
    rows = _rows(project, "SELECT * FROM outfit_regions WHERE id = :region_id",
                 {"region_id": region_id})
    return rows[0] if rows else None


def next_region_position(project: Project, image_id: str) -> int:
    row = project.db.execute(
        "SELECT coalesce(max(position), -1) + 1 FROM outfit_regions WHERE image_id = :image_id",
        {"image_id": image_id},
    )
    return int(row.fetchone()[0])


def insert_region(project: Project, row: Mapping[str, Any]) -> int:
    cursor = project.db.execute(
        f"INSERT INTO outfit_regions ({', '.join(REGION_COLUMNS)}) "
        f"VALUES ({binds.marks(REGION_COLUMNS)}) RETURNING id",
        binds.row(REGION_COLUMNS, row),
    )
    return int(cursor.fetchone()[0])


def update_region(project: Project, region_id: int, fields: Mapping[str, Any]) -> None:
    unknown = set(fields) - set(REGION_COLUMNS)
    if unknown:
        raise ValueError(f"not region columns: {sorted(unknown)}")
    if not fields:
        return
    assignments = ", ".join(f"{name} = :{name}" for name in fields)
    project.db.execute(
        f"UPDATE outfit_regions SET {assignments} WHERE id = :region_id",
        {**fields, "region_id": region_id},
    )


def delete_region(project: Project, region_id: int) -> None:
    project.db.execute("DELETE FROM outfit_regions WHERE id = :region_id", {"region_id": region_id})


def max_region_external_id(project: Project) -> int:
    row = project.db.execute("SELECT coalesce(max(external_id), 0) FROM outfit_regions")
    return int(row.fetchone()[0])


# -- labels (region attributes and outfit values) ---------------------------------------


def label_rows(project: Project, table: str, owners: Iterable[Any] | None = None
               ) -> list[dict[str, Any]]:
    owner, _ = _tables(table)
    if owners is None:
        return _rows(project, f"SELECT * FROM {table} ORDER BY {owner}, position, id")
    wanted = list(owners)
    out: list[dict[str, Any]] = []
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        marks, params = binds.in_list("owner", chunk)
        out += _rows(
            project,
            f"SELECT * FROM {table} WHERE {owner} IN ({marks}) ORDER BY {owner}, position, id",
            params,
        )
    return out


def image_region_label_rows(project: Project, image_id: str) -> list[dict[str, Any]]:
    return _rows(
        project,
        "SELECT a.* FROM outfit_region_attributes a JOIN outfit_regions r ON r.id = a.region_id "
        "WHERE r.image_id = :image_id ORDER BY a.region_id, a.position, a.id",
        {"image_id": image_id},
    )


def upsert_label(project: Project, table: str, row: Mapping[str, Any]) -> None:
    """Insert a label or refresh its confidence, status and position (same source/model)."""
    owner, value = _tables(table)
    columns = (owner, value, "source", "model", "confidence", "status", "author", "reviewer",
               "position", "updated_at")
    project.db.execute(
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({binds.marks(columns)}) "
        f"ON CONFLICT ({owner}, {value}, source, model) DO UPDATE SET "
        "confidence = excluded.confidence, status = excluded.status, "
        "position = excluded.position, updated_at = excluded.updated_at",
        binds.row(columns, row),
    )


def decide_label(project: Project, table: str, owner_id: Any, value_id: int, status: str,
                 reviewer: str, now: str) -> None:
    """Set the decision on every source's row of one fact (owner, value)."""
    owner, value = _tables(table)
    project.db.execute(
        f"UPDATE {table} SET status = :status, reviewer = :reviewer, updated_at = :now "
        f"WHERE {owner} = :owner_id AND {value} = :value_id",
        {
            "status": status,
            "reviewer": reviewer,
            "now": now,
            "owner_id": owner_id,
            "value_id": value_id,
        },
    )


def delete_label(project: Project, table: str, owner_id: Any, value_id: int,
                 source: str | None = None) -> None:
    owner, value = _tables(table)
    if source is None:
        project.db.execute(
            f"DELETE FROM {table} WHERE {owner} = :owner_id AND {value} = :value_id", {
                "owner_id": owner_id,
                "value_id": value_id,
            }
        )
    else:
        project.db.execute(
            f"DELETE FROM {table} WHERE {owner} = :owner_id AND {value} = :value_id AND source = :source",
            {"owner_id": owner_id, "value_id": value_id, "source": source},
        )


def delete_undecided(project: Project, table: str, owner_ids: Sequence[Any], source: str,
                     model: str) -> int:
    """Remove a source's still-undecided rows on these owners (before re-suggesting)."""
    owner, _ = _tables(table)
    removed = 0
    for owner_id in owner_ids:
        cursor = project.db.execute(
            f"DELETE FROM {table} WHERE {owner} = :owner_id AND source = :source AND model = :model "
            "AND status = 'suggested'",
            {"owner_id": owner_id, "source": source, "model": model},
        )
        removed += cursor.rowcount
    return removed


def count_rows(project: Project) -> dict[str, int]:
    out = {}
    for table in ("outfit_pictures", "outfit_regions", "outfit_region_attributes",
                  "outfit_attributes", "outfit_ontology"):
        out[table] = int(project.db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    return out


# -- snapshots (undo) -------------------------------------------------------------------


def picture_snapshot(project: Project, image_id: str) -> dict[str, Any]:
    """Every row of one picture, ids and uids included (what ``restore_picture`` takes)."""
    return {
        "picture": picture_row(project, image_id),
        "regions": region_rows(project, image_id),
        "region_labels": image_region_label_rows(project, image_id),
        "outfit_labels": label_rows(project, "outfit_attributes", [image_id]),
    }


def _insert_full(project: Project, table: str, row: Mapping[str, Any]) -> None:
    columns = list(row)
    project.db.execute(
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({binds.marks(columns)})",
        dict(row),
    )


def restore_picture(project: Project, image_id: str, snapshot: Mapping[str, Any]) -> None:
    """Make one picture's rows equal to ``snapshot`` (same ids and uids)."""
    project.db.execute("DELETE FROM outfit_attributes WHERE image_id = :image_id", {"image_id": image_id})
    project.db.execute(
        "DELETE FROM outfit_region_attributes WHERE region_id IN "
        "(SELECT id FROM outfit_regions WHERE image_id = :image_id)",
        {"image_id": image_id},
    )
    project.db.execute("DELETE FROM outfit_regions WHERE image_id = :image_id", {"image_id": image_id})
    if snapshot["picture"] is None:
        project.db.execute("DELETE FROM outfit_pictures WHERE image_id = :image_id", {"image_id": image_id})
        return
    project.db.execute("DELETE FROM outfit_pictures WHERE image_id = :image_id", {"image_id": image_id})
    _insert_full(project, "outfit_pictures", snapshot["picture"])
    # Garments before the parts that point at them.
    regions = sorted(snapshot["regions"], key=lambda r: r["garment_id"] is not None)
    for row in regions:
        _insert_full(project, "outfit_regions", row)
    for row in snapshot["region_labels"]:
        _insert_full(project, "outfit_region_attributes", row)
    for row in snapshot["outfit_labels"]:
        _insert_full(project, "outfit_attributes", row)


def decided_facts(project: Project, region_ids: Sequence[int]) -> set[tuple[int, int]]:
    """(region, attribute) pairs that someone accepted or rejected, or a person gave."""
    out: set[tuple[int, int]] = set()
    for start in range(0, len(region_ids), 500):
        chunk = list(region_ids[start : start + 500])
        marks, params = binds.in_list("region", chunk)
        rows = project.db.execute(
            "SELECT region_id, attribute_id FROM outfit_region_attributes "
            f"WHERE region_id IN ({marks}) AND (status != 'suggested' OR source = 'person')",
            params,
        ).fetchall()
        out.update((int(r[0]), int(r[1])) for r in rows)
    return out


def undecided_suggestions(project: Project, attribute_id: int, model: str | None
                          ) -> list[int]:
    """Regions with an undecided model suggestion of one attribute (bulk review)."""
    sql = ("SELECT DISTINCT region_id FROM outfit_region_attributes WHERE "
           "attribute_id = :attribute_id AND source = 'model' AND status = 'suggested'")
    params: dict[str, Any] = {"attribute_id": attribute_id}
    if model:
        sql += " AND model = :model"
        params["model"] = model
    rows = project.db.execute(sql + " ORDER BY region_id", params).fetchall()
    return [int(row[0]) for row in rows]
