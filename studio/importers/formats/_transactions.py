"""Options shared by the multi-turn transaction formats (FashionMT, multi-turn Fashion IQ)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from studio.importers.formats._common import SKIP_INVALID
from studio.importers.registry import Option, Outcome

OPTIONS = (
    Option("file", "file", "the JSON file", label="Transaction file", metavar="FILE"),
    Option("dataset", "text", "dataset name (default: the file name without .json)",
           label="Dataset name", flag="--dataset", metavar="NAME"),
    SKIP_INVALID,
    Option("id_from", "choice", "where ref/tarK are image paths (as the MAI authors' scripts "
           "write them): the image id is the file stem (stem) or the path relative to the "
           "image root (path); the export writes the paths back", label="Image ids from",
           default="stem", flag="--id-from", choices=("stem", "path")),
)
DETAILS = ("Validate a transaction file, then import it in one step. A bad entry stops the "
           "import (nothing is written) unless --skip-invalid is given. Importing the same "
           "file twice adds nothing.")


def reader(fmt: str) -> Callable[..., Any]:
    def read(project: Any, *, file: Path, dataset: str | None, **options: Any) -> Any:
        from studio.transactions.importer import import_transactions

        return import_transactions(project, Path(file).expanduser(), fmt=fmt,
                                   dataset=dataset or None, **options)

    return read


def outcome(report: Any) -> Outcome:
    from studio.wording import count

    lines = [f"Imported {report.added} transactions into dataset {report.dataset!r} "
             f"({report.already_present} already present, {len(report.skipped)} skipped)."]
    if report.mapping_note:
        lines.append(report.mapping_note)
    lines += [f"  skipped: {problem}" for problem in report.skipped]
    skipped = (f", {count(len(report.skipped), 'invalid entry')} skipped"
               if report.skipped else "")
    message = (f"Imported {count(report.added, 'transaction')} into dataset {report.dataset!r} "
               f"({report.already_present:,} already present{skipped}).")
    return Outcome(message, tuple(lines), tuple(str(p) for p in report.skipped[:50]),
                   report.to_json())
