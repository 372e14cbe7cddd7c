"""``cir-studio export circo-submission``: CIRCO's test-server file."""

from __future__ import annotations

from studio.exporters.formats._common import (
    DEVICE,
    MODEL,
    SOURCE,
    out,
    pairs_outcome,
    ranked_writer,
)
from studio.exporters.registry import ExportFormat
from studio.importers.registry import Option

FORMAT = ExportFormat(
    name="circo-submission",
    title="CIRCO test-server submission",
    description="CIRCO's test-server file: each query id with its top 50 image ids, ranked "
    "with the project's model (OUT a folder or a .json file)",
    options=(
        out("path", "folder or .json file to write"), SOURCE,
        Option("split", "text", "the CIRCO split to predict", label="Split", default="test",
               flag="--split", dest="export_split"),
        Option("strategy", "text", "sum (default), text, image, history or combiner:NAME",
               label="Strategy", default="sum", flag="--strategy", dest="export_strategy"),
        MODEL, DEVICE,
    ),
    write=ranked_writer("studio.exporters.circo_submission", "export_circo_submission"),
    outcome=pairs_outcome,
)
