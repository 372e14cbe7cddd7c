"""Multi-turn Fashion IQ transactions (the JSON the multi-turn Fashion IQ authors publish)."""

from __future__ import annotations

from studio.importers.formats import _transactions
from studio.importers.registry import ImportFormat

FORMAT = ImportFormat(
    name="fashioniq-mt",
    title="Fashion IQ multi-turn transactions",
    description="multi-turn Fashion IQ JSON: one transaction of several turns per entry",
    details=_transactions.DETAILS,
    options=_transactions.OPTIONS,
    read=_transactions.reader("fashioniq-mt"),
    outcome=_transactions.outcome,
    terminal_progress=False,  # validation is quick; a refused file prints one line only
)
