"""Train the shipped demo model: a tiny open_clip CLIP, contrastively, on a generated catalog.

    python -m studio.demo.train_model --out resources/demo_model --seed 0

Data: a training catalog drawn with catalog seed ``1000 + seed``, so no image of the demo
project (catalog seed 0) is ever seen; the seed-0 catalog is used only for the final report.
Because the generator is cheap, fresh data beats reusing the demo's own train split.

Recipe (each part earned its place on the held-out figure):

- texts per item: its title and short attribute phrases with random subsets and synonyms
  (``studio.demo.train_texts``); descriptions are longer than the 24-token context;
- a multi-positive contrastive loss: every image a text truly describes is a positive,
  so "Red Dress" is not pushed away from the other red dresses in the batch;
- linear attribute probes on both towers during training only (category, colour, pattern,
  sleeve, neckline, length, fit, graphic), which teach every detail from the first step;
- a small ResNet image tower at 64 px (convolutions learn fast from little data on a CPU)
  and a 3-layer, 128-wide text tower (the 49408-token embedding table dominates the size);
- horizontal flips only: colour jitter would destroy the colour attribute.

Reproducible: seeded torch/numpy, fixed data order, 2 threads. Writes the open_clip config,
fp16 safetensors weights and ``training_report.json`` into ``--out``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from studio.demo.catalog import (
    ATTRIBUTE_VALUES,
    CATEGORIES,
    CatalogItem,
    generate_catalog,
    read_catalog,
)
from studio.demo.train_texts import ANY_CATEGORY, TrainText, attribute_phrase, catalog_texts

ARCH = "cir-demo"
CONFIG: dict[str, Any] = {
    "embed_dim": 128,
    "vision_cfg": {"image_size": 64, "layers": [1, 1, 1, 1], "width": 24, "patch_size": None},
    "text_cfg": {"context_length": 24, "vocab_size": 49408, "width": 128, "heads": 4, "layers": 3},
}
ATTRIBUTE_NAMES = ("color", "pattern", "sleeve", "neckline", "length", "fit", "graphic")
PHRASES_PER_ITEM = 12
TITLE_SHARE = 0.35  # the rest are attribute phrases
AUX_WEIGHT = 0.5
IGNORE = -100


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("resources/demo_model"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--train-images", type=int, default=8000)
    parser.add_argument("--epochs", type=float, default=10.0)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--eval-images", type=int, default=2000)
    parser.add_argument(
        "--work-dir", type=Path, default=None, help="keep generated catalogs here (reused)"
    )
    return parser.parse_args(argv)


def ensure_catalog(folder: Path, n_images: int, seed: int) -> list[CatalogItem]:
    """Generate (or reuse an identical earlier) catalog; generation is deterministic."""
    stamp = folder / "generated.json"
    wanted = {"n_images": n_images, "seed": seed}
    if not (stamp.is_file() and json.loads(stamp.read_text()) == wanted):
        generate_catalog(folder, n_images, seed, progress=_printer(f"catalog seed {seed}"))
        stamp.write_text(json.dumps(wanted))
    return read_catalog(folder)


def _printer(label: str) -> Any:
    last = [0.0]

    def progress(done: int, total: int, message: str = "") -> None:
        now = time.monotonic()
        if now - last[0] > 10 or done == total:
            last[0] = now
            print(f"  [{label}] {done}/{total} {message}", flush=True)

    return progress


def load_pixels(root: Path, items: list[CatalogItem], size: int, threads: int) -> Any:
    """uint8 (N, 3, S, S): the inference preprocessing (resize + centre crop) done once."""
    import torch
    from torchvision import transforms

    from backends.images import load_image

    resize = transforms.Compose(
        [
            transforms.Resize(size, interpolation=transforms.InterpolationMode.BICUBIC),
            transforms.CenterCrop(size),
        ]
    )

    def one(item: CatalogItem) -> np.ndarray:
        image, reason = load_image(root / item.file)
        if image is None:
            raise RuntimeError(f"{item.file}: {reason}")
        return np.asarray(resize(image), dtype=np.uint8).transpose(2, 0, 1)

    with ThreadPoolExecutor(threads) as pool:
        arrays = list(pool.map(one, items))
    return torch.from_numpy(np.stack(arrays))


def value_codes() -> dict[str, dict[str, int]]:
    codes: dict[str, dict[str, int]] = {name: {} for name in ATTRIBUTE_NAMES}
    for values in ATTRIBUTE_VALUES.values():
        for name, options in values.items():
            for option in options:
                codes[name].setdefault(option, len(codes[name]))
    return codes


def encode_claims(
    texts: list[TrainText], codes: dict[str, dict[str, int]]
) -> tuple[np.ndarray, np.ndarray]:
    """Per text: category code (-1 = any) and attribute codes (-1 = not claimed)."""
    category = np.array(
        [-1 if t.category == ANY_CATEGORY else CATEGORIES.index(t.category) for t in texts],
        dtype=np.int64,
    )
    claims = np.full((len(texts), len(ATTRIBUTE_NAMES)), -1, dtype=np.int64)
    for row, text in enumerate(texts):
        for name, value in text.attributes:
            claims[row, ATTRIBUTE_NAMES.index(name)] = codes[name][value]
    return category, claims


def encode_items(
    items: list[CatalogItem], codes: dict[str, dict[str, int]]
) -> tuple[np.ndarray, np.ndarray]:
    """Per item: category code and attribute codes (-2 = attribute does not exist)."""
    category = np.array([CATEGORIES.index(item.category) for item in items], dtype=np.int64)
    values = np.full((len(items), len(ATTRIBUTE_NAMES)), -2, dtype=np.int64)
    for row, item in enumerate(items):
        for name, value in item.attributes.items():
            values[row, ATTRIBUTE_NAMES.index(name)] = codes[name][value]
    return category, values


def build_texts(items: list[CatalogItem], seed: int) -> tuple[list[TrainText], np.ndarray]:
    """All training texts and, per item, the row of its first text (title, then phrases).

    Descriptions are left out: they are longer than the 32-token context, and a truncated
    description would claim attributes it no longer states.
    """
    rng = random.Random(f"demo-texts:{seed}")
    texts: list[TrainText] = []
    first = np.zeros(len(items), dtype=np.int64)
    for row, item in enumerate(items):
        first[row] = len(texts)
        texts.append(catalog_texts(item)[0])
        texts.extend(attribute_phrase(item, rng) for _ in range(PHRASES_PER_ITEM))
    return texts, first


def attribute_heads(codes: dict[str, dict[str, int]], dim: int) -> Any:
    """Linear probes on each tower's embedding, used only in training and then dropped.

    Predicting category and attributes from the image (and the claimed ones from the text)
    gives the towers a direct signal for every detail from the first step, which the
    contrastive loss alone provides only slowly at this compute budget.
    """
    import torch

    sizes = {"category": len(CATEGORIES), **{name: len(codes[name]) for name in ATTRIBUTE_NAMES}}
    return torch.nn.ModuleDict(
        {
            tower: torch.nn.ModuleDict(
                {name: torch.nn.Linear(dim, size) for name, size in sizes.items()}
            )
            for tower in ("image", "text")
        }
    )


def attribute_loss(heads: Any, features: Any, category: Any, values: Any) -> Any:
    """Mean cross-entropy over the heads; codes below zero (unknown/absent) are ignored."""
    import torch

    loss = torch.nn.functional.cross_entropy(
        heads["category"](features),
        category.masked_fill(category < 0, IGNORE),
        ignore_index=IGNORE,
    )
    for column, name in enumerate(ATTRIBUTE_NAMES):
        target = values[:, column].masked_fill(values[:, column] < 0, IGNORE)
        if (target != IGNORE).any():
            loss = loss + torch.nn.functional.cross_entropy(
                heads[name](features), target, ignore_index=IGNORE
            )
    return loss / (1 + len(ATTRIBUTE_NAMES))


def multi_positive_loss(logits: Any, positives: Any) -> Any:
    """Symmetric InfoNCE where every true (image, text) pair in the batch is a positive."""
    import torch

    negative_inf = torch.finfo(logits.dtype).min
    pos_logits = logits.masked_fill(~positives, negative_inf)
    image_to_text = torch.logsumexp(logits, 1) - torch.logsumexp(pos_logits, 1)
    text_to_image = torch.logsumexp(logits, 0) - torch.logsumexp(pos_logits, 0)
    return (image_to_text.mean() + text_to_image.mean()) / 2


def param_groups(model: Any, weight_decay: float) -> list[dict[str, Any]]:
    decay: list[Any] = []
    no_decay: list[Any] = []
    for name, param in model.named_parameters():
        skip = param.ndim < 2 or "embedding" in name or "logit_scale" in name or "bn" in name
        (no_decay if skip else decay).append(param)
    return [
        {"params": decay, "weight_decay": weight_decay},
        {"params": no_decay, "weight_decay": 0},
    ]


def train(args: argparse.Namespace) -> dict[str, Any]:
    import open_clip
    import torch

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    started = time.monotonic()
    work = args.work_dir or Path(tempfile.mkdtemp(prefix="cir-demo-train-"))
    catalog_seed = 1000 + args.seed
    items = ensure_catalog(work / f"train-seed{catalog_seed}", args.train_images, catalog_seed)
    args.out.mkdir(parents=True, exist_ok=True)
    config_path = args.out / f"{ARCH}.json"
    config_path.write_text(json.dumps(CONFIG, indent=2) + "\n")
    open_clip.add_model_config(config_path)
    size = CONFIG["vision_cfg"]["image_size"]
    print(f"Decoding {len(items)} training images at {size} px", flush=True)
    pixels = load_pixels(work / f"train-seed{catalog_seed}", items, size, args.threads)
    codes = value_codes()
    texts, first_text = build_texts(items, args.seed)
    tokenizer = open_clip.get_tokenizer(ARCH)
    tokens = torch.cat(
        [tokenizer([t.text for t in texts[i : i + 4096]]) for i in range(0, len(texts), 4096)]
    )
    text_cat, text_claims = (torch.from_numpy(a) for a in encode_claims(texts, codes))
    item_cat, item_values = (torch.from_numpy(a) for a in encode_items(items, codes))
    prep_seconds = time.monotonic() - started

    model = open_clip.create_model(ARCH)
    model.train()
    heads = attribute_heads(codes, CONFIG["embed_dim"])
    mean = torch.tensor(open_clip.OPENAI_DATASET_MEAN).view(1, 3, 1, 1) * 255
    std = torch.tensor(open_clip.OPENAI_DATASET_STD).view(1, 3, 1, 1) * 255
    optimizer = torch.optim.AdamW(
        param_groups(model, 0.1) + [{"params": heads.parameters(), "weight_decay": 0.0}],
        lr=args.lr,
        betas=(0.9, 0.98),
        eps=1e-6,
    )
    steps_per_epoch = len(items) // args.batch_size
    total_steps = max(1, int(args.epochs * steps_per_epoch))
    warmup = min(200, total_steps // 10)
    rng = np.random.default_rng(args.seed)
    order = np.zeros(0, dtype=np.int64)
    print(f"Training {total_steps} steps of {args.batch_size}", flush=True)
    train_started, cpu_started, losses = time.monotonic(), time.process_time(), []
    for step in range(total_steps):
        if len(order) < args.batch_size:
            order = np.concatenate([order, rng.permutation(len(items))])
        batch, order = order[: args.batch_size], order[args.batch_size :]
        use_title = rng.random(len(batch)) < TITLE_SHARE
        offset = np.where(use_title, 0, 1 + rng.integers(0, PHRASES_PER_ITEM, len(batch)))
        text_rows = torch.from_numpy(first_text[batch] + offset)
        batch_t = torch.from_numpy(batch)
        images = pixels[batch_t].float()
        flip = torch.from_numpy(rng.random(len(batch)) < 0.5)
        images[flip] = images[flip].flip(-1)
        images = (images - mean) / std
        claims, categories = text_claims[text_rows], text_cat[text_rows]
        values = item_values[batch_t]
        agree = (claims[None, :, :] == -1) | (claims[None, :, :] == values[:, None, :])
        same_cat = (categories[None, :] == -1) | (categories[None, :] == item_cat[batch_t][:, None])
        positives = agree.all(-1) & same_cat
        lr = (
            args.lr * (step + 1) / warmup
            if step < warmup
            else args.lr
            * 0.5
            * (1 + math.cos(math.pi * (step - warmup) / max(1, total_steps - warmup)))
        )
        for group in optimizer.param_groups:
            group["lr"] = lr
        image_features, text_features, logit_scale = model(images, tokens[text_rows])
        loss = multi_positive_loss(logit_scale * image_features @ text_features.T, positives)
        aux = attribute_loss(heads["image"], image_features, item_cat[batch_t], values)
        aux = aux + attribute_loss(heads["text"], text_features, categories, claims)
        loss = loss + AUX_WEIGHT * aux / 2
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            model.logit_scale.clamp_(0, math.log(100))
        losses.append(float(loss.detach()))
        if step % 50 == 0 or step == total_steps - 1:
            elapsed = time.monotonic() - train_started
            eta = elapsed / (step + 1) * (total_steps - step - 1)
            print(
                f"step {step + 1}/{total_steps} loss {np.mean(losses[-50:]):.3f} "
                f"scale {float(logit_scale):.1f} lr {lr:.2e} {elapsed:.0f}s eta {eta:.0f}s",
                flush=True,
            )
    train_seconds = time.monotonic() - train_started
    train_cpu_seconds = time.process_time() - cpu_started
    weights_path = save_weights(model, args.out / f"{ARCH}.safetensors")
    return {
        "work_dir": str(work),
        "train_catalog": {"seed": catalog_seed, "images": len(items)},
        "texts": len(texts),
        "steps": total_steps,
        "batch_size": args.batch_size,
        "epochs": args.epochs,
        "lr": args.lr,
        "final_loss": float(np.mean(losses[-50:])),
        "prepare_seconds": round(prep_seconds, 1),
        "train_seconds": round(train_seconds, 1),
        "train_cpu_seconds": round(train_cpu_seconds, 1),
        "weights": weights_path.name,
        "weights_bytes": weights_path.stat().st_size,
    }


def save_weights(model: Any, path: Path) -> Path:
    """fp16 safetensors (half the size; the model is loaded back into fp32 on the CPU).

    The header carries a single metadata key: safetensors writes several in a random order,
    and byte-identical files keep the demo model's cache key stable across retraining.
    """
    from safetensors.torch import save_file

    state = {
        key: (value.half() if value.is_floating_point() else value).contiguous()
        for key, value in model.state_dict().items()
    }
    tmp = path.with_suffix(".tmp")
    save_file(state, str(tmp), metadata={"format": "pt"})
    tmp.chmod(0o644)
    tmp.replace(path)
    return path


def evaluate(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """Reload the written files like any checkpoint and score them on the seed-0 demo."""
    from backends.models.openclip_model import OpenClipModel
    from studio.demo.model_eval import evaluate_catalog

    model = OpenClipModel.from_checkpoint(
        ARCH, args.out / f"{ARCH}.safetensors", device="cpu", name="demo"
    )
    root = work / "eval-seed0"
    items = ensure_catalog(root, args.eval_images, 0)
    return {split: evaluate_catalog(model, root, items, split) for split in ("test", "val")}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.monotonic()
    report: dict[str, Any] = {"arch": ARCH, "config": CONFIG, "seed": args.seed}
    report.update(train(args))
    report["heldout_demo_seed0"] = evaluate(args, Path(report["work_dir"]))
    report["total_seconds"] = round(time.monotonic() - started, 1)
    if args.work_dir is None:  # generated catalogs were only needed for this run
        shutil.rmtree(report["work_dir"], ignore_errors=True)
        report["work_dir"] = "(temporary)"
    report["machine"] = f"{platform.processor() or platform.machine()}, {args.threads} threads"
    report["load_average_at_end"] = round(os.getloadavg()[0], 1)
    report["date"] = time.strftime("%Y-%m-%d")
    (args.out / "training_report.json").write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report["heldout_demo_seed0"], indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
