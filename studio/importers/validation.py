"""Validation shared by the importers: collect every problem first, then refuse or skip.

An importer never writes half a dataset. It reads and checks all files, gathering each
problem with the file and entry it concerns, and only then either raises one
``ImportValidationError`` naming them all or (``skip_invalid``) imports the valid
entries and hands the problems back in its report.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from studio.captions.records import MAX_CAPTION_CHARS
from studio.errors import ValidationError

MAX_LISTED = 20


def caption_too_long(text: str) -> str:
    return (
        f"a caption is {len(text):,} characters long; the limit is {MAX_CAPTION_CHARS:,} "
        f"(it begins {text[:40]!r})"
    )


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input: which file, which entry (index and id), what."""

    file: str
    message: str
    entry: int | None = None
    key: str | None = None

    def __str__(self) -> str:
        where = self.file
        if self.entry is not None:
            where += f" entry [{self.entry}]"
        if self.key:
            where += f" ({self.key})"
        return f"{where}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "entry": self.entry, "key": self.key, "message": self.message}


# The command line's advice in a refused import's message; a window says what to do there
# instead (``for_the_window``), never a flag a person cannot type into it.
SKIP_HINT = "use --skip-invalid to import the valid entries"


def for_the_window(message: str, remedy: str) -> str:
    """A refusal written for a dialog: the command-line advice replaced by ``remedy``."""
    return message.replace(SKIP_HINT, remedy)


class ImportValidationError(ValidationError):
    """The input has problems; ``problems`` lists them all, the message the first few.

    The message stays on one line so the command line can print it as one error.
    """

    def __init__(self, dataset: str, problems: list[Problem]) -> None:
        self.problems = problems
        listed = "; ".join(str(p) for p in problems[:MAX_LISTED])
        more = f"; … and {len(problems) - MAX_LISTED} more" if len(problems) > MAX_LISTED else ""
        count = f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
        super().__init__(
            f"{dataset} import refused, nothing was written ({count}; {SKIP_HINT}): "
            f"{listed}{more}"
        )


@dataclass
class Problems:
    """A collector the importers append to while reading."""

    root: Path
    items: list[Problem] = field(default_factory=list)

    def name(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def add(self, path: Path, message: str, entry: int | None = None, key: str | None = None):
        self.items.append(Problem(self.name(path), message, entry, key))

    def __len__(self) -> int:
        return len(self.items)

    def settle(self, dataset: str, skip_invalid: bool) -> list[Problem]:
        """Raise if there are problems and the caller did not ask to skip them."""
        if self.items and not skip_invalid:
            raise ImportValidationError(dataset, self.items)
        return list(self.items)


def load_json(path: Path, problems: Problems) -> Any | None:
    """The parsed file, or None after recording why it could not be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        problems.add(path, f"cannot be read ({error.strerror or error})")
        return None
    except UnicodeDecodeError as error:
        problems.add(path, f"is not UTF-8 text ({error.reason} at byte {error.start})")
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        problems.add(
            path, f"malformed JSON: {error.msg} at line {error.lineno} column {error.colno}"
        )
        return None


def expect_list(data: Any, path: Path, problems: Problems, what: str) -> list[Any] | None:
    if data is None:
        return None
    if not isinstance(data, list):
        problems.add(path, f"expected a JSON list of {what}, found {type(data).__name__}")
        return None
    return data


def is_id(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())
