"""``cir-studio export omnifashion``: OmniFashion-style dialogue samples (JSON Lines)."""

from __future__ import annotations

from studio.exporters.formats import _outfits
from studio.exporters.formats._common import counts_outcome
from studio.exporters.registry import ExportFormat
from studio.importers.registry import Option

FORMAT = ExportFormat(
    name="omnifashion",
    title="OmniFashion dialogues",
    description="OmniFashion-style dialogue samples as JSON Lines in OUT",
    options=(
        _outfits.OUT,
        Option("seed", "int", "seed for the wording and the order (same seed, same file)",
               label="Seed", default=0, flag="--seed"),
    ),
    write=_outfits.writer("studio.outfits.omnifashion", "export_omnifashion"),
    outcome=counts_outcome,
)
