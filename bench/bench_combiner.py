"""Does a Combiner trained on the project's own captions beat the image + text sum?

    python bench/bench_combiner.py [--images 2000] [--dir DIR] [--threads 2]

On the demo catalog (seed 0, demo model): train-split pairs (TF-IDF and embedding mining)
are captioned by the simulated users (3 per pair: sim-1..3, the attribute user with
comparative phrases and paraphrase openers) and a combiner is trained exactly as
``cir-studio train combiner`` does (no val pairs exist yet, so early stopping uses a
tenth of the train targets). Only then are val-split pairs mined and captioned with
*held-out* phrasings: other templates ("go for …", "… instead", "I'd prefer …") and
synonyms the users never use ("tartan", "long-sleeved", "round neck", "relaxed" …). They
are ranked with the Fashion IQ protocol (per category, reference kept in the gallery) by
sum, history-aware, the combiner, and history-aware on the combiner: R@10/50 with Wilson
intervals and a paired bootstrap interval of the difference to the sum. Then a learning
curve (500 / 2,000 / 8,000 training triplets) and the training time for 20,000 triplets
with the features computed beforehand (torch on ``--threads`` CPU threads).
Writes the ``combiner`` section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.demo_project import prepared_demo  # noqa: E402
from bench.report import markdown_table, write_section  # noqa: E402
from studio.simulation.metrics import hits_at, paired_bootstrap  # noqa: E402

NAME = "bench"
CURVE = (500, 2000, 8000)
TIMED = 20_000

#: facet value -> wordings the simulated users never use (the demo model knows them).
SYNONYMS = {
    "striped": ("bold stripes",),
    "polka dot": ("dotted", "dots"),
    "floral": ("flower-print",),
    "plaid": ("tartan", "checked"),
    "solid": ("no pattern", "plain"),
    "sleeveless": ("no sleeves",),
    "short sleeve": ("short-sleeved",),
    "long sleeve": ("long-sleeved",),
    "crew neck": ("round neck", "crewneck"),
    "v-neck": ("v neckline",),
    "scoop neck": ("scoop neckline",),
    "collar": ("button collar",),
    "mini": ("mini length",),
    "knee-length": ("knee-length hem",),
    "midi": ("midi hem",),
    "maxi": ("maxi length",),
    "cropped": ("crop hem",),
    "regular length": ("regular-length",),
    "longline": ("long length",),
    "slim fit": ("fitted",),
    "regular fit": ("regular-fit",),
    "loose fit": ("relaxed", "oversized"),
    "plain front": ("clean front",),
    "graphic print": ("printed graphic",),
    "text print": ("printed text",),
}
TEMPLATES = ("go for {x}", "{x} instead", "I'd prefer {x}", "switch to {x}", "should be {x}")
JOINERS = ("; ", " plus ", ", also ")


def held_out_writer(target, reference, rng: random.Random) -> str:
    """Up to two real differences in templates and synonyms the users never use."""
    from studio.simulation.users import differences

    diffs = differences(target, reference)
    rng.shuffle(diffs)
    phrases = []
    for facet in diffs[:2]:
        value = target[facet]
        word = rng.choice(SYNONYMS.get(value, (f"{value} colour" if facet == "color" else value,)))
        phrases.append(rng.choice(TEMPLATES).format(x=word))
    if not phrases:
        return "go for a similar one"
    return rng.choice(JOINERS).join(phrases)


def evaluate(context, pairs, strategies, splits: tuple[str, ...] | None = None
             ) -> dict[str, list[int | None]]:
    """Ranks of each pair's target. ``splits``: the gallery is every image of the pair's
    category in those splits (``()``: all splits), a harder search than the Fashion IQ
    protocol's category/split gallery used when ``splits`` is None."""
    from studio.simulation.protocols import _rank, _rank_pairs

    out = {}
    for name in strategies:
        if splits is not None:
            ranked = _rank_wider(context, pairs, name, splits)
        else:
            ranked = _rank_pairs(
                context, pairs, name, keep_reference=True, progress=lambda *a: None,
                cancel=None
            )
        out[name] = [_rank(ids, pair.target_id or "") for pair, ids in ranked]
    return out


