"""``cir-studio export ranking``: the top-K gallery ids per pair, from the index."""

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
    name="ranking",
    title="Ranking (Fashion IQ challenge)",
    description="the top-50 gallery ids per pair (Fashion IQ challenge format) from the index",
    options=(
        out("path"), SOURCE, MODEL, DEVICE,
        Option("k", "int", "ids per ranking", label="Ids per ranking", default=50, flag="--k",
               minimum=1),
        Option("strategy", "text", "sum (default), text, image or combiner:NAME",
               label="Strategy", default="sum", flag="--strategy", dest="export_strategy"),
    ),
    write=ranked_writer("studio.exporters.ranking", "export_ranking"),
    outcome=pairs_outcome,
)
