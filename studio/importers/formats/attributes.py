"""Attribute vocabulary (JSON or CSV) or attribute labels (JSON Lines)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from studio.importers.registry import ImportFormat, Option, Outcome


def read(project: Any, *, file: Path, actor: str, progress: Any, cancel: Any) -> Any:
    file = Path(file).expanduser()
    progress(0, 1, "checking")
    if file.suffix.lower() == ".jsonl":
        from studio.attributes.labels_io import import_labels

        result: dict[str, Any] = {"labels": True, **import_labels(project, actor, file)}
    else:
        from studio.attributes.vocabulary_io import import_vocabulary

        added, updated = import_vocabulary(project, actor, file)
        result = {"labels": False, "added": added, "updated": updated}
    progress(1, 1, "done")
    return result


def outcome(report: Any) -> Outcome:
    if report["labels"]:
        text = (f"Read {report['lines']:,} labels; {report['changed']:,} rows changed, "
                f"{report['attributes_added']:,} attributes added.")
    else:
        text = f"Vocabulary: {report['added']:,} attributes added, {report['updated']:,} updated."
    return Outcome(text, data=report)


FORMAT = ImportFormat(
    name="attributes",
    title="Attribute vocabulary or labels",
    description="an attribute vocabulary (JSON or CSV) or attribute labels (JSON Lines)",
    details="A vocabulary (.json/.csv) is merged into the project's; labels (.jsonl: "
    "image_id, attribute, type, source, confidence, model) are checked completely before "
    "anything is stored, and errors name the file and the line.",
    options=(Option("file", "file", "vocabulary .json/.csv or labels .jsonl",
                    label="Vocabulary or labels file", metavar="FILE"),),
    read=read,
    outcome=outcome,
    terminal_progress=False,
)
