"""Train a Combiner on the project's triplets, store it in the project's cache, load it.

Combiners live in ``<project cache>/combiners/<model-slug>/NAME.{safetensors,json}``,
keyed like the embedding cache by the embedding model's cache key (its weights), so a
combiner is only ever offered for the model whose features it was trained on. Image
features come from the embedding cache (only missing images are embedded); texts are
encoded by the model. The network, the loss and the storage format are in
``backends.combiner``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from studio.embeddings import cached_vectors, embed_project_images
from studio.errors import StudioError
from studio.index_service import load_project_model
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.sessions.combiners import combiner_folder, combiner_root
from studio.store import Project
from studio.training.data import Triplet, annotated_triplets, draft_triplets, drafted_count

if TYPE_CHECKING:
    from backends.combiner.model import Combiner, CombinerConfig
    from backends.combiner.train import EpochReport, Triplets
    from backends.models.base import EmbeddingModel

TEXT_BATCH = 256
HELD_OUT_SHARE = 0.1  # of train triplets, for early stopping when there are no val pairs
PREFIX = "combiner:"
# Below these a combiner learns the few examples by heart and rarely beats the plain image
# + text sum (Fashion IQ trains on about 18,000 triplets; a few hundred is a floor).
MIN_TRAIN_TRIPLETS = 500
MIN_VAL_TRIPLETS = 50


@dataclass(frozen=True)
class TrainingRequest:
    """What ``cir-studio train combiner`` asks for."""

    name: str = "combiner"
    model: str = "demo"
    epochs: int = 40
    seed: int = 0
    device: str | None = None
    drafted: float = 0.0
    drafts_per_image: int = 1
    voice: str = "learned"  # drafts in the learned captioner's words, or "catalog" phrases
    alpha: float | None = None  # how far to serve from the sum (None: see ``_serve_alpha``)
    batch_size: int = 256
    learning_rate: float = 2e-3
    patience: int = 5


def _studio_error(error: Exception) -> StudioError:
    return StudioError(str(error))


# -- training ------------------------------------------------------------------------


def train_project_combiner(
    project: Project,
    request: TrainingRequest,
    *,
    model: EmbeddingModel | None = None,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
    on_epoch: Callable[[EpochReport], None] | None = None,
    actor: str = "cir-studio",
) -> dict[str, Any]:
    """Collect, featurise, train, save; returns the summary stored with the combiner.

    The combiner lives in the cache folder; one audit row in the project records it, so
    every studio open on the project hears of it (its strategy list follows).
    """
    from backends.combiner.model import CombinerConfig, CombinerError
    from backends.combiner.storage import check_name, save_combiner
    from backends.combiner.train import TrainOptions, train_combiner
    from backends.device import choose_device

    started = time.perf_counter()
    try:
        check_name(request.name)
        if request.alpha is not None and not 0.0 <= request.alpha <= 1.0:
            raise StudioError(f"--alpha takes a value between 0 and 1, got {request.alpha}.")
        device = choose_device(
            request.device if request.device not in (None, "", "auto") else "cpu"
        )
        options = TrainOptions(
            epochs=request.epochs,
            seed=request.seed,
            device=device,
            batch_size=request.batch_size,
            learning_rate=request.learning_rate,
            patience=request.patience,
        )
    except CombinerError as error:
        raise _studio_error(error) from None
    progress(0, 1, "Collecting triplets")
    triplets = annotated_triplets(project)
    train = [t for t in triplets if t.split not in ("val", "test")]
    val = [t for t in triplets if t.split == "val"]
    train_images = sum(1 for i in project.iter_images(split="train") if not i.missing)
    n_drafts = drafted_count(request.drafted, len(train), train_images,
                             request.drafts_per_image)
    if not train and not n_drafts:
        raise StudioError(
            "No training triplets: caption pairs of the train split (submitted or accepted "
            "captions), accept transaction turns, or draft triplets from images with "
            "--drafted 1."
        )
    model = model or load_project_model(request.model, request.device)
    if cancel is not None:
        cancel.raise_if_cancelled()
    features = _ImageFeatures(project, model, triplets, progress, cancel)
    voice = _voice(request.voice, request.seed)
    drafted = draft_triplets(project, n_drafts, features.matrix, request.seed,
                             per_image=request.drafts_per_image, voice=voice)
    train += drafted
    if not train:
        raise StudioError(
            "No triplet could be drafted: the train split's images need "
            "attributes (run 'cir-studio attributes extract')."
        )
    val_source = "val-split pairs and turns"
    if not val:
        train, val = _hold_out(train, request.seed)
        val_source = (
            (
                f"{len(val)} train triplets held out ({HELD_OUT_SHARE:.0%} of the "
                "targets), as the project has no val-split pairs"
            )
            if val
            else "none"
        )
    people_val = val_source == "val-split pairs and turns"
    texts = _encode_texts(model, [t.text for t in train + val], progress, cancel)
    train_arrays = features.triplets(train, texts)
    val_arrays = features.triplets(val, texts) if val else None
    config = CombinerConfig(request.name, request.model, model.cache_key, model.dim)
    try:
        combiner, report = train_combiner(
            config,
            train_arrays,
            val_arrays,
            options,
            progress=progress,
            cancel=cancel,
            on_epoch=on_epoch,
        )
    except CombinerError as error:
        raise _studio_error(error) from None
    alpha_source, alphas = _serve_alpha(
        combiner, request.alpha, bool(drafted), features.triplets(val, texts)
        if drafted and people_val and request.alpha is None else None)
    origins = {
        origin: sum(1 for t in train if t.origin == origin)
        for origin in ("caption", "turn", "drafted")
    }
    summary = {
        "name": request.name,
        "embedding_model": request.model,
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "train_triplets": origins,
        "val_triplets": len(val),
        "val_source": val_source,
        "seed": request.seed,
        "device": device,
        "drafted_share": request.drafted,
        "drafts_per_image": request.drafts_per_image,
        "draft_voice": request.voice,
        "alpha": combiner.config.alpha,
        "alpha_source": alpha_source,
        "alpha_triplets": len(val) if alphas else 0,
        "alphas": alphas,
        **{
            k: v for k, v in report.to_json().items() if k not in ("train_triplets", "val_triplets")
        },
        "total_seconds": round(time.perf_counter() - started, 2),
    }
    summary["warning"] = too_little_data(sum(origins.values()), len(val))
    combiner.config.training = summary
    path = save_combiner(combiner, combiner_folder(project, model))
    if not project.read_only:
        with project.change(actor, "train combiner", "combiner", request.name) as record:
            record["after"] = {"embedding_model": request.model, "path": str(path)}
    return {**summary, "path": str(path)}


def too_little_data(train: int, val: int) -> str:
    """What to tell a person whose training set is too small to learn from ('' if not)."""
    problems = []
    if train < MIN_TRAIN_TRIPLETS:
        problems.append(
            f"only {train:,} training {'triplet' if train == 1 else 'triplets'} (a combiner "
            f"needs a few hundred at least, {MIN_TRAIN_TRIPLETS:,} or more to be useful)"
        )
    if val < MIN_VAL_TRIPLETS:
        problems.append(
            f"only {val:,} for validation, too few to tell a good epoch from a lucky one"
        )
    if not problems:
        return ""
    return (
        f"Too little data: {' and '.join(problems)}; expect it to do no better than the "
        "image + text sum. What helps: write or import captions for train-split pairs "
        "(Pairs → Mine, then Captions), accept transaction turns, caption some val-split "
        "pairs too, or raise the drafted share to add triplets drafted from the images."
    )


def _voice(name: str, seed: int) -> Any:
    from studio.language.voices import PartialVoice, Voice

    if name == "partial":
        return PartialVoice(seed=seed)
    return Voice.learned(seed) if name == "learned" else Voice()


#: α of a combiner with drafts in its training when the project has no people's words to
#: choose it on: half way (WiSE-FT's default). Drafted text is no stand-in for people's
#: words here: α chosen on held-out drafts (even drafts leaving differences unsaid) trusts
#: the network too far, and 0.5 did as well or better on human-phrased captions at every
#: count and gallery of both bench worlds (BENCHMARKS, zero-shot).
DRAFTED_ALPHA = 0.5


def _serve_alpha(
    combiner: Combiner, given: float | None, drafted: bool, people: Triplets | None
) -> tuple[str, list[dict[str, float]]]:
    """Set how far the combiner is served from the image + text sum; returns where that α
    came from and, when chosen, each α's figures. A combiner trained on people's words only
    is served as trained; one with drafts goes part of the way back to the sum, α chosen
    on the project's val-split triplets (people's words) where it has them."""
    from backends.combiner.model import CombinerError

    if given is not None:
        combiner.config.alpha = given
        return "given", []
    if not drafted:
        return "trained on people's words only: served as trained", []
    if people is not None and len(people):
        from backends.combiner.train import choose_alpha

        try:
            return (f"chosen on {len(people):,} val-split triplets (people's words)",
                    choose_alpha(combiner, people)[1])
        except CombinerError as error:
            raise _studio_error(error) from None
    combiner.config.alpha = DRAFTED_ALPHA
    return "fixed: no val-split captions to choose it on", []


def _hold_out(train: list[Triplet], seed: int) -> tuple[list[Triplet], list[Triplet]]:
    """Hold out the triplets of a seeded tenth of the targets (none below 20 triplets)."""
    if len(train) < 20:
        return train, []
    targets = sorted({t.target_id for t in train})
    rng = random.Random(f"held-out:{seed}")
    chosen = set(rng.sample(targets, max(1, round(len(targets) * HELD_OUT_SHARE))))
    return (
        [t for t in train if t.target_id not in chosen],
        [t for t in train if t.target_id in chosen],
    )


def _encode_texts(
    model: EmbeddingModel,
    texts: Sequence[str],
    progress: ProgressCallback,
    cancel: CancelToken | None,
) -> dict[str, np.ndarray]:
    unique = list(dict.fromkeys(texts))
    out: dict[str, np.ndarray] = {}
    for start in range(0, len(unique), TEXT_BATCH):
        if cancel is not None:
            cancel.raise_if_cancelled()
        chunk = unique[start : start + TEXT_BATCH]
        out.update(zip(chunk, model.encode_texts(chunk), strict=True))
        progress(min(start + TEXT_BATCH, len(unique)), len(unique), "Encoding texts")
    return out


class _ImageFeatures:
    """Cached image vectors of every image triplets may use, and each image's group.

    The gallery of a triplet is its target's (category, split) group, as retrieval ranks.
    """

    def __init__(
        self,
        project: Project,
        model: EmbeddingModel,
        triplets: Sequence[Triplet],
        progress: ProgressCallback,
        cancel: CancelToken | None,
    ) -> None:
        used = {t.reference_id for t in triplets} | {t.target_id for t in triplets}
        images = [
            image
            for image in project.iter_images()
            if not image.missing and (image.split != "test" or image.id in used)
        ]
        embed_project_images(project, model, images, progress=progress, cancel=cancel)
        ids, vectors = cached_vectors(project, model, images)
        self.row = {image_id: i for i, image_id in enumerate(ids)}
        self.vectors = vectors
        record = {image.id: image for image in images}
        keys = sorted({(record[i].category, record[i].split) for i in ids})
        group_of_key = {key: g for g, key in enumerate(keys)}
        self.group = np.array(
            [group_of_key[(record[i].category, record[i].split)] for i in ids], dtype=np.int64
        )

    def matrix(self, ids: Sequence[str]) -> tuple[list[str], np.ndarray]:
        kept = [i for i in ids if i in self.row]
        return kept, self.vectors[[self.row[i] for i in kept]]

    def triplets(self, triplets: Sequence[Triplet], texts: dict[str, np.ndarray]) -> Triplets:
        from backends.combiner.train import Triplets

        usable = [t for t in triplets if t.reference_id in self.row and t.target_id in self.row]
        targets = np.array([self.row[t.target_id] for t in usable], dtype=np.int64)
        return Triplets(
            references=self.vectors[[self.row[t.reference_id] for t in usable]],
            texts=np.stack([texts[t.text] for t in usable])
            if usable
            else np.zeros((0, self.vectors.shape[1]), np.float32),
            targets=targets,
            gallery=self.vectors,
            groups=self.group[targets],
            gallery_groups=self.group,
        )


# -- what is trained, and loading it ----------------------------------------------------


def list_combiners(project: Project) -> list[tuple[Path, CombinerConfig]]:
    """(config file, config) of every combiner of the project, for any embedding model."""
    from backends.combiner.storage import list_saved

    root = combiner_root(project)
    found: list[tuple[Path, CombinerConfig]] = []
    for folder in sorted(root.iterdir()) if root.is_dir() else []:
        found.extend(list_saved(folder))
    return sorted(found, key=lambda item: (item[1].embedding_model, item[1].name))


def combiner_strategies(project: Project, model_spec: str) -> list[str]:
    """``combiner:NAME`` for the combiners trained for ``model_spec``; loads no model."""
    return [
        f"{PREFIX}{config.name}"
        for _, config in list_combiners(project)
        if config.embedding_model == model_spec
    ]
