"""Fit a Combiner with a contrastive (InfoNCE) loss; deterministic for a seed on the CPU.

Each triplet is (reference features, text features, target index). The composed query
should score its target above the other candidates: every image of the target's gallery
group (``negatives="gallery"``, what retrieval is scored on) or the other targets of the
batch (``"batch"``, CLIP4Cir's choice, for galleries too large to score per step). The
temperature is learned (from ``temperature``) unless ``learn_temperature`` is off.

After every epoch the validation triplets are ranked in their gallery; the weights of the
best epoch by Recall@10 (mean rank breaks ties) are kept, and training stops after
``patience`` epochs without improvement. Epoch 0 is the untrained network, which is the
image + text sum, so the result is never worse on validation than the baseline.
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from backends.combiner.model import Combiner, CombinerConfig, CombinerError, build_module
from backends.protocols import Cancellable, NeverCancelled, Progress, no_progress

if TYPE_CHECKING:
    import torch


@dataclass(frozen=True)
class TrainOptions:
    epochs: int = 40
    batch_size: int = 256
    learning_rate: float = 2e-3
    weight_decay: float = 1e-2
    temperature: float = 0.05
    learn_temperature: bool = True
    negatives: Literal["gallery", "batch"] = "gallery"
    patience: int = 5
    seed: int = 0
    device: str = "cpu"
    threads: int | None = None  # torch CPU threads while training (None: leave as is)

    def __post_init__(self) -> None:
        if self.epochs < 1 or self.batch_size < 2:
            raise CombinerError("Train for at least one epoch with batches of at least 2.")
        if not 0 < self.temperature < 10:
            raise CombinerError("The temperature must lie between 0 and 10.")
        if self.negatives not in ("gallery", "batch"):
            raise CombinerError("negatives must be 'gallery' or 'batch'.")


@dataclass
class Triplets:
    """Features of N triplets and their gallery; ``targets`` index rows of ``gallery``.

    ``groups`` (per triplet) and ``gallery_groups`` (per gallery row), when given, limit each
    query's candidates to its group (a category, as Fashion IQ ranks per category).
    """

    references: np.ndarray
    texts: np.ndarray
    targets: np.ndarray
    gallery: np.ndarray
    groups: np.ndarray | None = None
    gallery_groups: np.ndarray | None = None

    def __post_init__(self) -> None:
        n = len(self.targets)
        if len(self.references) != n or len(self.texts) != n:
            raise CombinerError("references, texts and targets must have one row per triplet.")
        if n and (self.targets.min() < 0 or self.targets.max() >= len(self.gallery)):
            raise CombinerError("a target index lies outside the gallery.")
        if (self.groups is None) != (self.gallery_groups is None):
            raise CombinerError("give groups for both the triplets and the gallery, or neither.")

    def __len__(self) -> int:
        return len(self.targets)


@dataclass
class EpochReport:
    epoch: int
    loss: float | None  # mean training loss (None for epoch 0, the untrained network)
    val_recall_at_10: float | None
    val_mean_rank: float | None
    seconds: float
    temperature: float
    best: bool = False


@dataclass
class TrainReport:
    train_triplets: int
    val_triplets: int
    parameters: int
    epochs_run: int = 0
    best_epoch: int = 0
    best_val_recall_at_10: float | None = None
    sum_val_recall_at_10: float | None = None
    stopped_early: bool = False
    seconds: float = 0.0
    options: dict[str, Any] = field(default_factory=dict)
    history: list[EpochReport] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def rank_targets(queries: np.ndarray, data: Triplets) -> np.ndarray:
    """1-based rank of each triplet's target among its candidates (ties count in its favour)."""
    scores = queries @ data.gallery.T
    if data.groups is not None and data.gallery_groups is not None:
        scores = np.where(data.groups[:, None] == data.gallery_groups[None, :], scores, -np.inf)
    own = scores[np.arange(len(scores)), data.targets]
    return (scores > own[:, None]).sum(axis=1) + 1


