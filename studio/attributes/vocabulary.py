"""The project's attribute vocabulary: read it, and edit it one audited change at a time.

Every edit (add, rename, retype, set synonyms, merge, remove, import) is one transaction
with one audit-log row through ``Project.change``, so a reviewer can see who changed a
word and undo it by hand. No two attributes may share a spelling once plural forms and
separators are taken into account (``forms.match_key``): otherwise the extractor could
not tell which one a word in a description means.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from studio.attributes.forms import match_key, variant_keys
from studio.attributes.records import ATTRIBUTE_TYPES, VocabularyEntry
from studio.errors import ValidationError
from studio.store import Project
from studio.store.database import utc_now
from studio.store.repos import attributes as attributes_repo

ENTITY = "attribute_vocab"
# An attribute is a word or a short phrase ("a-line", "floral print"); longer text is a
# mistake (a description pasted into the name column) and is refused.
MAX_ATTRIBUTE_CHARS = 60


class VocabularyError(ValidationError):
    """A vocabulary edit or file that would leave the vocabulary ambiguous or broken."""


def clean_name(name: str) -> str:
    return " ".join(str(name).split())


def clean_synonyms(name: str, synonyms: Iterable[str]) -> tuple[str, ...]:
    """Trimmed synonyms without repeats, without spellings of the name itself."""
    seen = {match_key(name)}
    out: list[str] = []
    for synonym in synonyms:
        text = clean_name(synonym)
        key = match_key(text)
        if key and key not in seen:
            seen.add(key)
            out.append(text)
    return tuple(out)


def make_entry(name: str, type_: str, synonyms: Iterable[str] = ()) -> VocabularyEntry:
    """A checked entry; raises VocabularyError with a message a person can act on."""
    name = clean_name(name)
    if type_ not in ATTRIBUTE_TYPES:
        raise VocabularyError(
            f"unknown type {type_!r} for {name!r}; expected one of {', '.join(ATTRIBUTE_TYPES)}"
        )
    if len(name) > MAX_ATTRIBUTE_CHARS:
        raise VocabularyError(
            f"an attribute name of {len(name):,} characters ({name[:30]!r}…) is too long; "
            f"the limit is {MAX_ATTRIBUTE_CHARS}"
        )
    if not match_key(name):
        raise VocabularyError(f"{name!r} is not a usable attribute name (it has no letters)")
    return VocabularyEntry(name, type_, clean_synonyms(name, synonyms))  # type: ignore[arg-type]


Owners = dict[str, tuple[str, str]]


def spelling_owners(entries: Iterable[VocabularyEntry]) -> Owners:
    """Every key any spelling of ``entries`` matches -> (attribute name, the spelling)."""
    owners: Owners = {}
    for entry in entries:
        for term in entry.terms:
            for key in variant_keys([term]):
                owners.setdefault(key, (entry.name, term))
    return owners


def clash(entry: VocabularyEntry, owners: Owners) -> str | None:
    """Why ``entry`` cannot live beside the owners' attributes (a shared spelling), or None."""
    for term in entry.terms:
        for key in sorted(variant_keys([term])):
            owner = owners.get(key)
            if owner is not None and owner[0] != entry.name:
                return f"{term!r} is spelled like {owner[1]!r} of {owner[0]!r}"
    return None


# -- reading -------------------------------------------------------------------------


def entry_from_row(row: Mapping[str, Any]) -> VocabularyEntry:
    """The entry of a vocabulary row (``id``, ``name``, ``type``, ``synonyms`` as JSON)."""
    return VocabularyEntry(
        name=row["name"], type=row["type"], synonyms=tuple(json.loads(row["synonyms"])),
        id=int(row["id"]),
    )


def load_vocabulary(project: Project) -> list[VocabularyEntry]:
    """All attributes, grouped by type then by name."""
    return [entry_from_row(row) for row in attributes_repo.vocabulary_rows(project)]


def find_entry(project: Project, name: str) -> VocabularyEntry | None:
    row = attributes_repo.vocabulary_row(project, clean_name(name))
    return entry_from_row(row) if row else None


def get_entry(project: Project, name: str) -> VocabularyEntry:
    entry = find_entry(project, name)
    if entry is None:
        raise VocabularyError(f"There is no attribute {name!r} in the project's vocabulary.")
    return entry


# -- editing -------------------------------------------------------------------------


def _check_fits(project: Project, entry: VocabularyEntry, ignore: Sequence[str] = ()) -> None:
    others = [e for e in load_vocabulary(project) if e.name not in ignore]
    problem = clash(entry, spelling_owners(others))
    if problem:
        raise VocabularyError(f"Cannot use {entry.name!r}: {problem}.")


