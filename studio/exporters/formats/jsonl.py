"""``cir-studio export jsonl``: one JSON line per pair with every caption's author, reviewer, status and times."""

from __future__ import annotations

from studio.exporters.formats._common import SOURCE, out, pairs_outcome, pairs_writer
from studio.exporters.registry import ExportFormat

FORMAT = ExportFormat(
    name="jsonl",
    title="Pairs as JSON Lines",
    description="one JSON line per pair with every caption's author, reviewer, status and times",
    options=(out("path", "the .jsonl file to write"), SOURCE),
    write=pairs_writer("studio.exporters.jsonl", "export_jsonl"),
    outcome=pairs_outcome,
)
