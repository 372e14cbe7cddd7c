"""``cir-studio export fashioniq-mt``: transactions as multi-turn Fashion IQ JSON."""

from __future__ import annotations

from studio.exporters.formats import _transactions
from studio.exporters.registry import ExportFormat

FORMAT = ExportFormat(
    name="fashioniq-mt",
    title="Fashion IQ multi-turn transactions",
    description="the multi-turn transactions as multi-turn Fashion IQ JSON (one dataset or all)",
    options=_transactions.OPTIONS,
    write=_transactions.writer("fashioniq-mt"),
    outcome=_transactions.outcome,
)
