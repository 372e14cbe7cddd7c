"""Zero-shot attribute suggestions per region: the embedding model scores the ontology's
attributes on each region's crop and keeps the top k, as 'model' labels to review.

Prompts name the region's category ("a photo of a striped sleeve", "a sleeve with
stripe"); scores are calibrated as the flat suggestions are (``attributes.scoring``: the
bare "a photo of a {category}" direction removed, then a softmax per supercategory with a
"none of these" option), so attributes of different supercategories compare. A fact a
person gave, or anyone accepted or rejected, is never suggested again or changed;
re-running replaces only this model's undecided suggestions. Everything is computed
before the one write, so a cancelled run leaves the previous suggestions as they were.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from studio.attributes.scoring import average_prompts, calibrate, top_n
from studio.errors import StudioError
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.outfits.omnifashion import natural
from studio.outfits.ontology import load_ontology
from studio.outfits.records import OntologyEntry, Region
from studio.outfits.store import load_outfits
from studio.store import Project
from studio.store.database import utc_now
from studio.store.repos import outfits as repo

if TYPE_CHECKING:
    from backends.models.base import EmbeddingModel

DEFAULT_TOP_K = 5
BATCH = 32
MARGIN = 0.05  # of the region's size, added around its crop


def _prompts(attribute: str, category: str) -> list[str]:
    return [f"a photo of a {attribute} {category}", f"a {category} with {attribute}"]


def prompt_vectors(model: EmbeddingModel, entries: list[OntologyEntry], category: str
                   ) -> tuple[np.ndarray, np.ndarray]:
    texts = [f"a photo of a {category}", f"a {category}"]
    counts = [2]
    for entry in entries:
        own = _prompts(natural(entry.name), category)
        texts += own
        counts.append(len(own))
    vectors = average_prompts(model.encode_texts(texts), counts)
    return vectors[1:], vectors[0]


def _crop(project: Project, image_id: str, region: Region, cache: dict[str, Any]) -> Any:
    from PIL import Image

    if image_id not in cache:
        record = project.image(image_id)
        path = project.image_file(record) if record else None
        cache.clear()  # one picture open at a time
        cache[image_id] = Image.open(path).convert("RGB") if path and path.exists() else None
    picture = cache[image_id]
    bounds = region.bounds()
    if picture is None or bounds is None:
        return None
    x, y, w, h = bounds
    dx, dy = w * MARGIN, h * MARGIN
    box = (max(0, int(x - dx)), max(0, int(y - dy)),
           min(picture.width, int(x + w + dx) + 1), min(picture.height, int(y + h + dy) + 1))
    if box[2] - box[0] < 2 or box[3] - box[1] < 2:
        return None
    return picture.crop(box)


def suggest_region_attributes(
    project: Project, actor: str, model_spec: str, *, device: str | None = "auto",
    top_k: int = DEFAULT_TOP_K, model: EmbeddingModel | None = None,
    progress: ProgressCallback = no_progress, cancel: CancelToken | None = None,
) -> dict[str, Any]:
    """Score every accepted region's crop; store each region's top ``top_k`` attributes."""
    import torch

    from studio.index_service import load_project_model

    cancel = cancel or CancelToken()
    if top_k < 1:
        raise StudioError("Keep at least one suggestion per region.")
    ontology = load_ontology(project)
    attributes = ontology.of_kind("attribute")
    if not attributes:
        raise StudioError("The outfit ontology has no attributes; import Fashionpedia or "
                          "open the Outfits tab once.")
    progress(0, 0, f"Loading {model_spec}")
    model = model or load_project_model(model_spec, device)
    regions = [(o.picture.image_id, r) for o in load_outfits(project) for r in o.regions
               if r.status == "accepted" and r.bounds() is not None]
    decided = repo.decided_facts(project, [r.id for _, r in regions])
    types = [e.supercategory for e in attributes]
    prompts: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    found: dict[int, dict[int, float]] = {}
    crops: dict[str, Any] = {}
    for start in range(0, len(regions), BATCH):
        cancel.raise_if_cancelled()
        chunk = regions[start : start + BATCH]
        images = [(image_id, region, _crop(project, image_id, region, crops))
                  for image_id, region in chunk]
        usable = [(region, crop) for _, region, crop in images if crop is not None]
        if usable:
            batch = torch.stack([model.preprocess(crop) for _, crop in usable])
            vectors = model.encode_images(batch)
            for (region, _), vector in zip(usable, vectors, strict=True):
                if region.category_id not in prompts:
                    category = natural(ontology.by_id[region.category_id].name)
                    prompts[region.category_id] = prompt_vectors(model, attributes, category)
                attribute_vectors, null = prompts[region.category_id]
                scores = calibrate(vector[None, :], attribute_vectors, null, types,
                                   "type-softmax")
                best = [c for c in top_n(scores, top_k + 8)[0]
                        if (region.id, attributes[c].id) not in decided][:top_k]
                found[region.id] = {attributes[c].id: round(float(scores[0, c]), 4)
                                    for c in best}
        progress(min(start + BATCH, len(regions)), len(regions), "Scoring regions")
    cancel.raise_if_cancelled()
    now = utc_now()
    with project.change(actor, "outfits.suggest", "outfits", model_spec) as record:
        removed = repo.delete_undecided(project, "outfit_region_attributes", list(found),
                                        "model", model_spec)
        for region_id, kept in found.items():
            for order, (attribute_id, confidence) in enumerate(kept.items()):
                repo.upsert_label(project, "outfit_region_attributes", {
                    "region_id": region_id, "attribute_id": attribute_id, "source": "model",
                    "model": model_spec, "confidence": confidence, "status": "suggested",
                    "author": actor, "reviewer": "", "position": 1000 + order,
                    "updated_at": now,
                })
        record["after"] = {"model": model_spec, "regions": len(found),
                           "labels": sum(len(v) for v in found.values()), "replaced": removed}
    return {"model": model_spec, "regions": len(found), "top_k": top_k,
            "labels": sum(len(v) for v in found.values()), "replaced": removed}


def review_suggestions(project: Project, reviewer: str, attribute_id: int,
                       region_ids: list[int], status: str) -> int:
    """Bulk review: one attribute decided on many regions at once (one audited change)."""
    from studio.outfits.editing import REGION_LABELS, OutfitError

    if status not in ("accepted", "rejected"):
        raise OutfitError(f"Review accepts or rejects, not {status!r}.")
    now = utc_now()
    with project.change(reviewer, f"outfits.review_many_{status}", "outfits",
                        attribute_id) as record:
        for region_id in region_ids:
            repo.decide_label(project, REGION_LABELS, region_id, attribute_id, status,
                              reviewer, now)
        record["after"] = {"attribute": attribute_id, "regions": region_ids, "status": status}
    return len(region_ids)
