"""A Fashionpedia-style outfit ontology file: categories and attributes to annotate with."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from studio.importers.formats._common import counts_report
from studio.importers.registry import ImportFormat, Option, Outcome


def read(project: Any, *, file: Path, actor: str, progress: Any, cancel: Any) -> Any:
    from studio.outfits.ontology import import_ontology_file

    progress(0, 1, "checking")
    counts = import_ontology_file(project, Path(file).expanduser(), actor)
    progress(1, 1, "done")
    return counts


def outcome(report: Any) -> Outcome:
    return counts_report("the outfit ontology", {f"{key} added": value
                                                 for key, value in report.items()})


FORMAT = ImportFormat(
    name="ontology",
    title="Outfit ontology",
    description="a Fashionpedia-style ontology file (categories and attributes, such as "
    "category_attributes_descriptions.json) for outfit annotation",
    details="Add the categories and attributes of an ontology file to the project's outfit "
    "ontology; the whole file is checked first.",
    options=(Option("file", "file", "the ontology JSON file", label="Ontology file",
                    metavar="FILE"),),
    read=read,
    outcome=outcome,
)
