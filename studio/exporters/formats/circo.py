"""``cir-studio export circo``: CIRCO files (annotations/SPLIT.json, every entry as imported) in the folder OUT."""

from __future__ import annotations

from studio.exporters.formats._common import SOURCE, out, pairs_outcome, pairs_writer
from studio.exporters.registry import ExportFormat

FORMAT = ExportFormat(
    name="circo",
    title="CIRCO files",
    description="CIRCO files (annotations/SPLIT.json, every entry as imported) in the folder OUT",
    options=(out("folder"), SOURCE),
    write=pairs_writer("studio.exporters.circo", "export_circo"),
    outcome=pairs_outcome,
)
