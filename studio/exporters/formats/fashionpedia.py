"""``cir-studio export fashionpedia``: the outfits as one Fashionpedia (COCO-style) file."""

from __future__ import annotations

from studio.exporters.formats import _outfits
from studio.exporters.formats._common import counts_outcome
from studio.exporters.registry import ExportFormat

FORMAT = ExportFormat(
    name="fashionpedia",
    title="Fashionpedia outfits",
    description="the outfits as one Fashionpedia (COCO-style) file OUT",
    options=(_outfits.OUT,),
    write=_outfits.writer("studio.outfits.fashionpedia_write", "export_fashionpedia"),
    outcome=counts_outcome,
)
