"""Vector indexes: same answers as numpy brute force, full filtered top-k, persistence."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from backends.index import available_indexes, create_index, load_index
from backends.index.ivf import IVFIndex

DIM = 32


def unit_rows(n: int, seed: int) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def brute_force(
    queries: np.ndarray, vectors: np.ndarray, ids: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    scores = queries @ vectors.T
    order = np.argsort(-scores, axis=1)[:, :k]
    return ids[order], np.take_along_axis(scores, order, axis=1)


def make(kind: str):
    if kind == "ivf":  # small enough to train, probing every list: must then be exact
        return IVFIndex(DIM, nlist=8, nprobe=8, min_train=200)
    if kind == "torch":
        return create_index(kind, DIM, device="cpu")
    return create_index(kind, DIM)


KINDS = ["flat", "ivf", "torch"]


@pytest.fixture
def data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ids = np.arange(1000, 1600, dtype=np.int64)
    return ids, unit_rows(len(ids), 0), unit_rows(7, 1)


def test_registry_lists_kinds_and_rejects_unknown() -> None:
    assert available_indexes() == ["flat", "ivf", "torch"]
    with pytest.raises(ValueError) as error:
        create_index("annoy", DIM)
    assert str(error.value) == (
        "Unsupported index 'annoy'. The available indexes are: flat, ivf, torch"
    )


@pytest.mark.parametrize("kind", KINDS)
def test_search_matches_brute_force(kind: str, data) -> None:
    ids, vectors, queries = data
    index = make(kind)
    index.add(ids[:300], vectors[:300])
    index.add(ids[300:], vectors[300:])  # a second add; ivf trains on crossing min_train
    found_ids, found_scores = index.search(queries, 10)
    want_ids, want_scores = brute_force(queries, vectors, ids, 10)
    np.testing.assert_array_equal(found_ids, want_ids)
    np.testing.assert_allclose(found_scores, want_scores, rtol=1e-5, atol=1e-5)
    assert len(index) == len(ids)
    if kind == "ivf":
        assert index.trained


@pytest.mark.parametrize("kind", KINDS)
def test_filter_returns_full_top_k_of_allowed(kind: str, data) -> None:
    ids, vectors, queries = data
    index = make(kind)
    index.add(ids, vectors)
    allowed = set(ids[::37].tolist())  # 17 scattered ids, far from any unfiltered top-10
    found_ids, found_scores = index.search(queries, 10, allowed_ids=allowed)
    mask = np.isin(ids, list(allowed))
    want_ids, want_scores = brute_force(queries, vectors[mask], ids[mask], 10)
    np.testing.assert_array_equal(found_ids, want_ids)
    np.testing.assert_allclose(found_scores, want_scores, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kind", KINDS)
def test_short_results_are_padded(kind: str, data) -> None:
    ids, vectors, queries = data
    index = make(kind)
    index.add(ids, vectors)
    found_ids, found_scores = index.search(queries[:2], 5, allowed_ids=[ids[3], ids[9], 42])
    assert found_ids.shape == (2, 5)
    assert set(found_ids[0, :2]) == {ids[3], ids[9]}
    assert (found_ids[:, 2:] == -1).all() and np.isneginf(found_scores[:, 2:]).all()
    none_ids, _ = index.search(queries[:1], 3, allowed_ids=set())
    assert (none_ids == -1).all()


@pytest.mark.parametrize("kind", KINDS)
def test_remove_and_replace(kind: str, data) -> None:
    ids, vectors, queries = data
    index = make(kind)
    index.add(ids, vectors)
    top_before, _ = index.search(queries[:1], 3)
    removed = index.remove([top_before[0, 0], 5])  # 5 was never added
    assert removed == 1 and len(index) == len(ids) - 1
    top_after, _ = index.search(queries[:1], 3)
    assert top_before[0, 0] not in top_after[0]
    index.add([ids[0]], queries[0])  # re-adding an id replaces its vector, no duplicate
    top, scores = index.search(queries[:1], 2)
    assert top[0, 0] == ids[0] and scores[0, 0] == pytest.approx(1.0, abs=1e-5)
    assert len(index) == len(ids) - 1
    assert sorted(index.ids().tolist()).count(int(ids[0])) == 1


@pytest.mark.parametrize("kind", KINDS)
def test_save_load_round_trip(kind: str, data, tmp_path: Path) -> None:
    ids, vectors, queries = data
    index = make(kind)
    index.add(ids, vectors)
    index.remove(ids[:10])
    index.save(tmp_path / "idx")
    loaded = load_index(tmp_path / "idx", **({"device": "cpu"} if kind == "torch" else {}))
    assert type(loaded) is type(index) and len(loaded) == len(index)
    for a, b in zip(index.search(queries, 10), loaded.search(queries, 10), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_ivf_small_gallery_stays_exact_and_untrained(data) -> None:
    ids, vectors, queries = data
    index = IVFIndex(DIM)  # default min_train is far above 600
    index.add(ids, vectors)
    assert not index.trained and not index.is_exact
    np.testing.assert_array_equal(
        index.search(queries, 5)[0], brute_force(queries, vectors, ids, 5)[0]
    )


def test_ivf_filtered_probe_is_refilled_to_full_k(data) -> None:
    ids, vectors, queries = data
    index = IVFIndex(DIM, nlist=16, nprobe=1, min_train=200)
    index.add(ids, vectors)
    index.exact_subset_limit = 0  # force the IVF selector path, which probes one list only
    allowed = set(ids[::5].tolist())
    found_ids, _ = index.search(queries, 10, allowed_ids=allowed)
    assert (found_ids != -1).all()
    assert set(found_ids.ravel()) <= allowed


def test_capabilities() -> None:
    assert make("flat").is_exact and not make("flat").on_gpu
    assert not make("ivf").is_exact
    assert make("torch").is_exact and not make("torch").on_gpu


def test_add_rejects_bad_input() -> None:
    index = make("flat")
    with pytest.raises(ValueError, match="dimension"):
        index.add([1], np.zeros((1, DIM + 1), np.float32))
    with pytest.raises(ValueError, match="unique"):
        index.add([1, 1], np.zeros((2, DIM), np.float32))
    with pytest.raises(ValueError, match="2 ids for 1 vectors"):
        index.add([1, 2], np.zeros((1, DIM), np.float32))


@pytest.mark.gpu
def test_torch_index_on_cuda_matches_brute_force(data, tmp_path: Path) -> None:
    ids, vectors, queries = data
    index = create_index("torch", DIM, device="cuda")
    assert index.on_gpu
    index.add(ids, vectors)
    found_ids, found_scores = index.search(queries, 10)
    want_ids, want_scores = brute_force(queries, vectors, ids, 10)
    np.testing.assert_allclose(found_scores, want_scores, atol=2e-3)  # fp16 storage
    assert (found_ids[:, :3] == want_ids[:, :3]).mean() > 0.9
    allowed = set(ids[::37].tolist())
    filtered, _ = index.search(queries, 10, allowed_ids=allowed)
    assert set(filtered.ravel()) <= allowed
    index.save(tmp_path / "gpu")
    assert load_index(tmp_path / "gpu", device="cuda").on_gpu
