"""FashionMT transaction files: a JSON list of ``{ref, tar1…tarN, mod1…modN, cap0…capN}``.

N is read from each entry's ``tarK`` keys (FashionMT has three turns, but nothing here
assumes it). Captions are optional; when present there is one per image. Every turn of a
FashionMT file modifies the previous target, rollbacks and combinations included: the
text, not the reference, says which earlier item it means.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from studio.transactions.problems import EntryProblem, ParsedEntry, parse_each
from studio.transactions.records import Transaction, sequential_turns

_NUMBERED = re.compile(r"^(tar|mod|cap)(\d+)$")


def parse_entries(
    data: list[Any], path: Path, dataset: str
) -> tuple[list[ParsedEntry], list[EntryProblem]]:
    """Check every entry's schema; duplicates and image ids are the importer's concern."""
    return parse_each(data, path, dataset, _parse_one)


def _parse_one(entry: Any, index: int, path: Path, dataset: str) -> ParsedEntry | EntryProblem:
    def problem(key: str | None, message: str) -> EntryProblem:
        return EntryProblem(path, index, key, message)

    if not isinstance(entry, dict):
        return problem(None, f"expected an object, found {type(entry).__name__}")
    numbered: dict[str, dict[int, Any]] = {"tar": {}, "mod": {}, "cap": {}}
    for key, value in entry.items():
        match = _NUMBERED.match(key)
        if match:
            numbered[match.group(1)][int(match.group(2))] = value
        elif key != "ref":
            return problem(key, "unknown key (expected ref, tarK, modK, capK)")
    if "ref" not in entry:
        return problem("ref", "missing key")
    n = max(numbered["tar"], default=0)
    if n == 0:
        return problem("tar1", "missing key: a transaction needs at least one turn")
    for prefix in ("tar", "mod"):
        for k in range(1, n + 1):
            if k not in numbered[prefix]:
                return problem(f"{prefix}{k}", "missing key")
        extra = sorted(set(numbered[prefix]) - set(range(1, n + 1)))
        if extra:
            return problem(f"{prefix}{extra[0]}", f"unexpected key for {n} turns")
    captions: list[str] = []
    if numbered["cap"]:
        for k in range(n + 1):
            if k not in numbered["cap"]:
                return problem(f"cap{k}", "missing key (captions are all or none)")
        extra = sorted(set(numbered["cap"]) - set(range(n + 1)))
        if extra:
            return problem(f"cap{extra[0]}", f"unexpected key for {n} turns")
        captions = [numbered["cap"][k] for k in range(n + 1)]
    image_keys = ("ref", *(f"tar{k}" for k in range(1, n + 1)))
    images = [entry["ref"], *(numbered["tar"][k] for k in range(1, n + 1))]
    for key, value in zip(image_keys, images, strict=True):
        if not isinstance(value, str) or not value.strip():
            return problem(key, "must be a non-empty image id")
    texts = [numbered["mod"][k] for k in range(1, n + 1)]
    for k, value in enumerate(texts, start=1):
        if not isinstance(value, str) or not value.strip():
            return problem(f"mod{k}", "must be a non-empty modification text")
    for k, value in enumerate(captions):
        if not isinstance(value, str):
            return problem(f"cap{k}", "must be a string")
    transaction = Transaction(
        dataset=dataset,
        external_key="|".join(images),
        image_ids=tuple(images),
        turns=sequential_turns(texts),  # verbatim: the authors' texts end with a space
        captions=tuple(captions),
        layout=tuple(entry),
    )
    return ParsedEntry(index, transaction, image_keys)


def to_entry(transaction: Transaction) -> dict[str, str]:
    """One FashionMT object in its source's key order and with its image references as
    written; new data grouped as the authors' files are: ``ref, tar1…, mod1…, cap0…``
    (the ``capK`` keys only when the transaction has captions)."""
    refs = transaction.image_refs or transaction.image_ids
    values: dict[str, str] = {"ref": refs[0]}
    for turn in transaction.turns:
        values[f"tar{turn.index}"] = refs[turn.index]
    for turn in transaction.turns:
        values[f"mod{turn.index}"] = turn.text
    if any(transaction.captions):
        for position, caption in enumerate(transaction.captions):
            values[f"cap{position}"] = caption
    if transaction.layout and set(transaction.layout) == set(values):
        return {key: values[key] for key in transaction.layout}
    return values
