"""Zero-shot training data from images alone (InstructCIR): does more drafted data help?

    python bench/bench_zero_shot.py [--images 10000] [--counts 1000,5000,20000,50000] [--threads 2]

On the demo catalog (seed 0 unless --seed, demo model), with no captions at all: combiners are trained
only on triplets drafted from train-split images (each target paired with up to K
references chosen as the pair miner chooses them, title words and image neighbours in
turn, the text said by the learned captioner in annotators' words; K grows with the count
asked for). Val-split pairs are then mined and
captioned with held-out phrasings the studio never uses (``bench_combiner.held_out_writer``)
and ranked twice: with the Fashion IQ protocol (the category's val gallery, ~100 images a
category at 2,000 images, where the sum is near the R@10 ceiling; ~500 at the default
10,000, whose 7,000 train targets also keep 50k drafts from repeating each target many
times) and over the whole
catalog of the category (all splits, several times the distractors). The learning curve
(R@1/R@10/R@50 with Wilson intervals, and a paired bootstrap interval of the R@10
difference to the sum, against the number of drafted triplets) is drawn beside the
image + text sum and beside a combiner trained on the train pairs' captions written by
simulated annotators (3 per pair), the closest the demo has to human triplets. Learned and
catalog curves get two more rows: the same combiner served part of the way back to the sum,
α = 0.5 (what ``train combiner --drafted`` serves without val-split captions) and α chosen
on held-out partial-voice drafts (the earlier rule, for comparison). Writes the
``zero_shot`` section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_combiner import (  # noqa: E402
    InMemory,
    evaluate,
    fmt,
    held_out_writer,
    paired_bootstrap,
    recall,
    train_subset,
)
from bench.demo_project import prepared_demo  # noqa: E402
from bench.report import machine_description, markdown_table, write_section  # noqa: E402
from studio.language.voices import PartialVoice  # noqa: E402

SPLITS = ("train", "val", "test")
#: gallery name -> the splits it searches (None: the protocol's category/split gallery)
GALLERIES: dict[str, tuple[str, ...] | None] = {
    "val": None, "unseen": ("val", "test"), "catalog": SPLITS}
VOICES = {
    "learned": "the learned captioner's words",
    "catalog": "the catalog's words (fixed phrases)",
    "mixed": "each draft in the learned captioner's or the catalog's words at random",
    "partial": "the learned captioner's words, saying as many of the differences as people "
               "say in one caption (Fashion IQ's counts), the rest left unsaid",
    "pair": "two partial drafts of the same pair joined with “and”, as the Fashion IQ "
            "protocol joins a pair's two captions (and as CLIP4Cir trains on them)",
}


class MixedVoice:
    """Drafts worded by the learned captioner or by the catalog phrases, one at random:
    wording drawn from more than one source, as InstructCIR varies its generated text."""

    def __init__(self, seed: int = 0) -> None:
        from studio.language.voices import Voice

        self.voices = (Voice.learned(seed), Voice(None, seed))
        self.random = random.Random(f"mixed:{seed}")

    def say(self, diffs, types=None) -> str:
        return self.random.choice(self.voices).say(diffs, types)


class PairVoice(PartialVoice):  # PartialVoice: studio.language.voices
    """Two people's partial captions of one pair, joined as the protocol joins them."""

    def say(self, diffs, types=None) -> str:
        from studio.simulation.fashioniq_protocol import joined_captions

        return joined_captions([super().say(diffs, types), super().say(diffs, types)])


def alpha_variants(project, model, features, combiner, subset, per_image, voice):
    """The trained combiner served part of the way back to the sum: α = 0.5, what
    ``train combiner --drafted`` serves when a project has no val-split captions; and, for
    comparison, α chosen on the held-out targets' drafts said again in the partial voice
    (the same pairs, fewer differences said: the rule before 2026-11-26's third session;
    never on the evaluation captions)."""
    from backends.combiner.model import Combiner
    from backends.combiner.train import choose_alpha
    from studio.training.combiner import DRAFTED_ALPHA, _encode_texts, _hold_out
    from studio.training.data import draft_triplets

    held_out = _hold_out(list(subset), 0)[1]
    targets = {t.target_id for t in held_out}
    alpha_set = draft_triplets(project, len(targets) * per_image, features.matrix, 0,
                               per_image=per_image, voice=PartialVoice(seed=0), targets=targets)
    texts = _encode_texts(model, [t.text for t in alpha_set], lambda *a: None, None)
    chosen = Combiner(dataclasses.replace(combiner.config), combiner.module)
    alpha, table = choose_alpha(chosen, features.triplets(alpha_set, texts))
    print(f"alpha on {len(alpha_set)} partial-voice drafts of held-out targets: {alpha}",
          [(r["alpha"], r["recall_at_10"]) for r in table], flush=True)
    served = Combiner(dataclasses.replace(combiner.config, alpha=DRAFTED_ALPHA),
                      combiner.module)
    return [(f", α {DRAFTED_ALPHA} (served)", served),
            (f", α {alpha:.1f} (chosen on partial drafts)", chosen)]


