"""CIRCO test-server submission: ``{"<query id>": [top 50 image ids], …}`` for every query.

The server (circo.micc.unifi.it) takes one JSON object with all the queries of the test
split, each with its top 50 COCO image ids (integers), no image twice. Queries are ranked
by ``studio.circo.protocol.rank_circo`` with the chosen strategy, as ``evaluate circo``
ranks them; ``--split val`` writes the same shape for checking against the known ground
truth with ``evaluate circo --predictions``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from studio.exporters.common import prepare_folder, write_text_atomic
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import Project


def export_circo_submission(
    project: Project,
    out: Path,
    *,
    source: str | None = None,
    model: str | None = None,
    device: str | None = None,
    split: str = "test",
    strategy: str = "sum",
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> dict[str, Any]:
    """Write ``OUT/circo_{split}_submission.json`` (OUT a folder) or OUT itself (a .json)."""
    from studio.circo.protocol import circo_pairs, rank_circo
    from studio.sessions.setup import load_session_context

    pairs = circo_pairs(project, split)
    context = load_session_context(project, model or "demo", device)
    rankings, by_caption, gallery = rank_circo(
        context, pairs, strategy, progress=progress, cancel=cancel
    )
    out = Path(out).expanduser()
    target = out if out.suffix == ".json" else prepare_folder(out) / f"circo_{split}_submission.json"
    data = {str(query_id): ranking for query_id, ranking in sorted(rankings.items())}
    write_text_atomic(target, json.dumps(data))
    return {
        "format": "circo-submission",
        "out": str(target),
        "model": context.model_name,
        "strategy": strategy,
        "files": {target.name: {"queries": len(data), "gallery": gallery}},
        "queried_by_caption_only": by_caption,
    }
