"""Learning salience from a project: which of a pair's differences its annotators named.

Examples come from pairs that have human captions, facets on both images and vectors in
the project's index. Each differing facet of a pair (facets as sessions see them,
``studio.sessions.setup.load_facets``) gives one example per caption: named when the
project's caption reader finds a request on that facet in the caption (its comparatives
count: "darker" names a change of colour, "more colorful" one of pattern, "shorter" one
of length), unnamed otherwise. The held-out pairs are the captioner's (one in ten by a
stable hash), so the report's ROC AUC is measured on captions the model never saw,
against the facet's base rate alone: the honest test of whether the image features add
anything. (On the demo's simulated captions, whose writers pick facets without looking,
expect about the base rate.)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from studio.errors import StudioError
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.language.reader import CaptionReader, Request
from studio.language.salience import COMPARED_AS, Example, ImageLooks, SalienceModel, roc_auc

if TYPE_CHECKING:
    from backends.models.base import EmbeddingModel
    from studio.training.captioner import PairCaptions

MIN_SALIENCE_EXAMPLES = 50  # fewer: a slope per facet is not worth learning


def names_facet(requests: Iterable[Request], facet: str) -> bool:
    """Whether a caption's requests name ``facet`` (its value, its absence or its change)."""
    compared = COMPARED_AS.get(facet, ())
    return any(r.facet == facet or r.facet in compared for r in requests)


def naming_examples(
    pairs: Iterable[PairCaptions],
    facets: Mapping[str, Mapping[str, str]],
    reader: CaptionReader,
    looks: ImageLooks,
) -> list[tuple[bool, Example]]:
    """(held out?, example) for every differing facet of every caption of ``pairs``."""
    out: list[tuple[bool, Example]] = []
    for pair in pairs:
        reference, target = facets.get(pair.reference, {}), facets.get(pair.target, {})
        seen = looks.between(pair.reference, pair.target)
        if seen is None:
            continue
        differing = sorted(f for f in target if f in reference and reference[f] != target[f])
        if not differing:
            continue
        visible = {f: seen(f, target[f], reference[f]) for f in differing}
        for caption in pair.captions:
            requests = reader.read(caption)
            for facet in differing:
                v = visible[facet]
                if v is not None:
                    out.append((pair.held_out,
                                Example(facet, v, names_facet(requests, facet))))
    return out


def held_out_report(model: SalienceModel, held: Sequence[Example]) -> dict[str, Any]:
    """ROC AUC of P(named) on ``held``: with the visible difference, and the facet's base
    rate alone (what the captioner's counts already know)."""
    labels = [e.named for e in held]
    salience = roc_auc([model.probability(e.facet, e.visible) for e in held], labels)
    base = roc_auc([model.base_rate(e.facet) for e in held], labels)
    return {
        "held_out_examples": len(held),
        "held_out_auc": None if salience is None else round(salience, 4),
        "base_rate_auc": None if base is None else round(base, 4),
    }


def fit_salience(
    examples: Sequence[tuple[bool, Example]], model: str, cache_key: str = ""
) -> tuple[SalienceModel | None, dict[str, Any]]:
    """Fit on the training examples, report on the held-out ones."""
    train = [e for held, e in examples if not held]
    held = [e for held, e in examples if held]
    named = sum(e.named for e in train)
    report: dict[str, Any] = {"model": model, "examples": len(train)}
    if len(train) < MIN_SALIENCE_EXAMPLES or named in (0, len(train)):
        why = (f"only {len(train)} examples of a difference named or not"
               if len(train) < MIN_SALIENCE_EXAMPLES
               else "every difference was named" if named else "no difference was named")
        return None, {**report, "used": False, "reason": why}
    fitted = SalienceModel.fit(train, model, cache_key)
    counts = Counter(e.facet for e in train)
    return fitted, {
        **report,
        "used": True,
        "named_share": round(named / len(train), 4),
        "facets": {f: n for f, n in sorted(counts.items())},
        "own_fit": sorted(fitted.facets),
        **held_out_report(fitted, held),
    }


def project_looks(project: Any, model: EmbeddingModel) -> ImageLooks:
    """Visible differences between the project's images, from ``model``'s cached vectors."""
    from studio.embeddings import cached_vectors

    ids, vectors = cached_vectors(project, model)
    row = {image_id: i for i, image_id in enumerate(ids)}

    def vector_of(image_id: str) -> Any:
        at = row.get(image_id)
        return None if at is None else vectors[at]

    return ImageLooks(vector_of, model.encode_texts)


def train_project_salience(
    project: Any,
    pairs: Sequence[PairCaptions],
    model_name: str,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> tuple[SalienceModel | None, dict[str, Any]]:
    """The salience of ``model_name``'s features on the project's captioned pairs, or None
    with the reason (no index for that model, too few examples) in the report."""
    from studio.index_service import index_folder, load_project_model, read_state
    from studio.sessions.setup import load_facets

    state = read_state(index_folder(project, model_name))
    if state is None:
        return None, {"used": False, "model": model_name, "reason":
                      f"the project has no index for model '{model_name}' (build one with "
                      "'cir-studio index build' to learn which differences people see)"}
    progress(0, 1, "Learning which differences people name")
    try:
        model = load_project_model(model_name, None)
    except StudioError as error:
        return None, {"used": False, "model": model_name, "reason": str(error)}
    if state.get("cache_key") != model.cache_key:
        return None, {"used": False, "model": model_name, "reason":
                      f"the index for '{model_name}' was built with other weights"}
    if cancel is not None:
        cancel.raise_if_cancelled()
    _, facets, reader = load_facets(project)
    examples = naming_examples(pairs, facets, reader, project_looks(project, model))
    if cancel is not None:
        cancel.raise_if_cancelled()
    progress(1, 1, "Learning which differences people name")
    return fit_salience(examples, model_name, model.cache_key)