def _own(report) -> str:
    """R@10 on the training data's own held-out tenth (its wording, train galleries): the
    sum (epoch 0) and the kept epoch. Shows whether the combiner learned its data at all."""
    if report.sum_val_recall_at_10 is None or report.best_val_recall_at_10 is None:
        return f"({report.best_epoch}/{report.epochs_run})"
    return (f"{report.sum_val_recall_at_10:.3f} → {report.best_val_recall_at_10:.3f} "
            f"({report.best_epoch}/{report.epochs_run})")


def _summary(ranks, base) -> list[str]:
    """R@1, R@10, R@50 (Wilson 95 %) and the paired bootstrap 95 % intervals of the R@1
    and R@10 differences to the sum on the same queries."""
    deltas = []
    for k in (1, 10):
        if base is None or ranks is base:
            deltas.append("–")
            continue
        mean, low, high = paired_bootstrap(recall(ranks, k), recall(base, k))
        deltas.append(f"{mean:+.3f} ({low:+.3f} to {high:+.3f})")
    return [fmt(ranks, 1), fmt(ranks, 10), fmt(ranks, 50), *deltas]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", type=int, default=10000)
    parser.add_argument("--counts", default="1000,5000,20000,50000")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0,
                        help="the demo catalog's seed (another world, to confirm a finding)")
    parser.add_argument("--dir", type=Path, help="work folder (a demo there is reused)")
    parser.add_argument("--voices", default="learned",
                        help="comma-separated draft wordings, a curve each: "
                             + ", ".join(VOICES) + " (learned: what train combiner does)")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    voices = args.voices.split(",")
    if unknown := [v for v in voices if v not in VOICES]:
        parser.error(f"unknown voice(s) {unknown}; choose from {', '.join(VOICES)}")
    import torch

    torch.set_num_threads(args.threads)
    from studio.exporters.common import iter_pairs
    from studio.language.voices import Voice
    from studio.pairs.mining import mine_pairs
    from studio.sessions.setup import load_session_context
    from studio.simulation.simulated_captions import caption_pairs, simulated_writer
    from studio.store import Project
    from studio.training.combiner import _ImageFeatures
    from studio.training.data import annotated_triplets, draft_triplets

    counts = [int(c) for c in args.counts.split(",")]
    work = args.dir or Path(tempfile.mkdtemp(prefix="bench-zero-shot-"))
    folder = work / "demo"
    prepared_demo(folder, args.images, args.seed)
    # (label, triplets, {gallery: ranks}, epochs, seconds)
    runs: list[tuple[str, str, dict, str, str]] = []
    with Project.open(folder) as project:
        context = load_session_context(project, "demo", "cpu")
        model = context.index.model
        features = _ImageFeatures(project, model, [], lambda *a: None, None)
        train_images = sum(1 for i in project.iter_images(split="train") if not i.missing)
        # 20 % headroom: a target may have fewer references that differ from it
        per_image = max(1, math.ceil(1.2 * max(counts) / max(1, train_images)))
        makers = {"learned": Voice.learned, "catalog": Voice, "mixed": MixedVoice,
                  "partial": PartialVoice, "pair": PairVoice}
        pools, draft_seconds = {}, {}
        for name in voices:
            started = time.perf_counter()
            pools[name] = draft_triplets(project, max(counts), features.matrix, seed=0,
                                         per_image=per_image, voice=makers[name]())
            draft_seconds[name] = time.perf_counter() - started
            random.Random(0).shuffle(pools[name])
        # Evaluation pairs: val split, phrasings the studio never uses.
        for method in ("tfidf", "embedding"):
            mine_pairs(project, method, 100_000, split="val", actor="bench")
        caption_pairs(project, split="val", per_pair=2, writer=held_out_writer, seed=1)
        pairs = [p for p in iter_pairs(project) if p.split == "val" and p.captions]
        categories = {p.category for p in pairs}
        sizes = {name: max(sum(project.count_images(category=c, split=s) for s in splits)
                           for c in categories)
                 for name, splits in (("val", ("val",)), ("unseen", ("val", "test")),
                                      ("catalog", SPLITS))}
        source = InMemory()
        context.combiners = source

        def ranks_of(strategy: str) -> dict:
            return {name: evaluate(context, pairs, [strategy], splits)[strategy]
                    for name, splits in GALLERIES.items()}

        runs.append(("image + text sum", "–", ranks_of("sum"), "–", "–"))
        for name in voices:
            pool = pools[name]
            for count in counts:
                subset = pool[:count]
                if len(subset) < count:
                    print(f"only {len(pool)} drafted, {count} asked: the whole pool", flush=True)
                combiner, report, seconds = train_subset(project, model, subset, 0,
                                                         args.threads)
                variants = [("", combiner)]
                if name in ("learned", "catalog"):
                    variants += alpha_variants(project, model, features, combiner, subset,
                                               per_image, name)
                for suffix, variant in variants:
                    key = f"{name}-{count}{suffix}"
                    source.combiners[key] = variant
                    runs.append((f"drafted only, {name}{suffix}", f"{len(subset):,}",
                                 ranks_of(f"combiner:{key}"), _own(report), f"{seconds:.0f}"))
                    print(runs[-1][:2], [fmt(runs[-1][2][g], k) for g in GALLERIES
                                         for k in (1, 10)], flush=True)
        for method in ("tfidf", "embedding"):
            mine_pairs(project, method, 100_000, split="train", actor="bench")
        caption_pairs(project, split="train", per_pair=3, writer=simulated_writer(0.3), seed=0)
        captioned = [t for t in annotated_triplets(project) if t.split == "train"]
        combiner, report, seconds = train_subset(project, model, captioned, 0, args.threads)
        source.combiners["captions"] = combiner
        runs.append(("captions of train pairs (simulated annotators)", f"{len(captioned):,}",
                     ranks_of("combiner:captions"), _own(report), f"{seconds:.0f}"))
        samples = {name: [t.text for t in pools[name][:4]] for name in voices}
    titles = {
        "val": f"Fashion IQ protocol: the category's val images (≤{sizes['val']})",
        "unseen": f"Harder: the category's val and test images, none seen in training "
                  f"(≤{sizes['unseen']})",
        "catalog": f"Hardest: the whole category, all splits (≤{sizes['catalog']}; its train "
                   "images are the drafts' targets, so a combiner that learned them is "
                   "pulled towards them)",
    }
    tables = []
    for gallery, title in titles.items():
        base = runs[0][2][gallery]
        rows = [[label, n, *_summary(r[gallery], base), epochs, sec]
                for label, n, r, epochs, sec in runs]
        tables.append(f"**{title}**\n\n" + markdown_table(
            ["training data", "triplets", "R@1", "R@10", "R@50", "ΔR@1 vs sum", "ΔR@10 vs sum",
             "own held-out R@10: sum → combiner (best/run epochs)", "train s"], rows))
    body = (
        f"{machine_description()}\n\n"
        f"Demo catalog of {args.images} images (seed {args.seed}), model `demo`, no captions: combiners trained "
        f"only on triplets drafted from the {train_images} train images (each target paired "
        f"with up to {per_image} references chosen as the pair miner chooses them (title "
        "words and image neighbours in turn, each differing in at least one attribute), "
        "drafted in " + ", ".join(f"{draft_seconds[n]:.0f} s ({n})" for n in voices)
        + "; each count is the "
        "first N of one shuffled pool, 10 % of its targets held out for early stopping). "
        f"Evaluated on {len(pairs)} val pairs, each captioned twice with held-out phrasings "
        "(templates and synonyms the studio never uses), reference kept in the gallery. "
        "Intervals: Wilson 95 %; ΔR@1, ΔR@10: paired bootstrap 95 % intervals of the "
        f"difference to the sum on the same queries. Torch on {args.threads} CPU thread(s).\n\n"
        + "\n\n".join(tables)
        + "\n\nDraft wordings:\n\n"
        + "\n".join(f"- **{n}**: {VOICES[n]}; e.g. " + "; ".join(f"“{t}”" for t in samples[n])
                    for n in voices)
        + f"\n\nRun: `.venv/bin/python bench/bench_zero_shot.py --images {args.images} "
        f"--counts {args.counts} --threads {args.threads} --voices {args.voices}"
        + (f" --seed {args.seed}" if args.seed else "") + "`."
    )
    print(body)
    if not args.no_write:
        write_section("zero_shot", "Zero-shot training data from images alone", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