def add_attribute(
    project: Project, actor: str, name: str, type_: str, synonyms: Iterable[str] = ()
) -> VocabularyEntry:
    entry = make_entry(name, type_, synonyms)
    if find_entry(project, entry.name) is not None:
        raise VocabularyError(f"The vocabulary already has {entry.name!r}.")
    _check_fits(project, entry)
    with project.change(actor, "vocabulary.add", ENTITY) as record:
        record["entity_id"] = attributes_repo.add_attribute(
            project, entry.name, entry.type, json.dumps(list(entry.synonyms)), utc_now()
        )
        record["after"] = entry.to_json()
    return get_entry(project, entry.name)


def _update(project: Project, actor: str, action: str, old: VocabularyEntry,
            new: VocabularyEntry) -> VocabularyEntry:
    with project.change(actor, action, ENTITY, old.id, before=old.to_json()) as record:
        attributes_repo.update_attribute(
            project, int(old.id or 0), new.name, new.type, json.dumps(list(new.synonyms))
        )
        record["after"] = new.to_json()
    return get_entry(project, new.name)


def rename_attribute(project: Project, actor: str, name: str, new_name: str) -> VocabularyEntry:
    old = get_entry(project, name)
    new = make_entry(new_name, old.type, old.synonyms)
    if new.name == old.name:
        return old
    existing = find_entry(project, new.name)
    if existing is not None:
        raise VocabularyError(
            f"Cannot rename {old.name!r} to {new.name!r}: that attribute exists; merge instead."
        )
    _check_fits(project, new, ignore=[old.name])
    return _update(project, actor, "vocabulary.rename", old, new)


def retype_attribute(project: Project, actor: str, name: str, type_: str) -> VocabularyEntry:
    old = get_entry(project, name)
    new = make_entry(old.name, type_, old.synonyms)
    if new.type == old.type:
        return old
    return _update(project, actor, "vocabulary.retype", old, new)


def set_synonyms(
    project: Project, actor: str, name: str, synonyms: Iterable[str]
) -> VocabularyEntry:
    old = get_entry(project, name)
    new = make_entry(old.name, old.type, synonyms)
    if new.synonyms == old.synonyms:
        return old
    _check_fits(project, new)
    return _update(project, actor, "vocabulary.synonyms", old, new)


def merge_attributes(
    project: Project, actor: str, sources: Sequence[str], into: str
) -> VocabularyEntry:
    """Fold ``sources`` into ``into``: their spellings become synonyms, their labels move.

    Where an image has the same (source, model) label on both, one row survives, keeping
    a person's decision over a mere suggestion and the higher confidence.
    """
    target = get_entry(project, into)
    merged = [get_entry(project, name) for name in dict.fromkeys(sources) if name != target.name]
    if not merged:
        return target
    spellings = [*target.synonyms]
    for entry in merged:
        spellings += entry.terms
    new = make_entry(target.name, target.type, spellings)
    before = {"into": target.to_json(), "merged": [e.to_json() for e in merged]}
    with project.change(actor, "vocabulary.merge", ENTITY, target.id, before=before) as record:
        for entry in merged:
            attributes_repo.merge_attribute_into(project, int(entry.id or 0), int(target.id or 0))
        attributes_repo.set_synonyms(
            project, int(target.id or 0), json.dumps(list(new.synonyms))
        )
        record["after"] = new.to_json()
    return get_entry(project, target.name)


def remove_attribute(project: Project, actor: str, name: str) -> int:
    """Delete an attribute and its labels; returns how many labels went with it."""
    old = get_entry(project, name)
    with project.change(actor, "vocabulary.remove", ENTITY, old.id, before=old.to_json()) as rec:
        labels = attributes_repo.remove_attribute(project, int(old.id or 0))
        rec["after"] = {"removed": old.name, "labels_removed": int(labels)}
    return int(labels)


def store_entries(
    project: Project, actor: str, entries: Sequence[VocabularyEntry], origin: str
) -> tuple[int, int]:
    """Add new names and update changed ones, all or nothing; returns (added, updated).

    Storing the same entries twice changes nothing the second time.
    """
    current = {e.name: e for e in load_vocabulary(project)}
    final = dict(current)
    for entry in entries:
        final[entry.name] = entry
    owners = spelling_owners(final.values())
    for entry in entries:
        problem = clash(entry, owners)
        if problem:
            raise VocabularyError(f"{origin}: cannot use {entry.name!r}: {problem}.")
    added = [e for e in entries if e.name not in current]
    updated = [
        e for e in entries
        if e.name in current
        and (current[e.name].type, current[e.name].synonyms) != (e.type, e.synonyms)
    ]
    if not added and not updated:
        return 0, 0
    before = {"updated": [current[e.name].to_json() for e in updated]}
    with project.change(actor, "vocabulary.import", ENTITY, before=before) as record:
        now = utc_now()
        for entry in added:
            attributes_repo.add_attribute(
                project, entry.name, entry.type, json.dumps(list(entry.synonyms)), now
            )
        for entry in updated:
            attributes_repo.update_attribute_by_name(
                project, entry.name, entry.type, json.dumps(list(entry.synonyms))
            )
        record["after"] = {
            "origin": origin,
            "added": [e.name for e in added],
            "updated": [e.to_json() for e in updated],
        }
    return len(added), len(updated)
