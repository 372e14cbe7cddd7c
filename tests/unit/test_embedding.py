"""Embedding jobs: order, skipped files with reasons, per-batch results, cancel, progress."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
import torch
from PIL import Image

from backends.embedding import embed_images, iter_embedded_batches
from backends.models.base import EmbeddingModel, to_unit_numpy
from studio.jobs import CancelToken, JobCancelled


class MeanColourModel(EmbeddingModel):
    """A stand-in model whose image vector is the image's mean colour (plus a constant)."""

    def __init__(self) -> None:
        self.name, self.dim, self.device = "mean-colour", 4, "cpu"
        self.encoded_batches: list[int] = []

    def preprocess(self, image: Image.Image) -> torch.Tensor:
        pixels = torch.from_numpy(np.asarray(image.resize((8, 8)), dtype=np.float32) / 255)
        return pixels.permute(2, 0, 1)

    def encode_images(self, batch: torch.Tensor) -> np.ndarray:
        self.encoded_batches.append(len(batch))
        means = batch.mean(dim=(2, 3))
        return to_unit_numpy(torch.cat([means, torch.full((len(batch), 1), 0.1)], dim=1))

    def encode_texts(self, texts: Sequence[str]) -> np.ndarray:
        return np.zeros((len(texts), self.dim), np.float32)


COLOURS = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (250, 250, 0), (0, 250, 250)]


@pytest.fixture
def gallery(tmp_path: Path) -> list[Path]:
    """Eleven files: nine good pictures and two bad ones in the middle."""
    paths = []
    for i in range(9):
        path = tmp_path / f"img{i:02d}.png"
        Image.new("RGB", (20, 20), COLOURS[i % len(COLOURS)]).save(path)
        paths.append(path)
    (tmp_path / "empty.jpg").write_bytes(b"")
    (tmp_path / "junk.jpg").write_bytes(b"\xff\xd8 definitely not a jpeg")
    return paths[:4] + [tmp_path / "empty.jpg"] + paths[4:7] + [tmp_path / "junk.jpg"] + paths[7:]


def test_embeds_good_images_in_order_and_skips_bad_ones(gallery: list[Path]) -> None:
    model = MeanColourModel()
    result = embed_images(model, gallery, batch_size=4, workers=2)
    indices, vectors, skipped = result  # unpacks like a tuple
    assert indices.tolist() == [0, 1, 2, 3, 5, 6, 7, 9, 10]
    assert vectors.shape == (9, 4) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    assert [path.name for path, _ in skipped] == ["empty.jpg", "junk.jpg"]
    assert all(reason for _, reason in skipped)
    red = vectors[indices.tolist().index(0)]
    assert red.argmax() == 0  # the first picture is red


def test_batches_are_yielded_one_by_one(gallery: list[Path]) -> None:
    model = MeanColourModel()
    batches = list(iter_embedded_batches(model, gallery, batch_size=4))
    assert [len(b.indices) + len(b.skipped) for b in batches] == [4, 4, 3]
    assert sum(len(b.vectors) for b in batches) == 9
    assert all(len(b.vectors) == len(b.indices) for b in batches)


def test_progress_reaches_total(gallery: list[Path]) -> None:
    reports: list[tuple[int, int, str]] = []
    embed_images(
        MeanColourModel(),
        gallery,
        batch_size=5,
        progress=lambda d, t, m="": reports.append((d, t, m)),
    )
    assert reports[0][:2] == (0, 11) and reports[-1][:2] == (11, 11)
    assert "2 skipped" in reports[-1][2]


def test_cancel_raises_job_cancelled_between_batches(gallery: list[Path]) -> None:
    model = MeanColourModel()
    token = CancelToken()

    def progress(done: int, total: int, message: str = "") -> None:
        if done >= 4:
            token.cancel()

    with pytest.raises(JobCancelled):
        embed_images(model, gallery * 3, batch_size=4, progress=progress, cancel=token)
    assert model.encoded_batches == [4]  # stopped right after the first batch


def test_only_bad_or_no_files(tmp_path: Path) -> None:
    model = MeanColourModel()
    empty = embed_images(model, [])
    assert empty.vectors.shape == (0, 4) and empty.indices.shape == (0,)
    (tmp_path / "a.jpg").write_bytes(b"")
    result = embed_images(model, [tmp_path / "a.jpg"])
    assert result.vectors.shape == (0, 4) and len(result.skipped) == 1


def test_rejects_bad_batch_size(gallery: list[Path]) -> None:
    with pytest.raises(ValueError, match="batch_size"):
        embed_images(MeanColourModel(), gallery, batch_size=0)
