"""Exporters: the project's pairs and captions in dataset formats, written atomically."""

from typing import Any

from studio.exporters.circo import export_circo
from studio.exporters.circo_submission import export_circo_submission
from studio.exporters.cirr import export_cirr
from studio.exporters.cirr_submission import export_cirr_submission
from studio.exporters.fashioniq import export_fashioniq
from studio.exporters.jsonl import export_jsonl
from studio.exporters.ranking import export_ranking


def export_hf(*args: Any, **kwargs: Any) -> dict[str, Any]:
    """``studio.hf.export.export_hf``, imported when used (it imports this package)."""
    from studio.hf.export import export_hf as export

    return export(*args, **kwargs)


EXPORTERS = {
    "fashioniq": export_fashioniq,
    "cirr": export_cirr,
    "jsonl": export_jsonl,
    "ranking": export_ranking,
    "cirr-submission": export_cirr_submission,
    "circo": export_circo,
    "circo-submission": export_circo_submission,
    "hf": export_hf,
}

__all__ = [
    "EXPORTERS",
    "export_circo",
    "export_circo_submission",
    "export_cirr", "export_cirr_submission", "export_fashioniq", "export_jsonl", "export_ranking"]
