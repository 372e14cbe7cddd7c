"""Which images count as correct answers to a query, for the views that mark them.

A pair with several ground truths (CIRCO's ``gt_img_ids``) has every one of them correct,
not only its named target; views mark the named target and the other correct images
differently, so "found a correct image" and "found the one the caption was written for"
stay distinguishable (mAP@K versus Recall@K).
"""

from __future__ import annotations

from studio.store import Project
from studio.store.repos.ground_truths import ground_truths, pairs_with_ground_truths


def correct_for_pair(project: Project, pair_id: int) -> frozenset[str]:
    """Every correct image of a pair (empty for a dataset with one target)."""
    return frozenset(ground_truths(project, [pair_id]).get(pair_id, []))


def correct_for_query(project: Project, reference_id: str | None,
                      target_id: str | None) -> frozenset[str]:
    """Every correct image of the queries from ``reference_id`` named for ``target_id``."""
    if not reference_id or not target_id:
        return frozenset()
    found = pairs_with_ground_truths(project, reference_id, target_id)
    return frozenset(image_id for ids in found.values() for image_id in ids)
