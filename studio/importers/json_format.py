"""How a JSON file was written, so an export can write the same bytes again.

Published dataset files differ in style: Fashion IQ's are indented by four spaces with no
final newline, CIRR's are one compact line with ``", "`` and ``": "``. ``detect_format``
finds the ``json.dumps`` options (indent, separators, ASCII escaping, final newline) that
reproduce a file exactly, plus the key order of its entries; ``dump`` writes data that
way. A file no option reproduces gets ``None`` and is exported in the default style.
"""

from __future__ import annotations

import json
from itertools import product
from pathlib import Path
from typing import Any

DEFAULT_FORMAT: dict[str, Any] = {
    "indent": 4,
    "separators": [",", ": "],
    "ensure_ascii": True,
    "newline": False,
}


def _indent_guess(text: str) -> list[int | str | None]:
    """Candidate indents, the one the second line suggests first."""
    candidates: list[int | str | None] = [None, 4, 2, "\t", 1, 3, 8]
    lines = text.split("\n", 2)
    if len(lines) > 1:
        line = lines[1]
        stripped = line.lstrip(" \t")
        lead = line[: len(line) - len(stripped)]
        guess: int | str | None = "\t" if lead.startswith("\t") else len(lead) or None
        if guess in candidates:
            candidates.remove(guess)
        candidates.insert(0, guess)
    return candidates


def detect_format(text: str, data: Any) -> dict[str, Any] | None:
    """The options under which ``dump(data, format)`` equals ``text``; None if none do."""
    newline = text.endswith("\n")
    body = text[:-1] if newline else text
    ascii_only = body.isascii()
    ascii_choices = [True, False] if ascii_only else [False]
    for indent in _indent_guess(body):
        item = [",", ", "] if indent is not None else [", ", ","]
        for item_sep, key_sep, ensure_ascii in product(item, [": ", ":"], ascii_choices):
            options = {
                "indent": indent,
                "separators": [item_sep, key_sep],
                "ensure_ascii": ensure_ascii,
                "newline": newline,
            }
            if _dumps(data, options) == body:
                return {**options, "keys": entry_keys(data)}
    return None


def file_format(path: Path) -> dict[str, Any] | None:
    """``detect_format`` of a file on disk (None when it cannot be read or parsed)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
        return detect_format(text, json.loads(text))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None


def entry_keys(data: Any) -> list[str]:
    """The key order of the file's entries (the first object entry's), if it has any."""
    entries = data if isinstance(data, list) else []
    for entry in entries:
        if isinstance(entry, dict):
            return list(entry)
    return []


def _dumps(data: Any, options: dict[str, Any]) -> str:
    return json.dumps(
        data,
        indent=options.get("indent"),
        separators=tuple(options.get("separators") or DEFAULT_FORMAT["separators"]),
        ensure_ascii=bool(options.get("ensure_ascii", True)),
    )


def dump(data: Any, options: dict[str, Any] | None) -> str:
    """``data`` as text in the recorded style (the default style when None)."""
    options = options or DEFAULT_FORMAT
    return _dumps(data, options) + ("\n" if options.get("newline") else "")


def ordered(entry: dict[str, Any], keys: list[str] | None) -> dict[str, Any]:
    """``entry`` with its keys in the recorded order (unknown keys after them)."""
    if not keys:
        return entry
    first = {key: entry[key] for key in keys if key in entry}
    return {**first, **{key: value for key, value in entry.items() if key not in first}}
