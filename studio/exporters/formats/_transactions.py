"""``write`` for the transaction formats: ``transactions export`` with its format fixed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from studio.exporters.formats._common import out
from studio.importers.registry import Option, Outcome

OPTIONS = (
    out("path", "the JSON file to write"),
    Option("dataset", "text", "only this dataset", label="Only the dataset", flag="--dataset",
           metavar="NAME"),
    Option("accepted_only", "bool", "leave out transactions with draft turns",
           label="Leave out transactions with draft turns", default=False,
           flag="--accepted-only"),
)


def writer(fmt: str) -> Callable[..., Any]:
    def write(project: Any, *, out: Path, dataset: str | None, accepted_only: bool,
              progress: Any, cancel: Any) -> dict[str, Any]:
        from studio.transactions.importer import export_transactions

        progress(0, 1, "writing")
        count = export_transactions(project, Path(out).expanduser(), fmt=fmt,
                                    dataset=dataset or None, accepted_only=accepted_only)
        progress(1, 1, "done")
        return {"transactions": count, "out": str(out)}

    return write


def outcome(summary: Any) -> Outcome:
    text = f"Wrote {summary['transactions']} transactions to {summary['out']}."
    return Outcome(text, data=summary)
