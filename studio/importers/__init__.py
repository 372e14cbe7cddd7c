"""Importers: read and validate a dataset completely, then write it in one transaction."""

from studio.importers.cirr import import_cirr
from studio.importers.fashioniq import import_fashioniq
from studio.importers.folder import import_folder
from studio.importers.plan import ImportReport
from studio.importers.validation import ImportValidationError, Problem

__all__ = [
    "ImportReport",
    "ImportValidationError",
    "Problem",
    "import_cirr",
    "import_fashioniq",
    "import_folder",
]
