"""FashionMT transactions: ``{ref, tar1…tar3, mod1…mod3, cap0…cap3}`` per entry."""

from __future__ import annotations

from studio.importers.formats import _transactions
from studio.importers.registry import ImportFormat

FORMAT = ImportFormat(
    name="fashionmt",
    title="FashionMT transactions",
    description="multi-turn FashionMT JSON: a reference, up to three targets and their "
    "modification texts per entry",
    details=_transactions.DETAILS,
    options=_transactions.OPTIONS,
    read=_transactions.reader("fashionmt"),
    outcome=_transactions.outcome,
    terminal_progress=False,  # validation is quick; a refused file prints one line only
)
