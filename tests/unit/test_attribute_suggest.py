"""Model suggestions with the shipped demo model: top N per image, models kept apart, cancel."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from studio.attributes.labels import review
from studio.attributes.quality import mean_precision_recall_at_k
from studio.attributes.query import attribute_states, labels_of_image, suggestions
from studio.attributes.scoring import average_prompts, calibrate, prompts, top_n
from studio.attributes.suggest import suggest_attributes
from studio.demo.truth import catalog_truth
from studio.jobs import CancelToken, JobCancelled
from studio.store import Project

ROOT = Path(__file__).resolve().parents[2]
DEMO_WEIGHTS = ROOT / "resources" / "demo_model" / "cir-demo.safetensors"
# The same weights under a second spec: a genuinely different model name for the store.
OTHER_SPEC = f"open_clip:cir-demo@{DEMO_WEIGHTS}"


@pytest.fixture(scope="module")
def other_model(demo_model):  # the demo config must be registered first
    from studio.index_service import load_project_model

    return load_project_model(OTHER_SPEC, "cpu")


@pytest.fixture
def project(demo_project_dir: Path):
    with Project.open(demo_project_dir) as project:
        yield project


def model_labels(project: Project, model: str) -> dict[str, list]:
    out: dict[str, list] = {}
    for image in project.iter_images():
        out[image.id] = [lb for lb in labels_of_image(project, image.id, sources=["model"])
                         if lb.model == model]
    return out


def test_every_image_gets_its_top_eight(project, demo_model) -> None:
    summary = suggest_attributes(project, "ana", "demo", model=demo_model)
    assert summary["images"] == 60 and summary["labels"] == 480
    labels = model_labels(project, "demo")
    assert all(len(found) == 8 for found in labels.values())
    everything = [lb for found in labels.values() for lb in found]
    assert all(0.0 <= lb.confidence <= 1.0 for lb in everything)
    assert {lb.status for lb in everything} == {"suggested"}
    assert {lb.source for lb in everything} == {"model"}


def test_suggestions_find_true_attributes_far_above_chance(project, demo_model) -> None:
    suggest_attributes(project, "ana", "demo", model=demo_model)
    truth = catalog_truth(project.path.parent)
    precision, recall = mean_precision_recall_at_k(suggestions(project, "model", "demo"),
                                                   truth, 8)
    # 373 attributes, ~6.5 true per image: picking 8 at random gets ~0.02 of either
    assert precision > 0.2 and recall > 0.2


def test_two_models_keep_separate_sets(project, demo_model, other_model) -> None:
    suggest_attributes(project, "ana", "demo", model=demo_model)
    suggest_attributes(project, "ana", OTHER_SPEC, top_n_per_image=3, model=other_model)
    assert all(len(v) == 3 for v in model_labels(project, OTHER_SPEC).values())
    assert all(len(v) == 8 for v in model_labels(project, "demo").values())
    suggest_attributes(project, "ana", "demo", top_n_per_image=5, model=demo_model)
    assert all(len(v) == 5 for v in model_labels(project, "demo").values())
    assert all(len(v) == 3 for v in model_labels(project, OTHER_SPEC).values())


def test_decisions_survive_a_rerun(project, demo_model) -> None:
    suggest_attributes(project, "ana", "demo", model=demo_model)
    image = "shirt-00000"
    found = [lb.attribute for lb in model_labels(project, "demo")[image]]
    review(project, "bo", image, [found[0]], "accepted")
    review(project, "bo", image, [found[-1]], "rejected")
    suggest_attributes(project, "ana", "demo", top_n_per_image=1, model=demo_model)
    states = {s.attribute: s.status for s in attribute_states(project, image)}
    assert states[found[0]] == "accepted" and states[found[-1]] == "rejected"


def test_the_embedding_cache_is_reused(project, demo_model) -> None:
    suggest_attributes(project, "ana", "demo", model=demo_model)
    shards = sorted(project.cache_dir.rglob("shard-*.npy"))
    assert shards
    messages: list[str] = []
    suggest_attributes(project, "ana", "demo", model=demo_model,
                       progress=lambda done, total, message="": messages.append(message))
    assert sorted(project.cache_dir.rglob("shard-*.npy")) == shards


def test_cancel_leaves_the_previous_suggestions(project, demo_model) -> None:
    suggest_attributes(project, "ana", "demo", top_n_per_image=2, model=demo_model)
    before = model_labels(project, "demo")
    token = CancelToken()

    def progress(done: int, total: int, message: str = "") -> None:
        if message.startswith("Scored"):
            token.cancel()

    with pytest.raises(JobCancelled):
        suggest_attributes(project, "ana", "demo", model=demo_model, progress=progress,
                           cancel=token)
    assert model_labels(project, "demo") == before


def test_prompts_name_the_category_and_the_attribute() -> None:
    assert prompts("puff sleeve", "part", "toptee")[0] == "a photo of a top with puff sleeve"
    assert prompts("red", "color", "")[1] == "a red garment"


def test_prompt_vectors_are_unit_means() -> None:
    vectors = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]], dtype=np.float32)
    averaged = average_prompts(vectors, [2, 1])
    assert np.allclose(averaged, [[2**-0.5, 2**-0.5], [0.0, 1.0]], atol=1e-6)


def unit(*rows: list[float]) -> np.ndarray:
    array = np.array(rows, dtype=np.float64)
    return array / np.linalg.norm(array, axis=1, keepdims=True)


def test_calibration_keeps_unknown_words_out_of_the_top() -> None:
    # axis 0 is the bare "a photo of a dress"; red and blue move away from it (known
    # words), the three fabrics barely do (words the model does not know)
    null = unit([1, 0, 0, 0, 0, 0])[0]
    attributes = unit([0.3, 1, 0, 0, 0, 0], [0.3, 0, 1, 0, 0, 0],
                      [1, 0, 0, 0.05, 0, 0], [1, 0, 0, 0, 0.05, 0], [1, 0, 0, 0, 0, 0.05])
    types = ["color", "color", "fabric", "fabric", "fabric"]
    images = unit([1, 0.6, 0, 0, 0.02, 0], [1, 0, 0.6, 0.02, 0, 0])  # a red and a blue dress
    raw = calibrate(images, attributes, null, types, "raw")
    assert set(top_n(raw, 1)[:, 0]) <= {2, 3, 4}  # uncalibrated, an unknown fabric wins
    confidences = calibrate(images, attributes, null, types, "type-softmax")
    assert top_n(confidences, 1)[:, 0].tolist() == [0, 1]
    assert confidences[0, 0] > 0.95 and confidences[1, 1] > 0.95
    assert confidences[:, 2:].max() < 0.25  # "none of these" keeps clueless types low
    assert np.all(confidences[:, :2].sum(axis=1) <= 1.0)
    z = calibrate(images, attributes, null, types, "zscore")
    assert z.min() >= 0.0 and z.max() <= 1.0


def test_top_n_is_best_first() -> None:
    scores = np.array([[0.1, 0.9, 0.5, 0.7]])
    assert top_n(scores, 3).tolist() == [[1, 3, 2]]
    assert top_n(scores, 10).tolist() == [[1, 3, 2, 0]]


def test_unknown_calibration_names_the_choices() -> None:
    with pytest.raises(ValueError, match="type-softmax, zscore, raw"):
        calibrate(np.eye(2), np.eye(2), np.ones(2), ["color", "color"], "magic")
