"""``cir-studio export cirr``: CIRR files (captions/ and image_splits/) in the folder OUT."""

from __future__ import annotations

from studio.exporters.formats._common import SOURCE, out, pairs_outcome, pairs_writer
from studio.exporters.registry import ExportFormat

FORMAT = ExportFormat(
    name="cirr",
    title="CIRR files",
    description="CIRR files (captions/ and image_splits/) in the folder OUT",
    options=(out("folder"), SOURCE),
    write=pairs_writer("studio.exporters.cirr", "export_cirr"),
    outcome=pairs_outcome,
)
