"""Model registry, offline behaviour, the shipped demo model, and device helpers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from PIL import Image

from backends.device import choose_device, run_halving_on_oom
from backends.errors import ModelUnavailable
from backends.models import available_backends, load_model
from backends.models.demo_model import WEIGHTS_PATH, register_demo_config


def unit_norms(vectors: np.ndarray) -> np.ndarray:
    return np.linalg.norm(vectors, axis=1)


def test_registry_names_and_unknown_backend() -> None:
    assert available_backends() == ["demo", "open_clip", "transformers"]
    with pytest.raises(ValueError) as error:
        load_model("keras:whatever")
    assert str(error.value) == (
        "Unsupported model backend 'keras'. The available backends are: demo, open_clip, "
        "transformers"
    )


@pytest.mark.parametrize(
    "spec",
    [
        "open_clip:hf-hub:cir-studio-tests/no-such-model",
        "transformers:cir-studio-tests/no-such-model",
    ],
)
def test_hub_model_offline_raises_one_clear_error(spec: str) -> None:
    with pytest.raises(ModelUnavailable) as error:
        load_model(spec, device="cpu")
    message = str(error.value)
    assert spec in message and "HF_HUB_OFFLINE" in message and "demo" in message


def test_published_open_clip_tag_offline_raises_model_unavailable() -> None:
    from huggingface_hub import try_to_load_from_cache

    repo = "laion/CLIP-ViT-B-32-laion2B-s34B-b79K"
    if isinstance(try_to_load_from_cache(repo, "open_clip_model.safetensors"), str):
        pytest.skip("weights are cached on this machine")
    with pytest.raises(ModelUnavailable, match="ViT-B-32/laion2b_s34b_b79k"):
        load_model("open_clip:ViT-B-32/laion2b_s34b_b79k", device="cpu")


def test_bad_open_clip_specs_are_explained(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="Known tags"):
        load_model("open_clip:ViT-B-32/no_such_tag")
    with pytest.raises(ValueError, match="names no weights"):
        load_model("open_clip:ViT-B-32")
    with pytest.raises(ModelUnavailable, match="does not exist"):
        load_model(f"open_clip:ViT-B-32@{tmp_path / 'missing.safetensors'}")


def test_demo_model_embeds_offline(demo_model) -> None:
    assert demo_model.name == "demo" and demo_model.dim == 128 and demo_model.device == "cpu"
    assert demo_model.cache_key.startswith("demo-")
    texts = demo_model.encode_texts(["red dress", "blue striped shirt with long sleeves"])
    assert texts.shape == (2, demo_model.dim) and texts.dtype == np.float32
    np.testing.assert_allclose(unit_norms(texts), 1.0, atol=1e-5)
    pixels = torch.stack(
        [demo_model.preprocess(Image.new("RGB", (300, 200), c)) for c in ("red", "blue")]
    )
    images = demo_model.encode_images(pixels)
    assert images.shape == (2, demo_model.dim) and images.dtype == np.float32
    np.testing.assert_allclose(unit_norms(images), 1.0, atol=1e-5)
    assert demo_model.encode_texts([]).shape == (0, demo_model.dim)


def test_demo_model_matches_titles_to_their_garments(demo_model, demo_template: Path) -> None:
    from studio.demo.catalog import read_catalog

    items = [it for it in read_catalog(demo_template) if it.category == "dress"][:12]
    pixels = torch.stack(
        [demo_model.preprocess(Image.open(demo_template / it.file)) for it in items]
    )
    scores = (
        demo_model.encode_texts([it.title for it in items]) @ demo_model.encode_images(pixels).T
    )
    own_is_best = (scores.argmax(axis=1) == np.arange(len(items))).mean()
    assert own_is_best >= 0.5  # chance is 1/12


def test_checkpoint_path_loads_like_the_demo(demo_model) -> None:
    arch = register_demo_config()
    same = load_model(f"open_clip:{arch}@{WEIGHTS_PATH}", device="cpu")
    np.testing.assert_allclose(
        same.encode_texts(["navy tee"]), demo_model.encode_texts(["navy tee"])
    )


def test_pickled_code_in_a_checkpoint_is_refused(tmp_path: Path) -> None:
    arch = register_demo_config()
    path = tmp_path / "evil.pt"
    torch.save({"state_dict": {"x": torch.zeros(1)}, "payload": Path("/")}, path)
    with pytest.raises(Exception, match="(?i)weights_only|unpickl"):
        load_model(f"open_clip:{arch}@{path}", device="cpu")


def _tiny_hf_clip(folder: Path) -> Path:
    """A randomly initialised CLIP with a byte-level vocabulary, saved like a hub model."""
    from transformers import (
        CLIPConfig,
        CLIPImageProcessor,
        CLIPModel,
        CLIPProcessor,
        CLIPTokenizer,
    )

    printable = [*range(33, 127), *range(161, 173), *range(174, 256)]
    chars = [chr(b) for b in printable] + [chr(256 + n) for n in range(256 - len(printable))]
    vocab = {c: i for i, c in enumerate(chars)}
    vocab.update({c + "</w>": len(chars) + i for i, c in enumerate(chars)})
    start, end = len(vocab), len(vocab) + 1
    vocab.update({"<|startoftext|>": start, "<|endoftext|>": end})
    try:
        tokenizer = CLIPTokenizer(vocab=vocab, merges=[], model_max_length=16)
    except TypeError:  # transformers < 5 takes files
        (folder / "vocab.json").write_text(json.dumps(vocab))
        (folder / "merges.txt").write_text("#version: 0.2\n")
        tokenizer = CLIPTokenizer(str(folder / "vocab.json"), str(folder / "merges.txt"))
    layers = {
        "hidden_size": 32,
        "intermediate_size": 37,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
    }
    config = CLIPConfig(
        text_config={
            **layers,
            "vocab_size": len(vocab),
            "max_position_embeddings": 16,
            "bos_token_id": start,
            "eos_token_id": end,
            "pad_token_id": end,
        },
        vision_config={**layers, "image_size": 32, "patch_size": 8},
        projection_dim=16,
    )
    CLIPModel(config).save_pretrained(folder)
    processor = CLIPProcessor(
        image_processor=CLIPImageProcessor(
            size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32}
        ),
        tokenizer=tokenizer,
    )
    processor.save_pretrained(folder)
    return folder


def test_transformers_local_folder_embeds(tmp_path: Path) -> None:
    model = load_model(f"transformers:{_tiny_hf_clip(tmp_path)}", device="cpu")
    assert model.dim == 16
    pixels = torch.stack([model.preprocess(Image.new("RGB", (50, 40), "red"))] * 3)
    assert pixels.shape == (3, 3, 32, 32)
    np.testing.assert_allclose(unit_norms(model.encode_images(pixels)), 1.0, atol=1e-5)
    np.testing.assert_allclose(unit_norms(model.encode_texts(["a", "red dress"])), 1.0, atol=1e-5)


def test_transformers_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailable, match="no folder"):
        load_model(f"transformers:{tmp_path / 'absent'}/", device="cpu")


def test_choose_device(monkeypatch: pytest.MonkeyPatch) -> None:
    assert choose_device("cpu") == "cpu"
    assert choose_device(None) in {"cuda", "mps", "cpu"}
    monkeypatch.setenv("CIR_STUDIO_DEVICE", "cpu")
    assert choose_device() == "cpu"
    with pytest.raises(ValueError, match="Unknown device"):
        choose_device("tpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="no CUDA"):
            choose_device("cuda")


def test_out_of_memory_batches_are_retried_in_halves() -> None:
    sizes: list[int] = []

    def forward(batch: torch.Tensor) -> torch.Tensor:
        if len(batch) > 3:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory")
        sizes.append(len(batch))
        return batch * 2

    result = run_halving_on_oom(forward, torch.arange(10))
    assert result.tolist() == [2 * i for i in range(10)]
    assert sizes == [2, 3, 2, 3]  # 10 -> 5 + 5 -> (2 + 3) + (2 + 3)

    def broken(batch: torch.Tensor) -> torch.Tensor:
        raise RuntimeError("shape mismatch")

    with pytest.raises(RuntimeError, match="shape mismatch"):
        run_halving_on_oom(broken, torch.arange(4))


def test_importing_backends_loads_no_heavy_library() -> None:
    import subprocess
    import sys

    code = (
        "import sys, backends, backends.models, backends.index, backends.embedding, "
        "backends.images, backends.device; "
        "print(sorted(m for m in ('torch', 'open_clip', 'transformers', 'faiss') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
