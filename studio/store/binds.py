"""Named parameters for statements built from lists (``IN (...)``, a row's columns).

Every statement of the store names its parameters (``:pair_id``) and takes a dict: the
text runs as written on SQLite and is compiled once by SQLAlchemy for PostgreSQL
(``studio.store.pg_database``); nothing rewrites it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any


def in_list(prefix: str, values: Iterable[Any]) -> tuple[str, dict[str, Any]]:
    """``:prefix_0, :prefix_1, …`` for ``IN (…)`` and the values under those names."""
    params = {f"{prefix}_{i}": value for i, value in enumerate(values)}
    return ", ".join(f":{name}" for name in params), params


def marks(columns: Sequence[str]) -> str:
    """``:a, :b, …``: one named parameter per column, for ``VALUES (…)``."""
    return ", ".join(f":{column}" for column in columns)


def row(columns: Sequence[str], values: Sequence[Any] | Mapping[str, Any]) -> dict[str, Any]:
    """A row's values under its columns' names (a mapping is read by column)."""
    if isinstance(values, Mapping):
        return {column: values.get(column) for column in columns}
    return dict(zip(columns, values, strict=True))
