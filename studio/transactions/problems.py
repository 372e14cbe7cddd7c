"""What a parser found wrong, said so a person can find the entry in the file."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from studio.errors import ValidationError
from studio.transactions.records import Transaction


@dataclass(frozen=True)
class EntryProblem:
    """One bad entry: the file, its 0-based index in the top-level list, and the key."""

    file: Path
    entry: int
    key: str | None
    message: str

    def __str__(self) -> str:
        where = f"{self.file}, entry {self.entry}"
        if self.key is not None:
            where += f", key {self.key!r}"
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class ParsedEntry:
    """A well-formed entry; ``image_keys[p]`` names the file key that held image ``p``."""

    entry: int
    transaction: Transaction
    image_keys: tuple[str, ...]


EntryParser = Callable[[Any, int, Path, str], ParsedEntry | EntryProblem]


def parse_each(
    data: list[Any], path: Path, dataset: str, parse_one: EntryParser
) -> tuple[list[ParsedEntry], list[EntryProblem]]:
    """Run ``parse_one(entry, index, path, dataset)`` on every entry; sort out the bad ones."""
    parsed: list[ParsedEntry] = []
    problems: list[EntryProblem] = []
    for index, entry in enumerate(data):
        result = parse_one(entry, index, path, dataset)
        if isinstance(result, EntryProblem):
            problems.append(result)
        else:
            parsed.append(result)
    return parsed, problems


def load_json_list(path: Path) -> list[Any]:
    """Read a JSON file whose top level must be a list; anything else is one clear error."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ValidationError(f"Cannot read {path}: {error.strerror or error}") from error
    except UnicodeDecodeError as error:
        raise ValidationError(f"{path} is not UTF-8 text ({error.reason})") from error
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValidationError(
            f"{path} is not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}"
        ) from error
    if not isinstance(data, list):
        raise ValidationError(
            f"{path}: the top level must be a JSON list of transactions, "
            f"found {type(data).__name__}"
        )
    return data


def summarise(problems: list[EntryProblem], limit: int = 5) -> str:
    """The first ``limit`` problems on one line ("; " between them), with a count of the rest.

    One line, like every other command's error, so the command line prints one line.
    """
    parts = [" ".join(str(p).split()) for p in problems[:limit]]
    if len(problems) > limit:
        parts.append(f"… and {len(problems) - limit} more")
    return "; ".join(parts)
