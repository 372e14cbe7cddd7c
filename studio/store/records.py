"""Small typed records that cross the store boundary; allowed values checked on creation."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

Role = Literal["annotator", "reviewer", "rater", "researcher", "admin"]
ROLES: tuple[str, ...] = get_args(Role)


@dataclass(frozen=True)
class ImageRecord:
    """One catalog image. ``path`` is relative to the project's image root."""

    id: str
    path: str
    category: str = ""
    split: str = ""
    title: str = ""
    description: str = ""
    content_hash: str | None = None
    width: int | None = None
    height: int | None = None
    bytes: int | None = None
    source: str = ""
    missing: bool = False

    def __post_init__(self) -> None:
        if not self.id or not self.id.strip():
            raise ValueError("an image needs a non-empty id")
        if not self.path or self.path.startswith("/") or "\\" in self.path:
            raise ValueError(
                f"image {self.id!r}: path {self.path!r} must be relative to the image root "
                "and use '/' separators"
            )

    def to_row(self) -> dict[str, object]:
        # A shallow copy: every field is a scalar, and ``asdict``'s deep copy costs more
        # than the insert itself for a 120,000-image gallery (CIRCO).
        row: dict[str, object] = {name: getattr(self, name) for name in self.__dataclass_fields__}
        row["missing"] = int(self.missing)
        return row

    @classmethod
    def from_row(cls, row: dict[str, object]) -> ImageRecord:
        """A stored row as it is. A path that creation refuses (an absolute one, written by
        another program into a shared or hand-edited project) is kept here and refused
        when its file is read (``Project.image_path``), so one bad row does not make the
        whole catalog unreadable."""
        fields = {name: row[name] for name in cls.__dataclass_fields__ if name in row}
        fields["missing"] = bool(fields.get("missing", 0))
        stored = str(fields.pop("path", "") or "")
        record = cls(path="-", **fields)  # type: ignore[arg-type]
        object.__setattr__(record, "path", stored)
        return record


@dataclass(frozen=True)
class Person:
    id: int
    name: str
    role: Role

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"role {self.role!r} is not one of {', '.join(ROLES)}")

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Person:
        return cls(id=int(row["id"]), name=str(row["name"]), role=row["role"])
