"""Exporters: the project's pairs and captions in dataset formats, written atomically."""

from studio.exporters.cirr import export_cirr
from studio.exporters.fashioniq import export_fashioniq
from studio.exporters.jsonl import export_jsonl
from studio.exporters.ranking import export_ranking

EXPORTERS = {
    "fashioniq": export_fashioniq,
    "cirr": export_cirr,
    "jsonl": export_jsonl,
    "ranking": export_ranking,
}

__all__ = ["EXPORTERS", "export_cirr", "export_fashioniq", "export_jsonl", "export_ranking"]
