"""Importers: read and validate a dataset completely, then write it in one transaction.

The names below load on first use (PEP 562), so that ``studio.importers.registry`` and
the format declarations stay light enough for an instant ``cir-studio --help``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from studio.importers.cirr import import_cirr
    from studio.importers.fashioniq import import_fashioniq
    from studio.importers.folder import import_folder
    from studio.importers.plan import ImportReport
    from studio.importers.validation import ImportValidationError, Problem

_WHERE = {
    "import_cirr": "studio.importers.cirr",
    "import_fashioniq": "studio.importers.fashioniq",
    "import_folder": "studio.importers.folder",
    "ImportReport": "studio.importers.plan",
    "ImportValidationError": "studio.importers.validation",
    "Problem": "studio.importers.validation",
}

__all__ = [
    "ImportReport",
    "ImportValidationError",
    "Problem",
    "import_cirr",
    "import_fashioniq",
    "import_folder",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'studio.importers' has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name]), name)
