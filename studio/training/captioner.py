"""Training, evaluating, storing and finding relative captioners (``train captioner``).

One pair in ten (by a stable hash of reference and target) is held out from training, so
the figures are measured on captions the captioner never saw. Evaluation asks the
captioner to say what the reader reads in each held-out caption and compares the result
with that pair's human captions (BLEU-4, ROUGE-L, CIDEr-D, as in Fashion IQ's Table 4) and
with the requests themselves (faithfulness: the reader reads back what was asked).
The shipped captioner (``resources/captioner/fashioniq.json``) was trained by
``python -m studio.training.ship_captioner`` on the real Fashion IQ val captions.
"""

from __future__ import annotations

import json
import random
import time
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from studio.captions.caption_metrics import bleu4, cider_d, rouge_l
from studio.errors import StudioError
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.language.captioner import PhraseCaptioner, shipped_captioner
from studio.language.reader import CaptionReader, default_reader

CAPTIONERS_DIR = "captioners"
MIN_CAPTIONS = 200  # below this a captioner knows too few ways of saying things


@dataclass(frozen=True)
class PairCaptions:
    reference: str
    target: str
    captions: tuple[str, ...]
    category: str = ""  # people name other things for dresses than for shirts

    @property
    def held_out(self) -> bool:
        return zlib.crc32(f"{self.reference}\t{self.target}".encode()) % 10 == 0


def split_pairs(pairs: Iterable[PairCaptions]) -> tuple[list[PairCaptions], list[PairCaptions]]:
    train: list[PairCaptions] = []
    held: list[PairCaptions] = []
    for pair in pairs:
        (held if pair.held_out else train).append(pair)
    return train, held


def evaluate(
    model: PhraseCaptioner,
    pairs: Sequence[PairCaptions],
    seed: int = 0,
    reader: CaptionReader | None = None,
) -> dict[str, Any]:
    """Table 4's metrics and faithfulness on ``pairs`` (captions with no requests skipped)."""
    reader = reader or default_reader()
    rng = random.Random(seed)
    candidates: list[str] = []
    references: list[list[str]] = []
    asked = said = agreed = 0
    for pair in pairs:
        for caption in pair.captions:
            requests = reader.read(caption)
            if not requests:
                continue
            text = model.say(requests, rng)
            back = set(reader.read(text))
            wanted = set(requests)
            asked += len(wanted)
            said += len(back)
            agreed += len(back & wanted)
            candidates.append(text)
            references.append(list(pair.captions))
    return {
        "captions": len(candidates),
        "bleu4": round(bleu4(candidates, references), 4),
        "rouge_l": round(rouge_l(candidates, references), 4),
        "cider_d": round(cider_d(candidates, references), 4),
        "precision": round(agreed / said, 4) if said else None,
        "recall": round(agreed / asked, 4) if asked else None,
    }


def train_captioner(
    pairs: Sequence[PairCaptions],
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
    min_captions: int = MIN_CAPTIONS,
) -> tuple[PhraseCaptioner, dict[str, Any]]:
    """Train on the pairs not held out, evaluate on the held-out ones."""
    train, held = split_pairs(pairs)
    captions = [c for pair in train for c in pair.captions]
    categories = [pair.category for pair in train for _ in pair.captions]
    if len(captions) < min_captions:
        raise StudioError(
            f"Only {len(captions)} captions to learn from; a captioner needs at least "
            f"{min_captions}. Import a dataset's captions (for example Fashion IQ's) or write "
            "more, or use the shipped captioner (--users learned does by default)."
        )
    started = time.monotonic()

    def step(done: int, total: int, message: str) -> None:
        if cancel is not None:
            cancel.raise_if_cancelled()
        progress(done, total, message)

    model = PhraseCaptioner.train(captions, progress=step, categories=categories)
    progress(1, 1, "Evaluating on held-out pairs")
    summary = {
        "train_pairs": len(train),
        "train_captions": len(captions),
        "held_out_pairs": len(held),
        "templates": model.template_count,
        "seconds": round(time.monotonic() - started, 2),
        "held_out": evaluate(model, held),
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    return model, summary


def project_pairs(project: Any) -> list[PairCaptions]:
    """Every pair of the project with its live human captions."""
    from studio.exporters.common import iter_pairs

    out = []
    for pair in iter_pairs(project):
        texts = tuple(
            " ".join(str(c["text"]).split())
            for c in pair.captions
            if str(c["text"]).strip() and not str(c.get("author", "")).startswith("sim-")
        )
        if pair.target_id and texts:
            out.append(PairCaptions(pair.reference_id, pair.target_id, texts,
                                    pair.category or ""))
    return out


def captioner_root(project: Any) -> Path:
    return Path(project.cache_dir) / CAPTIONERS_DIR


def train_project_captioner(
    project: Any,
    name: str = "captioner",
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
    min_captions: int = MIN_CAPTIONS,
    model_name: str | None = None,
) -> dict[str, Any]:
    """Train on the project's own captions and store it beside the project.

    Where the project has an index for ``model_name`` (None: the model in Settings), the
    captioner also learns which differences people name by how visible they are in that
    model's image features (``studio.language.salience``); the summary's ``salience`` says
    whether it did, from how many examples, and its held-out ROC AUC.
    """
    from studio.training.salience import train_project_salience

    pairs = project_pairs(project)
    model, summary = train_captioner(pairs, progress, cancel, min_captions)
    if model_name is None:
        from studio.settings import Settings

        model_name = Settings.load().model
    model.salience, summary["salience"] = train_project_salience(
        project, pairs, model_name, progress, cancel)
    path = captioner_root(project) / f"{name}.json"
    model.save(path)
    summary_path = path.with_suffix(".summary.json")
    summary = {"name": name, "path": str(path), **summary}
    summary_path.write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return summary


def list_captioners(project: Any) -> list[dict[str, Any]]:
    root = captioner_root(project)
    found = []
    for path in sorted(root.glob("*.summary.json")) if root.is_dir() else []:
        try:
            found.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue
    return found


def load_captioner(project: Any | None, name: str | None) -> PhraseCaptioner:
    """A project's captioner by name, or the shipped one when no name is given."""
    if not name or name == "shipped":
        return shipped_captioner()
    path = captioner_root(project) / f"{name}.json" if project is not None else Path(name)
    if not path.is_file():
        raise StudioError(
            f"No captioner named {name!r}; train one with 'cir-studio train captioner' "
            "or leave it out to use the shipped one."
        )
    return PhraseCaptioner.load(path)
