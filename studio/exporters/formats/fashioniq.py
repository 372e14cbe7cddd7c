"""``cir-studio export fashioniq``: Fashion IQ files (captions/ and image_splits/) in the folder OUT."""

from __future__ import annotations

from studio.exporters.formats._common import SOURCE, out, pairs_outcome, pairs_writer
from studio.exporters.registry import ExportFormat

FORMAT = ExportFormat(
    name="fashioniq",
    title="Fashion IQ files",
    description="Fashion IQ files (captions/ and image_splits/) in the folder OUT",
    options=(out("folder"), SOURCE),
    write=pairs_writer("studio.exporters.fashioniq", "export_fashioniq"),
    outcome=pairs_outcome,
)
