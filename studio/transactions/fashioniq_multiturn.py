"""Multi-turn Fashion IQ files: Fashion IQ's caption entries chained into transactions.

Fashion IQ stores one pair per entry (``{candidate, target, captions[2]}``). The multi-turn
form keeps its key names and makes ``target`` a list::

    [{"id": "optional-key",
      "candidate": "B0001",
      "targets": ["B0002", "B0003"],
      "captions": [["is red", "has longer sleeves"], "is shorter"]}]

Turn ``k`` modifies the previous image into ``targets[k-1]``; ``captions[k-1]`` is one
string or Fashion IQ's list of relative captions for that pair, joined with " and " as
CIR models usually read them. ``id`` (optional) is the entry's stable key; without it the
chain of image ids is the key.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from studio.transactions.problems import EntryProblem, ParsedEntry, parse_each
from studio.transactions.records import Transaction, sequential_turns

REQUIRED_KEYS = ("candidate", "targets", "captions")
ALLOWED_KEYS = {*REQUIRED_KEYS, "id"}
JOINER = " and "


def parse_entries(
    data: list[Any], path: Path, dataset: str
) -> tuple[list[ParsedEntry], list[EntryProblem]]:
    """Check every entry's schema; duplicates and image ids are the importer's concern."""
    return parse_each(data, path, dataset, _parse_one)


def _turn_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, list) and value and all(isinstance(v, str) and v.strip() for v in value):
        return JOINER.join(v.strip() for v in value)
    return None


def _parse_one(entry: Any, index: int, path: Path, dataset: str) -> ParsedEntry | EntryProblem:
    def problem(key: str | None, message: str) -> EntryProblem:
        return EntryProblem(path, index, key, message)

    if not isinstance(entry, dict):
        return problem(None, f"expected an object, found {type(entry).__name__}")
    for key in entry:
        if key not in ALLOWED_KEYS:
            return problem(key, "unknown key (expected candidate, targets, captions, id)")
    for key in REQUIRED_KEYS:
        if key not in entry:
            return problem(key, "missing key")
    candidate, targets, captions = entry["candidate"], entry["targets"], entry["captions"]
    if not isinstance(candidate, str) or not candidate.strip():
        return problem("candidate", "must be a non-empty image id")
    if not isinstance(targets, list) or not targets:
        return problem("targets", "must be a non-empty list of image ids")
    for k, target in enumerate(targets):
        if not isinstance(target, str) or not target.strip():
            return problem(f"targets[{k}]", "must be a non-empty image id")
    if not isinstance(captions, list) or len(captions) != len(targets):
        return problem("captions", f"must be a list with one entry per target ({len(targets)})")
    texts: list[str] = []
    for k, value in enumerate(captions):
        text = _turn_text(value)
        if text is None:
            return problem(f"captions[{k}]", "must be a caption or a non-empty list of captions")
        texts.append(text)
    images = (candidate, *targets)
    key = entry.get("id", "|".join(images))
    if not isinstance(key, str) or not key.strip():
        return problem("id", "must be a non-empty string")
    transaction = Transaction(
        dataset=dataset,
        external_key=key,
        image_ids=images,
        turns=sequential_turns(texts),
    )
    image_keys = ("candidate", *(f"targets[{k}]" for k in range(len(targets))))
    return ParsedEntry(index, transaction, image_keys)


def to_entry(transaction: Transaction) -> dict[str, Any]:
    """One multi-turn Fashion IQ object; each turn's text becomes a one-caption list."""
    return {
        "id": transaction.external_key,
        "candidate": transaction.image_ids[0],
        "targets": list(transaction.image_ids[1:]),
        "captions": [[turn.text] for turn in transaction.turns],
    }