def _rank_wider(context, pairs, strategy, splits: tuple[str, ...]):
    """``protocols._rank_pairs`` over the category's images in ``splits`` (all when empty),
    reference kept."""
    from studio.errors import StudioError
    from studio.sessions.strategies import TurnInput, rerank
    from studio.simulation.fashioniq_protocol import joined_captions

    composer = context.strategy(strategy)
    index = context.index
    galleries: dict[str, list[str] | None] = {}
    ranked = []
    for pair in pairs:
        category = pair.category or None
        if category not in galleries:
            galleries[category] = None if not splits else [
                image.id for split in splits
                for image in context.project.iter_images(category=category, split=split)]
        gallery = galleries[category]
        text = joined_captions([c["text"] for c in pair.captions])
        try:
            reference = index.image_vector(pair.reference_id)
        except StudioError:
            continue
        query = composer.compose([TurnInput(reference, index.text_vectors([text])[0],
                                            context.read_text_facets(text))])
        size = len(gallery) if gallery is not None else context.project.count_images(
            category=category)
        hits = index.search(query.vector, k=size, category=category, ids=gallery)[0]
        ids, _ = rerank([h.id for h in hits], [h.score for h in hits], context.facets,
                        query.constraints)
        ranked.append((pair, ids))
    return ranked


recall = hits_at  # the studio's own functions: the Experiments comparison uses them too


def fmt(ranks, k) -> str:
    from studio.simulation.metrics import wilson

    hits = recall(ranks, k)
    e = wilson(int(hits.sum()), len(hits))
    return f"{e.value:.3f} ({e.low:.3f}–{e.high:.3f})"


class InMemory:
    """A CombinerSource holding combiners trained in this process (learning curve)."""

    def __init__(self) -> None:
        self.combiners: dict = {}

    def names(self) -> list[str]:
        return list(self.combiners)

    def load(self, name: str):
        return self.combiners[name]


