"""JSON Lines export with provenance: one line per pair, every caption with who and when.

Unlike the dataset formats this keeps everything a reviewer or a paper's datasheet
needs: author, reviewer, timestamps, status and the reason a caption was rejected.
Drafts are left out: they are unfinished work, not data.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from studio.exporters.common import iter_pairs, write_text_atomic
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import Project
from studio.store.repos import datasets as datasets_repo

STATUSES = ("submitted", "accepted", "rejected")


def export_jsonl(
    project: Project,
    out: Path,
    *,
    source: str | None = None,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> dict[str, Any]:
    """Write ``out`` (a file; ``pairs.jsonl`` inside it when ``out`` is a folder)."""
    cancel = cancel or CancelToken()
    out = Path(out).expanduser()
    if out.is_dir():
        out = out / "pairs.jsonl"
    total = datasets_repo.count_pairs(project)
    lines: list[str] = []
    captions = 0
    for number, pair in enumerate(iter_pairs(project, source, STATUSES), start=1):
        if number % 1000 == 0:
            cancel.raise_if_cancelled()
            progress(number, total, "pairs")
        record = {
            "pair_id": pair.id,
            "source": pair.source,
            "external_key": pair.external_key,
            "category": pair.category,
            "split": pair.split,
            "reference": pair.reference_id,
            "target": pair.target_id,
            "method": pair.method,
            "score": pair.score,
            "captions": pair.captions,
        }
        captions += len(pair.captions)
        lines.append(json.dumps(record, ensure_ascii=False))
    write_text_atomic(out, "".join(line + "\n" for line in lines))
    progress(total, total, "pairs")
    return {"format": "jsonl", "out": str(out), "pairs": len(lines), "captions": captions}