def evaluate(combiner: Combiner, data: Triplets, batch: int = 4096) -> tuple[float, float]:
    """(Recall@10, mean rank) of ``combiner`` on ``data``."""
    ranks = (
        np.concatenate(
            [
                rank_targets(
                    combiner.compose(data.references[s : s + batch], data.texts[s : s + batch]),
                    _slice(data, s, s + batch),
                )
                for s in range(0, len(data), batch)
            ]
        )
        if len(data)
        else np.zeros(0)
    )
    if not len(ranks):
        return 0.0, 0.0
    return float(np.mean(ranks <= 10)), float(np.mean(ranks))


#: the α tried by ``choose_alpha``, from the trained network back to the sum
ALPHAS = (1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.0)


def choose_alpha(
    combiner: Combiner, data: Triplets, alphas: tuple[float, ...] = ALPHAS
) -> tuple[float, list[dict[str, float]]]:
    """The α (see ``backends.combiner.model``) with the best Recall@10 on ``data`` (mean rank
    breaks ties, then the larger α), and each α's figures. ``data`` should be worded unlike
    the training text (e.g. held-out images' drafts in another voice): on the training
    wording the network always looks best. Leaves ``combiner.config.alpha`` at the choice."""
    table = []
    best: tuple[tuple[float, float], float] | None = None
    for alpha in alphas:
        combiner.config.alpha = alpha
        recall, mean_rank = evaluate(combiner, data)
        table.append({"alpha": alpha, "recall_at_10": round(recall, 4),
                      "mean_rank": round(mean_rank, 3)})
        key = (recall, -mean_rank)
        if best is None or key > best[0]:
            best = (key, alpha)
    combiner.config.alpha = best[1] if best is not None else 1.0
    return combiner.config.alpha, table


def _slice(data: Triplets, start: int, stop: int) -> Triplets:
    return Triplets(
        data.references[start:stop],
        data.texts[start:stop],
        data.targets[start:stop],
        data.gallery,
        None if data.groups is None else data.groups[start:stop],
        data.gallery_groups,
    )


def train_combiner(
    config: CombinerConfig,
    train: Triplets,
    val: Triplets | None = None,
    options: TrainOptions = TrainOptions(),
    *,
    progress: Progress = no_progress,
    cancel: Cancellable | None = None,
    on_epoch: Callable[[EpochReport], None] | None = None,
) -> tuple[Combiner, TrainReport]:
    """Train a combiner; returns it (best epoch's weights) and the report."""
    import torch

    if len(train) < 2:
        raise CombinerError("Training needs at least two triplets.")
    cancel = cancel or NeverCancelled()
    deterministic = torch.are_deterministic_algorithms_enabled()
    threads = torch.get_num_threads()
    torch.use_deterministic_algorithms(True)
    if options.threads:
        torch.set_num_threads(options.threads)
    try:
        return _train(config, train, val, options, progress, cancel, on_epoch)
    finally:
        torch.use_deterministic_algorithms(deterministic)
        torch.set_num_threads(threads)


