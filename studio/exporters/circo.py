"""CIRCO export: ``OUT/annotations/{split}.json``, the entries as the files had them.

Each CIRCO pair keeps its entry verbatim (``pairs.extra``), so the export is the
imported file again, written in its recorded style (byte for byte when nothing changed).
A relative caption edited in the studio (submitted or accepted) replaces the file's;
nothing else is touched. The test split carries no ground truth because its file had none.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from studio.errors import StudioError
from studio.exporters.common import iter_pairs, prepare_folder, write_text_atomic
from studio.exporters.fashioniq import source_formats
from studio.importers.circo import SOURCE
from studio.importers.json_format import dump
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import Project

# The published style: four-space indent, no final newline.
STYLE = {"indent": 4, "separators": [",", ": "], "ensure_ascii": True, "newline": False}


def export_circo(
    project: Project,
    out: Path,
    *,
    source: str | None = None,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> dict[str, Any]:
    cancel = cancel or CancelToken()
    entries: dict[str, list[dict[str, Any]]] = defaultdict(list)
    edited = 0
    for pair in iter_pairs(project, source or SOURCE):
        entry = dict(pair.extra)
        if "relative_caption" not in entry:
            continue  # not a CIRCO entry
        if pair.captions and pair.captions[0]["text"] != entry["relative_caption"]:
            entry["relative_caption"] = pair.captions[0]["text"]
            edited += 1
        entries[pair.split].append(entry)
    if not entries:
        raise StudioError("No CIRCO queries in this project; import them with "
                          "'cir-studio import circo'.")
    out = prepare_folder(out)
    formats = source_formats(project, SOURCE)
    written: dict[str, dict[str, int]] = {}
    for number, (split, items) in enumerate(sorted(entries.items()), start=1):
        cancel.raise_if_cancelled()
        name = f"annotations/{split}.json"
        write_text_atomic(out / name, dump(items, formats.get(name) or STYLE))
        written[name] = {"queries": len(items)}
        progress(number, len(entries), name)
    return {"format": "circo", "out": str(out), "files": written, "edited_captions": edited}
