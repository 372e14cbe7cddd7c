"""Fashionpedia (COCO-style): garments and parts with masks, categories and attributes."""

from __future__ import annotations

from typing import Any

from studio.importers.formats import _outfits
from studio.importers.formats._common import counts_report
from studio.importers.registry import ImportFormat, Outcome


def _importer() -> Any:
    from studio.outfits.fashionpedia import import_fashionpedia

    return import_fashionpedia


def outcome(report: Any) -> Outcome:
    return counts_report("Fashionpedia", report.to_dict())


DESCRIPTION = ("a Fashionpedia (COCO-style) file: garments and parts with polygons or RLE "
               "masks, categories and attributes")
FORMAT = ImportFormat(
    name="fashionpedia",
    title="Fashionpedia outfits",
    description=DESCRIPTION,
    details=DESCRIPTION[0].upper() + DESCRIPTION[1:] + _outfits.DETAILS,
    options=_outfits.OPTIONS,
    read=_outfits.reader(_importer),
    outcome=outcome,
    image_root=_outfits.image_root,
)
