"""``cir-studio export fashionx``: the outfits as a FashionX-style JSON file."""

from __future__ import annotations

from studio.exporters.formats import _outfits
from studio.exporters.formats._common import counts_outcome
from studio.exporters.registry import ExportFormat

FORMAT = ExportFormat(
    name="fashionx",
    title="FashionX outfits",
    description="the outfits as a FashionX-style JSON file OUT (one object per picture)",
    options=(_outfits.OUT,),
    write=_outfits.writer("studio.outfits.fashionx_io", "export_fashionx"),
    outcome=counts_outcome,
)
