"""FashionX-style JSON: one hierarchical (head-to-toe) annotation per picture."""

from __future__ import annotations

from typing import Any

from studio.importers.formats import _outfits
from studio.importers.formats._common import counts_report
from studio.importers.registry import ImportFormat, Outcome


def _importer() -> Any:
    from studio.outfits.fashionx_io import import_fashionx

    return import_fashionx


def outcome(report: Any) -> Outcome:
    return counts_report("FashionX", report)


DESCRIPTION = ("a FashionX-style JSON file: one hierarchical annotation per picture "
               "(docs/fashionx.schema.json)")
FORMAT = ImportFormat(
    name="fashionx",
    title="FashionX outfits",
    description=DESCRIPTION,
    details=DESCRIPTION[0].upper() + DESCRIPTION[1:] + _outfits.DETAILS,
    options=_outfits.OPTIONS,
    read=_outfits.reader(_importer),
    outcome=outcome,
    image_root=_outfits.image_root,
)
