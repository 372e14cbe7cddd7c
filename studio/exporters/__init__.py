"""Exporters: the project's pairs and captions in dataset formats, written atomically.

The formats are declared in ``studio/exporters/formats/`` (``studio.exporters.registry``);
the functions below load on first use (PEP 562), so the declarations stay light.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from studio.exporters.circo import export_circo
    from studio.exporters.circo_submission import export_circo_submission
    from studio.exporters.cirr import export_cirr
    from studio.exporters.cirr_submission import export_cirr_submission
    from studio.exporters.fashioniq import export_fashioniq
    from studio.exporters.jsonl import export_jsonl
    from studio.exporters.ranking import export_ranking
    from studio.hf.export import export_hf

_WHERE = {
    "export_circo": "studio.exporters.circo",
    "export_circo_submission": "studio.exporters.circo_submission",
    "export_cirr": "studio.exporters.cirr",
    "export_cirr_submission": "studio.exporters.cirr_submission",
    "export_fashioniq": "studio.exporters.fashioniq",
    "export_jsonl": "studio.exporters.jsonl",
    "export_ranking": "studio.exporters.ranking",
    "export_hf": "studio.hf.export",
}

__all__ = [
    "export_circo",
    "export_circo_submission",
    "export_cirr",
    "export_cirr_submission",
    "export_fashioniq",
    "export_hf",
    "export_jsonl",
    "export_ranking",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'studio.exporters' has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name]), name)
