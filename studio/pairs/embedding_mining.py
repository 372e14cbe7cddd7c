"""Embedding pair mining: each target's nearest image of its category and split.

Uses the project's index service (``studio.index_service``): the model's index is built
or brought up to date first (only images without a cached vector are embedded), then
every target's cached vector is searched among its group. The nearest image that is not
the target itself (nor a byte-identical copy) becomes the reference; the cosine
similarity is the pair's score.
"""

from __future__ import annotations

from studio.jobs import CancelToken, ProgressCallback
from studio.store import Project

BATCH = 256
NEIGHBOURS = 4  # the target itself and copies of it come first; a few spare hits suffice


class EmbeddingMiner:
    """Holds the loaded model and index for one mining run."""

    def __init__(
        self,
        project: Project,
        model: str | None,
        device: str | None,
        progress: ProgressCallback,
        cancel: CancelToken,
    ) -> None:
        from studio.index_service import ProjectIndex, build_index, load_project_model

        self.project = project
        loaded = load_project_model(model, device)
        build_index(project, loaded, progress=progress, cancel=cancel)
        self.index = ProjectIndex.load(project, loaded)

    def mine_group(
        self,
        category: str,
        split: str,
        images: list[tuple[str, str, str | None]],
        done: set[str],
        cancel: CancelToken,
    ) -> list[tuple[str, str, float]]:
        """(reference, target, score) for every new target of one group, best first."""
        from studio.embeddings import cached_vectors

        hashes = {image_id: content_hash for image_id, _, content_hash in images}
        records = [
            self.project.image(image_id) for image_id, _, _ in images if image_id not in done
        ]
        ids, vectors = cached_vectors(
            self.project, self.index.model, [r for r in records if r is not None]
        )
        candidates = []
        for start in range(0, len(ids), BATCH):
            cancel.raise_if_cancelled()
            results = self.index.search(
                vectors[start : start + BATCH], NEIGHBOURS, category=category, split=split
            )
            for target, hits in zip(ids[start : start + BATCH], results, strict=True):
                for hit in hits:
                    same = hit.id == target or (
                        hashes.get(target) is not None and hashes.get(hit.id) == hashes[target]
                    )
                    if not same and hit.id in hashes:
                        candidates.append((hit.id, target, hit.score))
                        break
        candidates.sort(key=lambda c: (-c[2], c[1]))
        return candidates