def _train(config, train, val, options, progress, cancel, on_epoch):
    import torch

    started = time.perf_counter()
    device = options.device
    torch.manual_seed(options.seed)
    generator = torch.Generator().manual_seed(options.seed)
    module = build_module(config).to(device)
    combiner = Combiner(config, module, device)
    log_scale = torch.nn.Parameter(
        torch.tensor(math.log(1.0 / options.temperature), device=device),
        requires_grad=options.learn_temperature,
    )
    parameters = [p for p in module.parameters()]
    optimizer = torch.optim.AdamW(
        [
            {"params": parameters, "weight_decay": options.weight_decay},
            {"params": [log_scale], "weight_decay": 0.0},
        ],
        lr=options.learning_rate,
    )
    tensors = _tensors(train, device)
    n = len(train)
    batches = math.ceil(n / options.batch_size)
    total = options.epochs * batches
    report = TrainReport(
        len(train),
        0 if val is None else len(val),
        sum(p.numel() for p in parameters),
        options=asdict(options),
    )

    def validate(epoch: int, loss: float | None, seconds: float) -> EpochReport:
        recall, mean_rank = (
            evaluate(combiner, val) if val is not None and len(val) else (None, None)
        )
        return EpochReport(
            epoch, loss, recall, mean_rank, round(seconds, 3), float(1.0 / log_scale.exp().item())
        )

    combiner.module.eval()
    baseline = validate(0, None, 0.0)
    baseline.best = True
    report.history.append(baseline)
    report.sum_val_recall_at_10 = baseline.val_recall_at_10
    best_key = _key(baseline)
    best_state = copy.deepcopy(module.state_dict())
    if on_epoch is not None:
        on_epoch(baseline)
    since_best = 0
    step = 0
    for epoch in range(1, options.epochs + 1):
        epoch_started = time.perf_counter()
        module.train()
        order = torch.randperm(n, generator=generator).to(device)
        losses = []
        for b in range(batches):
            cancel.raise_if_cancelled()
            rows = order[b * options.batch_size : (b + 1) * options.batch_size]
            if len(rows) < 2:
                continue
            loss = _loss(module, tensors, rows, log_scale, options.negatives)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            with torch.no_grad():
                log_scale.clamp_(0.0, math.log(100.0))
            losses.append(float(loss.item()))
            step += 1
            progress(step, total, f"epoch {epoch}/{options.epochs} · loss {losses[-1]:.3f}")
        module.eval()
        row = validate(
            epoch, float(np.mean(losses)) if losses else None, time.perf_counter() - epoch_started
        )
        report.epochs_run = epoch
        if val is None or _key(row) > best_key:
            best_key, best_state, since_best = _key(row), copy.deepcopy(module.state_dict()), 0
            row.best = True
            report.best_epoch = epoch
        else:
            since_best += 1
        report.history.append(row)
        if on_epoch is not None:
            on_epoch(row)
        if val is not None and since_best >= options.patience:
            report.stopped_early = epoch < options.epochs
            break
    module.load_state_dict(best_state)
    module.eval()
    report.best_val_recall_at_10 = report.history[report.best_epoch].val_recall_at_10
    report.seconds = round(time.perf_counter() - started, 3)
    progress(total, total, "done")
    return combiner, report


def _key(row: EpochReport) -> tuple[float, float]:
    return (row.val_recall_at_10 or 0.0, -(row.val_mean_rank or 0.0))


def _tensors(data: Triplets, device: str) -> dict[str, torch.Tensor]:
    import torch

    def unit(array: np.ndarray) -> torch.Tensor:
        tensor = torch.from_numpy(np.ascontiguousarray(array, dtype=np.float32)).to(device)
        return torch.nn.functional.normalize(tensor, dim=-1)

    out = {
        "references": unit(data.references),
        "texts": unit(data.texts),
        "targets": torch.from_numpy(data.targets.astype(np.int64)).to(device),
        "gallery": unit(data.gallery),
    }
    if data.groups is not None and data.gallery_groups is not None:
        groups = torch.from_numpy(data.groups.astype(np.int64)).to(device)
        gallery_groups = torch.from_numpy(data.gallery_groups.astype(np.int64)).to(device)
        out["mask"] = groups[:, None] == gallery_groups[None, :]  # (N, M) bool
    return out


def _loss(module, tensors, rows, log_scale, negatives: str):
    import torch
    import torch.nn.functional as F  # noqa: N812

    queries = module(tensors["references"][rows], tensors["texts"][rows])
    targets = tensors["targets"][rows]
    if negatives == "gallery":
        logits = log_scale.exp() * queries @ tensors["gallery"].T
        if "mask" in tensors:
            logits = logits.masked_fill(~tensors["mask"][rows], float("-inf"))
        return F.cross_entropy(logits, targets)
    candidates = tensors["gallery"][targets]
    logits = log_scale.exp() * queries @ candidates.T
    same = targets[:, None] == targets[None, :]
    same.fill_diagonal_(False)  # another caption of the same target is no negative
    logits = logits.masked_fill(same, float("-inf"))
    return F.cross_entropy(logits, torch.arange(len(rows), device=logits.device))
