"""The Combiner network on its own: arrays in, arrays out, saved and loaded, trained."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from backends.combiner.model import Combiner, CombinerConfig, CombinerError
from backends.combiner.storage import list_configs, load_combiner, save_combiner
from backends.combiner.train import (
    ALPHAS,
    TrainOptions,
    Triplets,
    choose_alpha,
    evaluate,
    rank_targets,
    train_combiner,
)
from studio.jobs import CancelToken, JobCancelled

DIM = 32


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def toy_task(n: int, seed: int, gallery_size: int = 200) -> Triplets:
    """Targets that the text names only through a fixed linear map: the sum cannot read it."""
    rng = np.random.default_rng(seed)
    gallery = unit(np.random.default_rng(0).normal(size=(gallery_size, DIM)))
    mixing = np.random.default_rng(1).normal(size=(DIM, DIM)).astype(np.float32)
    targets = rng.integers(0, gallery_size, n)
    references = rng.integers(0, gallery_size, n)
    texts = (gallery[targets] - 0.5 * gallery[references]) @ mixing
    texts += rng.normal(scale=0.05, size=texts.shape)
    return Triplets(gallery[references], unit(texts), targets, gallery)


def config(name: str = "toy", key: str = "model-a") -> CombinerConfig:
    return CombinerConfig(name, "toy-model", key, DIM)


def test_an_untrained_combiner_is_the_image_text_sum() -> None:
    rng = np.random.default_rng(3)
    images, texts = unit(rng.normal(size=(5, DIM))), unit(rng.normal(size=(5, DIM)))
    out = Combiner.untrained(config()).compose(images, texts)
    expected = unit(images + texts)
    # the gate starts near one half, so the output points (almost) where the sum does
    assert np.all(np.sum(out * expected, axis=1) > 0.99)
    assert np.allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)


def test_training_learns_what_the_sum_cannot(tmp_path: Path) -> None:
    train, val = toy_task(1200, 0), toy_task(200, 1)
    seen = []
    combiner, report = train_combiner(
        config(), train, val, TrainOptions(epochs=8, seed=0), on_epoch=seen.append
    )
    assert [row.epoch for row in seen][:2] == [0, 1]
    assert seen[0].loss is None and seen[1].loss is not None
    assert report.sum_val_recall_at_10 is not None and report.best_val_recall_at_10 is not None
    assert report.best_val_recall_at_10 > report.sum_val_recall_at_10 + 0.2
    assert evaluate(combiner, val)[0] == pytest.approx(report.best_val_recall_at_10)
    assert report.parameters < 3_000_000


def test_training_is_deterministic_for_a_seed() -> None:
    train, val = toy_task(300, 0), toy_task(50, 1)
    options = TrainOptions(epochs=2, seed=7)
    one, _ = train_combiner(config(), train, val, options)
    two, _ = train_combiner(config(), train, val, options)
    three, _ = train_combiner(config(), train, val, TrainOptions(epochs=2, seed=8))
    first, second, third = one.state_dict(), two.state_dict(), three.state_dict()
    assert all(np.array_equal(first[k].numpy(), second[k].numpy()) for k in first)
    assert not all(np.array_equal(first[k].numpy(), third[k].numpy()) for k in first)


def test_cancel_stops_training() -> None:
    token = CancelToken()
    token.cancel()
    with pytest.raises(JobCancelled):
        train_combiner(config(), toy_task(300, 0), None, TrainOptions(epochs=2), cancel=token)


def test_saved_combiners_load_identically_and_are_listed(tmp_path: Path) -> None:
    combiner, _ = train_combiner(config("saved"), toy_task(100, 0), None, TrainOptions(epochs=1))
    path = save_combiner(combiner, tmp_path)
    assert path.name == "saved.json" and (tmp_path / "saved.safetensors").is_file()
    assert not list(tmp_path.glob("*.partial")) and not list(tmp_path.glob("*.pt"))
    stored = json.loads(path.read_text())
    assert stored["embedding_key"] == "model-a" and stored["dim"] == DIM
    loaded = load_combiner(tmp_path, "saved", "model-a")
    task = toy_task(20, 5)
    assert np.array_equal(
        loaded.compose(task.references, task.texts), combiner.compose(task.references, task.texts)
    )
    assert [c.name for c in list_configs(tmp_path)] == ["saved"]


def test_a_combiner_of_another_embedding_model_is_refused(tmp_path: Path) -> None:
    save_combiner(Combiner.untrained(config("other", key="model-a")), tmp_path)
    with pytest.raises(CombinerError) as error:
        load_combiner(tmp_path, "other", "model-b")
    message = str(error.value)
    assert "\n" not in message and "toy-model" in message and "other.json" in message


def test_bad_names_and_files_are_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(CombinerError, match="cannot name a combiner"):
        save_combiner(Combiner.untrained(config("../evil")), tmp_path)
    (tmp_path / "broken.json").write_text("{not json")
    (tmp_path / "broken.safetensors").write_bytes(b"")
    assert list_configs(tmp_path) == []
    with pytest.raises(CombinerError, match="broken.json"):
        load_combiner(tmp_path, "broken", "model-a")
    with pytest.raises(CombinerError, match="no combiner 'absent'"):
        load_combiner(tmp_path, "absent", "model-a")


def test_alpha_zero_serves_exactly_the_sum_and_one_the_network() -> None:
    train, val = toy_task(600, 0), toy_task(100, 1)
    combiner, _ = train_combiner(config(), train, val, TrainOptions(epochs=3, seed=0))
    network = combiner.compose(val.references, val.texts)
    combiner.config.alpha = 0.0
    served = combiner.compose(val.references, val.texts)
    summed = unit(val.references + val.texts)
    assert np.allclose(served, summed, atol=1e-6)
    assert np.array_equal(rank_targets(served, val), rank_targets(summed, val))
    combiner.config.alpha = 0.5
    half = combiner.compose(val.references, val.texts)
    assert np.allclose(half, unit(summed + 0.5 * (network - summed)), atol=1e-6)
    combiner.config.alpha = 1.0
    assert np.array_equal(combiner.compose(val.references, val.texts), network)


def test_alpha_is_chosen_on_the_data_given_stored_and_applied_on_load(tmp_path: Path) -> None:
    combiner, _ = train_combiner(
        config("mixed"), toy_task(1200, 0), toy_task(200, 1), TrainOptions(epochs=8, seed=0)
    )
    # the text the network learned to read: the trained network wins
    alpha, table = choose_alpha(combiner, toy_task(200, 2))
    assert alpha >= 0.5 and [row["alpha"] for row in table] == list(ALPHAS)
    # text the sum reads and the network never saw: served (almost) as the sum
    rng = np.random.default_rng(4)
    gallery = unit(rng.normal(size=(200, DIM)))
    targets, references = rng.integers(0, 200, 200), rng.integers(0, 200, 200)
    plain = Triplets(gallery[references], unit(2 * gallery[targets] - gallery[references]),
                     targets, gallery)
    alpha, _ = choose_alpha(combiner, plain)
    assert alpha <= 0.5 and combiner.config.alpha == alpha
    save_combiner(combiner, tmp_path)
    assert json.loads((tmp_path / "mixed.json").read_text())["alpha"] == alpha
    loaded = load_combiner(tmp_path, "mixed", "model-a")
    assert loaded.config.alpha == alpha
    assert np.array_equal(loaded.compose(plain.references, plain.texts),
                          combiner.compose(plain.references, plain.texts))


def test_an_alpha_outside_zero_to_one_is_refused() -> None:
    with pytest.raises(CombinerError, match="alpha"):
        CombinerConfig("bad", "toy-model", "model-a", DIM, alpha=1.5)