def train_subset(project, model, triplets, seed, threads):
    from backends.combiner.model import CombinerConfig
    from backends.combiner.train import TrainOptions, train_combiner
    from studio.training.combiner import _encode_texts, _hold_out, _ImageFeatures

    train, val = _hold_out(list(triplets), seed)
    features = _ImageFeatures(project, model, train + val, lambda *a: None, None)
    texts = _encode_texts(model, [t.text for t in train + val], lambda *a: None, None)
    config = CombinerConfig(f"n{len(triplets)}", "demo", model.cache_key, model.dim)
    started = time.perf_counter()
    combiner, report = train_combiner(
        config,
        features.triplets(train, texts),
        features.triplets(val, texts),
        TrainOptions(seed=seed, threads=threads),
    )
    return combiner, report, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--images", type=int, default=2000)
    parser.add_argument("--dir", type=Path, help="work folder (default: a temporary one)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    from studio.captions.records import CaptionPolicy
    from studio.captions.store import save_policy
    from studio.exporters.common import iter_pairs
    from studio.pairs.mining import mine_pairs
    from studio.sessions.setup import load_session_context
    from studio.simulation.simulated_captions import caption_pairs, simulated_writer
    from studio.store import Project
    from studio.training.combiner import TrainingRequest, train_project_combiner
    from studio.training.data import annotated_triplets

    work = args.dir or Path(tempfile.mkdtemp(prefix="bench-combiner-"))
    folder = work / "demo"
    timings = prepared_demo(folder, args.images)
    notes = [f"prepare: {', '.join(f'{k} {v:.0f} s' for k, v in timings.items())}"]
    with Project.open(folder) as project:
        started = time.perf_counter()
        save_policy(project, CaptionPolicy(3, True), "bench")
        mined = sum(
            mine_pairs(project, method, 100_000, split="train", actor="bench").added
            for method in ("tfidf", "embedding")
        )
        written = caption_pairs(
            project, split="train", per_pair=3, writer=simulated_writer(0.3), seed=0
        )
        notes.append(
            f"{mined} train pairs mined, {written} simulated captions written in "
            f"{time.perf_counter() - started:.0f} s"
        )
        started = time.perf_counter()
        summary = train_project_combiner(project, TrainingRequest(name=NAME, epochs=40))
        full_seconds = time.perf_counter() - started
        # Only now the evaluation pairs exist: val split, held-out phrasings.
        val_mined = sum(
            mine_pairs(project, method, 100_000, split="val", actor="bench").added
            for method in ("tfidf", "embedding")
        )
        caption_pairs(project, split="val", per_pair=2, writer=held_out_writer, seed=1)
        pairs = [p for p in iter_pairs(project) if p.split == "val" and p.captions]
        context = load_session_context(project, "demo", "cpu")
        strategies = ["sum", "history", f"combiner:{NAME}", f"history+combiner:{NAME}"]
        ranks = evaluate(context, pairs, strategies)
        sample = [p.captions[0]["text"] for p in pairs[:3]]
        rows = []
        for name in strategies:
            row = [f"`{name}`", fmt(ranks[name], 10), fmt(ranks[name], 50)]
            if name != "sum":
                d, lo, hi = paired_bootstrap(recall(ranks[name], 10), recall(ranks["sum"], 10))
                row.append(f"{d:+.3f} ({lo:+.3f} to {hi:+.3f})")
            else:
                row.append("–")
            rows.append(row)
        # Learning curve: subsets of the same training captions.
        model = context.index.model
        pool = [t for t in annotated_triplets(project) if t.split == "train"]
        rng = random.Random(0)
        rng.shuffle(pool)
        source = InMemory()
        context.combiners = source
        curve_rows = []
        for size in CURVE:
            if size > len(pool):
                curve_rows.append([size, f"only {len(pool)} triplets", "", "", ""])
                continue
            combiner, report, seconds = train_subset(project, model, pool[:size], 0, args.threads)
            source.combiners[combiner.name] = combiner
            got = evaluate(context, pairs, [f"combiner:{combiner.name}"])[
                f"combiner:{combiner.name}"
            ]
            curve_rows.append(
                [
                    f"{size:,}",
                    fmt(got, 10),
                    fmt(got, 50),
                    f"{report.best_epoch}/{report.epochs_run}",
                    f"{seconds:.1f}",
                ]
            )
        timing = time_training(project, model, args.threads)
    sum_curve = fmt(ranks["sum"], 10)
    body = write_body(
        summary,
        full_seconds,
        rows,
        curve_rows,
        sum_curve,
        timing,
        notes,
        len(pairs),
        val_mined,
        sample,
        args,
    )
    print(body)
    if not args.no_write:
        write_section("combiner", "Combiner trained on the project's captions", body)


def time_training(project, model, threads):
    """20,000 triplets of random same-category train pairs, captioned by the users."""
    from backends.combiner.model import CombinerConfig
    from backends.combiner.train import TrainOptions, train_combiner
    from studio.attributes.vocabulary import load_vocabulary
    from studio.sessions.facets import FacetMap, project_facets
    from studio.simulation.simulated_captions import simulated_writer
    from studio.simulation.users import differences
    from studio.training.combiner import _encode_texts, _hold_out, _ImageFeatures
    from studio.training.data import Triplet

    facets = project_facets(project, FacetMap.for_vocabulary(load_vocabulary(project)))
    by_category: dict[str, list[str]] = {}
    for image in project.iter_images(split="train"):
        if image.id in facets:
            by_category.setdefault(image.category, []).append(image.id)
    rng = random.Random(5)
    write = simulated_writer(0.3)
    triplets = []
    while len(triplets) < TIMED:
        ids = by_category[rng.choice(sorted(by_category))]
        ref, tgt = rng.sample(ids, 2)
        if 1 <= len(differences(facets[tgt], facets[ref])) <= 3:
            triplets.append(
                Triplet(ref, write(facets[tgt], facets[ref], rng), tgt, "train", "caption")
            )
    started = time.perf_counter()
    train, val = _hold_out(triplets, 0)
    features = _ImageFeatures(project, model, triplets, lambda *a: None, None)
    texts = _encode_texts(model, [t.text for t in triplets], lambda *a: None, None)
    train_arrays, val_arrays = features.triplets(train, texts), features.triplets(val, texts)
    prepare = time.perf_counter() - started
    config = CombinerConfig("timed", "demo", model.cache_key, model.dim)
    started, cpu = time.perf_counter(), time.process_time()
    _, report = train_combiner(
        config, train_arrays, val_arrays, TrainOptions(seed=0, threads=threads)
    )
    seconds = time.perf_counter() - started
    return {
        "prepare": prepare,
        "seconds": seconds,
        "cpu": time.process_time() - cpu,
        "load": os.getloadavg()[0],
        "epochs": report.epochs_run,
        "best": report.best_epoch,
        "train": len(train),
        "val": len(val),
        "texts": len(texts),
        "per_epoch": seconds / max(1, report.epochs_run),
        "parameters": report.parameters,
    }


def write_body(
    summary,
    full_seconds,
    rows,
    curve_rows,
    sum_curve,
    timing,
    notes,
    n_pairs,
    val_mined,
    sample,
    args,
) -> str:
    counts = summary["train_triplets"]
    lines = [
        f"Command: `python bench/bench_combiner.py --images {args.images} --threads "
        f"{args.threads}`. No GPU on this machine, so no GPU timing. Torch ran on "
        f"{args.threads} CPU threads (the machine is shared with other work).",
        "",
        f"Training data: {sum(counts.values()):,} triplets, the train-split pairs' captions "
        "written by the current simulated users (the attribute user, 30 % comparative "
        "phrases, paraphrase openers; 3 captions per pair). Helper issue-14 is making more "
        "realistic users; these figures use today's users. Early stopping on "
        f"{summary['val_triplets']} held-out train triplets ({summary['val_source']}). "
        f"Combiner: {summary['parameters']:,} parameters; best epoch "
        f"{summary['best_epoch']} of {summary['epochs_run']}; training {summary['seconds']:.0f} "
        f"s, {full_seconds:.0f} s with feature extraction (`train_project_combiner`, as the "
        "CLI runs it).",
        "",
        f"Evaluation: {n_pairs} val-split pairs ({val_mined} mined by TF-IDF and embedding), "
        "each captioned twice with phrasings held out of training — other templates and "
        "synonyms, e.g. " + "; ".join(f"“{s}”" for s in sample) + ". Fashion IQ protocol "
        "(per category, reference kept in the gallery, captions joined with “and”). "
        "Intervals: Wilson 95 %; the last column is the paired bootstrap 95 % interval of "
        "the R@10 difference to the sum.",
        "",
        markdown_table(["strategy", "R@10", "R@50", "ΔR@10 vs sum"], rows),
        "",
        f"Learning curve (same evaluation; the sum's R@10 is {sum_curve}); each point trained "
        "from scratch on the first N of the shuffled training triplets, 10 % of its targets "
        "held out for early stopping:",
        "",
        markdown_table(
            ["training triplets", "R@10", "R@50", "best/run epochs", "training s"], curve_rows
        ),
        "",
        f"Training time for {TIMED:,} triplets (random same-category train pairs with 1–3 "
        f"differences, captioned by the users; {timing['train']:,} train / {timing['val']:,} "
        f"early-stopping triplets, {timing['texts']:,} distinct texts): features prepared "
        f"once beforehand in {timing['prepare']:.0f} s (cached image vectors + text encoding), "
        f"then training {timing['seconds']:.0f} s wall on {args.threads} CPU threads "
        f"({timing['cpu']:.0f} s of CPU time; load average {timing['load']:.1f} on this "
        "2-core machine while it ran, so the wall time is mostly waiting) — "
        f"{timing['epochs']} epochs (best {timing['best']}, early stopping), "
        f"{timing['per_epoch']:.1f} s per epoch including validation. Goal: under 3 minutes.",
        "",
        "Notes: " + "; ".join(notes) + ".",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
