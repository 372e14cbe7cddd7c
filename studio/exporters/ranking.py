"""Ranking export in the Fashion IQ challenge format: each entry with its top-50 gallery ids.

For every captioned pair the query is composed the standard zero-shot way (the
reference image's vector plus the vector of the captions joined as "c1 and c2",
normalised) and searched in the gallery of the pair's category and split through the
project's index. As in Fashion IQ's evaluation the reference stays in the gallery (CIRR
removes it). Where targets are known, Recall@10 and @50 are reported per group.
``strategy`` picks another composition with no facet re-ranking: ``text``, ``image`` or
a trained ``combiner:NAME``.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from studio.errors import StudioError
from studio.exporters.common import ExportedPair, iter_pairs, prepare_folder, write_json
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.sessions.strategies import Strategy, TurnInput, make_strategy
from studio.store import Project

TOP_K = 50
BATCH = 128


def joined_captions(captions: list[str]) -> str:
    """Fashion IQ's convention for two captions: "c1 and c2"."""
    return " and ".join(text.strip().rstrip(".") for text in captions if text.strip())


def export_ranking(
    project: Project,
    out: Path,
    *,
    source: str | None = None,
    model: str | None = None,
    device: str | None = None,
    k: int = TOP_K,
    strategy: str = "sum",
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> dict[str, Any]:
    """Write ``ranking.{cat}.{split}.json`` per group into ``out``; returns counts and recalls."""
    from studio.embeddings import cached_vectors
    from studio.index_service import ProjectIndex, build_index, compose, load_project_model

    cancel = cancel or CancelToken()
    out = prepare_folder(out)
    loaded = load_project_model(model, device)
    build_index(project, loaded, progress=progress, cancel=cancel)
    index = ProjectIndex.load(project, loaded)
    composer = _composer(project, loaded, strategy)
    groups: dict[tuple[str, str], list[ExportedPair]] = defaultdict(list)
    for pair in iter_pairs(project, source):
        if pair.captions and pair.category:
            groups[(pair.category, pair.split)].append(pair)
    total = sum(len(pairs) for pairs in groups.values())
    done = 0
    files: dict[str, dict[str, Any]] = {}
    for (category, split), pairs in sorted(groups.items()):
        references = {p.reference_id for p in pairs}
        records = [r for r in (project.image(i) for i in sorted(references)) if r is not None]
        ids, vectors = cached_vectors(project, loaded, records)
        image_vector = dict(zip(ids, vectors, strict=True))
        usable = [p for p in pairs if p.reference_id in image_vector]
        entries, hits = [], dict.fromkeys(sorted({min(10, k), k}), 0)
        for start in range(0, len(usable), BATCH):
            cancel.raise_if_cancelled()
            batch = usable[start : start + BATCH]
            texts = index.text_vectors(
                [joined_captions([c["text"] for c in p.captions]) for p in batch]
            )
            queries = np.stack(
                [
                    compose([image_vector[p.reference_id], text]) if composer is None
                    else composer.compose([TurnInput(image_vector[p.reference_id], text)]).vector
                    for p, text in zip(batch, texts, strict=True)
                ]
            )
            results = index.search(queries, k, category=category, split=split)
            for pair, found in zip(batch, results, strict=True):
                ranking = [hit.id for hit in found]
                entry: dict[str, Any] = {}
                if pair.target_id is not None:
                    entry["target"] = pair.target_id
                    for cutoff in hits:
                        hits[cutoff] += pair.target_id in ranking[:cutoff]
                entry["candidate"] = pair.reference_id
                entry["captions"] = [c["text"] for c in pair.captions]
                entry["ranking"] = ranking
                entries.append(entry)
            done += len(batch)
            progress(done, total, f"ranking {category}/{split}")
        name = f"{category}.{split}"
        write_json(out / f"ranking.{name}.json", entries)
        with_target = sum(1 for p in usable if p.target_id is not None)
        files[name] = {
            "entries": len(entries),
            "skipped_without_image": len(pairs) - len(usable),
            **(
                {f"recall@{c}": round(n / with_target, 4) for c, n in hits.items()}
                if with_target
                else {}
            ),
        }
    return {"format": "ranking", "out": str(out), "model": loaded.name, "strategy": strategy,
            "k": k, "files": files}


def _composer(project: Project, model: Any, strategy: str) -> Strategy | None:
    """None for the plain sum; otherwise a strategy that needs no facet re-ranking."""
    from studio.sessions.combiners import ProjectCombiners

    if strategy == "sum":
        return None
    if strategy == "history" or strategy.startswith("history+"):
        raise StudioError("A ranking export composes each query as one vector; choose sum, "
                          "text, image or combiner:NAME as its strategy.")
    return make_strategy(strategy, ProjectCombiners(project, model))
