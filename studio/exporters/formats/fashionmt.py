"""``cir-studio export fashionmt``: transactions as FashionMT JSON."""

from __future__ import annotations

from studio.exporters.formats import _transactions
from studio.exporters.registry import ExportFormat

FORMAT = ExportFormat(
    name="fashionmt",
    title="FashionMT transactions",
    description="the multi-turn transactions as FashionMT JSON (one dataset or all)",
    options=_transactions.OPTIONS,
    write=_transactions.writer("fashionmt"),
    outcome=_transactions.outcome,
)
