"""Options shared by the outfit formats (Fashionpedia, FashionX): one JSON file, its
pictures, and an ontology file to add first."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from studio.importers.formats._common import optional_path
from studio.importers.registry import Option

OPTIONS = (
    Option("file", "file", "the JSON file", label="Annotation file", metavar="FILE"),
    Option("images", "folder", "folder of the picture files (default: FILE's folder/images)",
           label="Pictures folder", flag="--images", metavar="DIR"),
    Option("ontology", "file", "first add a Fashionpedia-style ontology file (categories and "
           "attributes): the one the file's names come from (an export's NAME.ontology.json "
           "beside it is read without this)", label="Ontology file", flag="--ontology",
           metavar="FILE"),
)
DETAILS = (". The whole file is checked first; any problem (listed by entry) stops the "
           "import before anything is written.")


def image_root(values: Mapping[str, Any], _project: Path | None) -> Path:
    return optional_path(values.get("images")) or Path(values["file"]).parent / "images"


def reader(importer: Callable[[], Callable[..., Any]]) -> Callable[..., Any]:
    """``read`` for an outfit importer: the ontology file first (when given), then the file,
    with its pictures in FILE's folder/images unless --images says otherwise."""

    def read(project: Any, *, file: Path, images: Path | None, ontology: Path | None,
             actor: str, **options: Any) -> Any:
        file = Path(file).expanduser()
        if ontology_file := optional_path(ontology):
            from studio.outfits.ontology import import_ontology_file

            import_ontology_file(project, ontology_file, actor)
        folder = optional_path(images) or file.parent / "images"
        return importer()(project, file, folder, actor=actor, **options)

    return read
