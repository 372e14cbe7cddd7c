"""``cir-studio export cirr-submission``: CIRR's test-server files."""

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
    name="cirr-submission",
    title="CIRR test-server submission",
    description="CIRR's test-server files test1_pred_ranks_recall.json and "
    "test1_pred_ranks_recall_subset.json (top 50, reference removed; top 3 of the image set) "
    "in the folder OUT",
    options=(
        out("folder"), SOURCE,
        Option("split", "text", "the CIRR split to predict", label="Split", default="test1",
               flag="--split", dest="export_split"),
        MODEL, DEVICE,
    ),
    write=ranked_writer("studio.exporters.cirr_submission", "export_cirr_submission"),
    outcome=pairs_outcome,
)
