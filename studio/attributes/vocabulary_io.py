"""Vocabulary files: JSON and CSV, read all-or-nothing with errors naming file and entry.

JSON is ``{"format": "cir-studio-vocabulary", "version": 1, "attributes": [{"name",
"type", "synonyms": [...]}, ...]}`` (a bare list of such objects is accepted too). CSV
has the header ``name,type,synonyms`` with synonyms separated by ``|``. A file is
checked completely (types, duplicate names, spellings shared by two attributes) before
anything is stored, so a bad file never leaves half an import behind.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from resources import resource_path
from studio.attributes.records import VocabularyEntry
from studio.attributes.vocabulary import (
    VocabularyError,
    clash,
    load_vocabulary,
    make_entry,
    spelling_owners,
    store_entries,
)
from studio.store import Project
from studio.store.repos import attributes as attributes_repo

FORMAT = "cir-studio-vocabulary"
CSV_FIELDS = ("name", "type", "synonyms")
SYNONYM_SEPARATOR = "|"
STARTER = "starter.json"


def _parse_json(path: Path, text: str) -> list[tuple[str, object]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise VocabularyError(
            f"{path}: not valid JSON ({error.msg} at line {error.lineno}, column {error.colno})"
        ) from error
    if isinstance(data, dict):
        if data.get("format", FORMAT) != FORMAT:
            raise VocabularyError(f"{path}: format {data.get('format')!r} is not {FORMAT!r}")
        data = data.get("attributes")
    if not isinstance(data, list):
        raise VocabularyError(f"{path}: expected a list of attributes under \"attributes\"")
    return [(f"entry {number}", item) for number, item in enumerate(data, start=1)]


def _parse_csv(path: Path, text: str) -> list[tuple[str, object]]:
    try:
        rows = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    except csv.Error as error:
        raise VocabularyError(f"{path}: not valid CSV ({error})") from error
    if not rows or [cell.strip().lower() for cell in rows[0]] != list(CSV_FIELDS):
        raise VocabularyError(f"{path}, line 1: the header must be {','.join(CSV_FIELDS)}")
    out: list[tuple[str, object]] = []
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(CSV_FIELDS):
            raise VocabularyError(
                f"{path}, line {number}: expected {len(CSV_FIELDS)} fields "
                f"({', '.join(CSV_FIELDS)}), found {len(row)}"
            )
        name, type_, synonyms = row
        item = {"name": name, "type": type_.strip(), "synonyms": synonyms.split(SYNONYM_SEPARATOR)}
        out.append((f"line {number}", item))
    return out


def _entry(path: Path, where: str, item: object) -> VocabularyEntry:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        raise VocabularyError(f"{path}, {where}: expected an object with a text \"name\"")
    label = f"{path}, {where} ({item['name']!r})"
    synonyms = item.get("synonyms", [])
    if not isinstance(synonyms, list) or not all(isinstance(s, str) for s in synonyms):
        raise VocabularyError(f"{label}: \"synonyms\" must be a list of texts")
    try:
        return make_entry(item["name"], str(item.get("type", "")), [s for s in synonyms if s.strip()])
    except (VocabularyError, ValueError) as error:
        raise VocabularyError(f"{label}: {error}") from error


def read_vocabulary_file(path: Path) -> list[VocabularyEntry]:
    """Parse and check a JSON or CSV vocabulary (chosen by suffix) on its own."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise VocabularyError(f"{path}: cannot read the file ({error})") from error
    items = _parse_csv(path, text) if path.suffix.lower() == ".csv" else _parse_json(path, text)
    placed: list[tuple[str, VocabularyEntry]] = []
    first_at: dict[str, str] = {}
    for where, item in items:
        entry = _entry(path, where, item)
        if entry.name in first_at:
            raise VocabularyError(
                f"{path}, {where} ({entry.name!r}): duplicate name, first at {first_at[entry.name]}"
            )
        first_at[entry.name] = where
        placed.append((where, entry))
    entries = [entry for _, entry in placed]
    owners = spelling_owners(entries)
    for where, entry in placed:
        problem = clash(entry, owners)
        if problem:
            raise VocabularyError(f"{path}, {where} ({entry.name!r}): {problem}")
    return entries


def import_vocabulary(project: Project, actor: str, path: Path) -> tuple[int, int]:
    """Merge a vocabulary file into the project's; returns (added, updated)."""
    entries = read_vocabulary_file(path)
    return store_entries(project, actor, entries, origin=str(path))


def starter_vocabulary() -> list[VocabularyEntry]:
    return read_vocabulary_file(resource_path("vocabulary", STARTER))


def ensure_vocabulary(project: Project, actor: str) -> int:
    """Give a project without a vocabulary the starter one; returns how many were added."""
    if attributes_repo.has_vocabulary(project):
        return 0
    added, _ = store_entries(project, actor, starter_vocabulary(), origin=STARTER)
    return added


def export_vocabulary(project: Project, path: Path) -> int:
    """Write the project's vocabulary as JSON or CSV (by suffix); returns the count."""
    entries = load_vocabulary(project)
    path = Path(path)
    if path.suffix.lower() == ".csv":
        buffer = io.StringIO(newline="")
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(CSV_FIELDS)
        for entry in entries:
            writer.writerow([entry.name, entry.type, SYNONYM_SEPARATOR.join(entry.synonyms)])
        text = buffer.getvalue()
    else:
        doc = {"format": FORMAT, "version": 1, "attributes": [e.to_json() for e in entries]}
        text = json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise VocabularyError(f"{path}: cannot write the file ({error})") from error
    return len(entries)
