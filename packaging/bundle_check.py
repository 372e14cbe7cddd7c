"""Exercise every heavy library the bundle must carry; print one JSON line; exit 1 on failure.

The window's ``--smoke-test`` deliberately imports none of torch, open_clip, transformers or
faiss (the window must show before them), so it cannot tell whether PyInstaller collected
them. This check can: it runs inside the built application as
``dist/cir-studio/cir-studio --bundle-check`` (see ``packaging/entry.py``) and, for
comparison, from the source tree as ``.venv/bin/python packaging/bundle_check.py``.

Everything is built from tiny random weights in a temporary folder, so it needs no network
and no downloaded model: torch and torchvision kernels, open_clip (its bundled BPE
vocabulary and model-config JSONs, and a checkpoint loaded through the studio's own
``open_clip:ARCH@file`` path), transformers (CLIP through ``AutoModel``/``AutoProcessor`` via
the studio's ``transformers:FOLDER`` path, SigLIP through ``AutoModel``), faiss through the
studio's flat index, the shipped demo model when ``resources/demo_model`` holds it, SQLite
through sqlite-utils, PIL with JPEG and FreeType, qasync, platformdirs, and the Qt platform
plugins ``offscreen`` and ``xcb``.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path

if not getattr(sys, "frozen", False) and __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from the source tree

# Modules the spec excludes; reported (not failed) so a size regression is visible.
EXCLUDED = ("tkinter", "IPython", "triton", "pytest", "PySide6.QtWebEngineCore", "PySide6.QtPdf")


def check_resources(tmp: Path) -> str:
    from resources import resource_path

    style = resource_path("style.qss")
    if not style.is_file():
        raise FileNotFoundError(style)
    shipped = sorted(
        str(path.relative_to(resource_path()))
        for path in resource_path().rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    )
    return f"{len(shipped)} files: " + ", ".join(shipped[:12]) + (" …" if len(shipped) > 12 else "")


def check_qt_plugins(tmp: Path) -> str:
    import PySide6

    folder = Path(PySide6.__file__).resolve().parent / "Qt" / "plugins" / "platforms"
    found = sorted(path.name for path in folder.glob("*qoffscreen*")) + sorted(
        path.name for path in folder.glob("*qxcb*")
    )
    wanted = ("offscreen", "xcb") if sys.platform.startswith("linux") else ("offscreen",)
    missing = [name for name in wanted if not any(name in found_name for found_name in found)]
    if missing:
        raise FileNotFoundError(f"Qt platform plugins missing in {folder}: {missing}")
    return ", ".join(found)


def check_numpy_pil(tmp: Path) -> str:
    import io

    import numpy as np
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", (64, 64), "white")
    ImageDraw.Draw(image).text((4, 4), "CIR", fill="black", font=ImageFont.load_default(size=14))
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG")
    decoded = np.asarray(Image.open(io.BytesIO(buffer.getvalue())).convert("RGB"))
    if decoded.shape != (64, 64, 3) or decoded.min() > 200:
        raise ValueError("JPEG round trip or FreeType text drawing failed")
    import PIL

    return f"numpy {np.__version__}, Pillow {PIL.__version__}"


def check_torch(tmp: Path) -> str:
    import torch
    import torchvision
    from PIL import Image
    from torchvision import transforms
    from torchvision.ops import nms

    layer = torch.nn.Linear(8, 4)
    with torch.inference_mode():
        out = layer(torch.ones(2, 8)) @ torch.eye(4)
    pixels = transforms.Compose([transforms.Resize(32), transforms.ToTensor()])(
        Image.new("RGB", (48, 40), "red")
    )
    boxes = torch.tensor([[0.0, 0.0, 10.0, 10.0], [1.0, 1.0, 10.0, 10.0]])
    kept = nms(boxes, torch.tensor([0.9, 0.8]), 0.5)  # needs the compiled torchvision._C
    if out.shape != (2, 4) or pixels.shape[0] != 3 or kept.tolist() != [0]:
        raise ValueError("unexpected torch/torchvision results")
    cuda = torch.version.cuda or "none"
    return (
        f"torch {torch.__version__} (CUDA build {cuda}, GPU available "
        f"{torch.cuda.is_available()}), torchvision {torchvision.__version__}"
    )


TINY_OPEN_CLIP = {
    "embed_dim": 16,
    "vision_cfg": {"image_size": 32, "layers": 1, "width": 32, "patch_size": 16, "head_width": 16},
    "text_cfg": {"context_length": 77, "vocab_size": 49408, "width": 32, "heads": 2, "layers": 1},
}


def check_open_clip(tmp: Path) -> str:
    import open_clip
    import torch
    from PIL import Image
    from safetensors.torch import save_file

    from backends.models import load_model

    configs = open_clip.list_models()
    if "ViT-B-32" not in configs:
        raise FileNotFoundError("open_clip's model_configs/*.json were not collected")
    tokens = open_clip.get_tokenizer("ViT-B-32")(["a red dress with long sleeves"])
    if tokens.shape != (1, 77) or int(tokens[0, 1]) == 0:
        raise ValueError("open_clip's BPE tokenizer (bpe_simple_vocab_16e6.txt.gz) failed")
    arch = "bundle-check-tiny"
    config = tmp / f"{arch}.json"
    config.write_text(json.dumps(TINY_OPEN_CLIP))
    open_clip.add_model_config(config)
    torch.manual_seed(0)
    weights = tmp / f"{arch}.safetensors"
    save_file(open_clip.create_model(arch).state_dict(), str(weights))
    model = load_model(f"open_clip:{arch}@{weights}", "cpu")
    images = model.encode_images(torch.stack([model.preprocess(Image.new("RGB", (40, 40)))]))
    texts = model.encode_texts(["a red dress", "a blue shirt"])
    if images.shape != (1, 16) or texts.shape != (2, 16):
        raise ValueError(f"unexpected embedding shapes {images.shape}, {texts.shape}")
    return f"open_clip {open_clip.__version__}, {len(configs)} model configs, BPE tokenizer ok"


def _tiny_clip_tokenizer():
    from open_clip.tokenizer import bytes_to_unicode
    from transformers import CLIPTokenizer

    characters = list(bytes_to_unicode().values())
    symbols = characters + [f"{c}</w>" for c in characters] + ["<|startoftext|>", "<|endoftext|>"]
    return CLIPTokenizer(vocab={s: i for i, s in enumerate(symbols)}, merges=[])  # 514 ids


def check_transformers(tmp: Path) -> str:
    import torch
    import transformers
    from PIL import Image
    from transformers import (
        AutoModel,
        CLIPConfig,
        CLIPImageProcessor,
        CLIPModel,
        CLIPProcessor,
        SiglipConfig,
        SiglipModel,
    )

    from backends.models import load_model

    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()
    tower = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
             "num_attention_heads": 2}  # fmt: skip
    torch.manual_seed(0)
    clip_dir = tmp / "tiny-clip"
    clip = CLIPModel(
        CLIPConfig(
            text_config={
                **tower,
                "vocab_size": 600,
                "max_position_embeddings": 77,
                "bos_token_id": 512,
                "eos_token_id": 513,
                "pad_token_id": 513,
            },
            vision_config={**tower, "image_size": 32, "patch_size": 16},
            projection_dim=16,
        )
    )
    clip.save_pretrained(clip_dir)
    processor = CLIPProcessor(
        image_processor=CLIPImageProcessor(size={"shortest_edge": 32}, crop_size=32),
        tokenizer=_tiny_clip_tokenizer(),
    )
    processor.save_pretrained(clip_dir)
    model = load_model(f"transformers:{clip_dir}", "cpu")  # AutoModel + AutoProcessor
    images = model.encode_images(torch.stack([model.preprocess(Image.new("RGB", (40, 40)))]))
    texts = model.encode_texts(["a red dress"])
    if images.shape != (1, 16) or texts.shape != (1, 16):
        raise ValueError(f"unexpected CLIP embedding shapes {images.shape}, {texts.shape}")
    siglip_dir = tmp / "tiny-siglip"
    SiglipModel(
        SiglipConfig(
            text_config={**tower, "vocab_size": 600},
            vision_config={**tower, "image_size": 32, "patch_size": 16},
        )
    ).save_pretrained(siglip_dir)
    siglip = AutoModel.from_pretrained(siglip_dir)
    with torch.inference_mode():
        features = siglip.get_text_features(input_ids=torch.tensor([[1, 2, 3]]))
    if not hasattr(features, "shape") and not hasattr(features, "pooler_output"):
        raise ValueError("SigLIP returned no text features")
    return f"transformers {transformers.__version__}: CLIP via AutoModel/AutoProcessor, SigLIP"


def check_faiss(tmp: Path) -> str:
    import faiss
    import numpy as np

    from backends.index import create_index, load_index

    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((50, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index = create_index("flat", 16)
    index.add(np.arange(50), vectors)
    index.save(tmp / "index")
    ids, _scores = load_index(tmp / "index").search(vectors[7:8], 3)
    if int(ids[0, 0]) != 7:
        raise ValueError(f"faiss flat index returned {ids[0].tolist()} for vector 7")
    return f"faiss {faiss.__version__}"


def check_demo_model(tmp: Path) -> str:
    import torch
    from PIL import Image

    from backends.models import load_model
    from resources import resource_path

    folder = resource_path("demo_model")
    if not list(folder.glob("*.safetensors")):
        return "not shipped yet (resources/demo_model has no weights): skipped"
    model = load_model("demo", "cpu")
    images = model.encode_images(torch.stack([model.preprocess(Image.new("RGB", (64, 64)))]))
    texts = model.encode_texts(["is red with long sleeves"])
    return f"demo model loads offline: image {tuple(images.shape)}, text {tuple(texts.shape)}"


def check_store_libs(tmp: Path) -> str:
    import platformdirs
    import qasync
    import sqlite_utils

    database = sqlite_utils.Database(memory=True)
    database["images"].insert_all([{"id": 1, "path": "a.jpg"}, {"id": 2, "path": "b.jpg"}])
    if database["images"].count != 2:
        raise ValueError("sqlite-utils insert failed")
    platformdirs.user_data_dir("cir-studio")
    if not hasattr(qasync, "QEventLoop"):
        raise ImportError("qasync has no QEventLoop")
    return "sqlite-utils, qasync and platformdirs ok"


CHECKS: dict[str, Callable[[Path], str]] = {
    "resources": check_resources,
    "qt_platform_plugins": check_qt_plugins,
    "numpy_pil": check_numpy_pil,
    "torch": check_torch,
    "open_clip": check_open_clip,
    "transformers": check_transformers,
    "faiss": check_faiss,
    "demo_model": check_demo_model,
    "store_libs": check_store_libs,
}


def excluded_present() -> list[str]:
    import importlib.util

    present = []
    for name in EXCLUDED:
        try:
            if importlib.util.find_spec(name) is not None:
                present.append(name)
        except (ImportError, ValueError):
            pass
    return present


def main(argv: list[str] | None = None) -> int:
    started = time.perf_counter()
    report: dict[str, object] = {"frozen": bool(getattr(sys, "frozen", False))}
    results: dict[str, str] = {}
    errors: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="cir-bundle-check-") as folder:
        for name, check in CHECKS.items():
            tick = time.perf_counter()
            try:
                results[name] = f"{check(Path(folder))} ({time.perf_counter() - tick:.1f} s)"
            except Exception:  # noqa: BLE001 - every failure is reported, then exit 1
                errors[name] = traceback.format_exc(limit=6).strip()
    report.update(
        ok=not errors,
        checks=results,
        errors=errors,
        excluded_but_present=excluded_present(),
        seconds=round(time.perf_counter() - started, 1),
    )
    print(json.dumps(report, sort_keys=True), flush=True)
    return 0 if not errors else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
