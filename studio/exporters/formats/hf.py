"""``cir-studio export hf``: a Hugging Face dataset folder (Parquet and a dataset card)."""

from __future__ import annotations

from studio.exporters.formats._common import SOURCE, out, pairs_outcome, pairs_writer
from studio.exporters.registry import ExportFormat
from studio.importers.registry import Option

FORMAT = ExportFormat(
    name="hf",
    title="Hugging Face dataset folder",
    description="a Hugging Face dataset folder: Parquet per config and split (triplets, "
    "sessions, gallery) with the pictures embedded, and a dataset card README.md",
    options=(
        out("folder"), SOURCE,
        Option("annotations_only", "bool", "ids and paths, no picture bytes",
               label="Annotations only (no picture bytes)", default=False,
               flag="--annotations-only"),
        Option("split", "text", "only the pairs (and galleries) of this split",
               label="Only the split", flag="--split", dest="export_split"),
    ),
    write=pairs_writer("studio.hf.export", "export_hf"),
    outcome=pairs_outcome,
)
