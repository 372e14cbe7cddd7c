"""Zero-shot training data from images alone (InstructCIR): does more drafted data help?

    python bench/bench_zero_shot.py [--images 2000] [--counts 1000,5000,20000] [--threads 2]

On the demo catalog (seed 0, demo model), with no captions at all: combiners are trained
only on triplets drafted from train-split images (each target paired with up to K similar
images that differ in one to three attributes, the text said by the learned captioner in
annotators' words; K grows with the count asked for). Val-split pairs are then mined and
captioned with held-out phrasings the studio never uses (``bench_combiner.held_out_writer``)
and ranked with the Fashion IQ protocol. The learning curve (R@10 against the number of
drafted triplets) is drawn beside the image + text sum and beside a combiner trained on
the train pairs' captions written by simulated annotators (3 per pair), the closest the
demo has to human triplets. Writes the ``zero_shot`` section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_combiner import InMemory, evaluate, fmt, held_out_writer, train_subset  # noqa: E402
from bench.demo_project import prepared_demo  # noqa: E402
from bench.report import machine_description, markdown_table, write_section  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", type=int, default=2000)
    parser.add_argument("--counts", default="1000,5000,20000")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--dir", type=Path)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    from studio.exporters.common import iter_pairs
    from studio.pairs.mining import mine_pairs
    from studio.sessions.setup import load_session_context
    from studio.store import Project
    from studio.training.combiner import _ImageFeatures
    from studio.training.data import annotated_triplets, draft_triplets
    from studio.training.simulated_captions import caption_pairs, simulated_writer
    from studio.transactions.phrasing import Voice

    counts = [int(c) for c in args.counts.split(",")]
    work = args.dir or Path(tempfile.mkdtemp(prefix="bench-zero-shot-"))
    folder = work / "demo"
    prepared_demo(folder, args.images)
    rows = []
    with Project.open(folder) as project:
        context = load_session_context(project, "demo", "cpu")
        model = context.index.model
        features = _ImageFeatures(project, model, [], lambda *a: None, None)
        train_images = sum(1 for i in project.iter_images(split="train") if not i.missing)
        per_image = max(1, math.ceil(max(counts) / max(1, train_images)))
        started = time.perf_counter()
        pool = draft_triplets(project, max(counts), features.matrix, seed=0,
                              per_image=per_image, voice=Voice.learned())
        draft_seconds = time.perf_counter() - started
        random.Random(0).shuffle(pool)
        # Evaluation pairs: val split, phrasings the studio never uses.
        for method in ("tfidf", "embedding"):
            mine_pairs(project, method, 100_000, split="val", actor="bench")
        caption_pairs(project, split="val", per_pair=2, writer=held_out_writer, seed=1)
        pairs = [p for p in iter_pairs(project) if p.split == "val" and p.captions]
        source = InMemory()
        context.combiners = source
        base = evaluate(context, pairs, ["sum"])["sum"]
        rows.append(["image + text sum", "–", fmt(base, 10), fmt(base, 50), "–", "–"])
        for count in counts:
            subset = pool[:count]
            if len(subset) < count:
                rows.append([f"drafted {count:,}", f"only {len(pool):,} drafted", "", "", "", ""])
                continue
            combiner, report, seconds = train_subset(project, model, subset, 0, args.threads)
            source.combiners[combiner.name] = combiner
            got = evaluate(context, pairs, [f"combiner:{combiner.name}"])[
                f"combiner:{combiner.name}"]
            rows.append([f"drafted only ({per_image} per image)", f"{count:,}", fmt(got, 10),
                         fmt(got, 50), f"{report.best_epoch}/{report.epochs_run}",
                         f"{seconds:.0f}"])
        for method in ("tfidf", "embedding"):
            mine_pairs(project, method, 100_000, split="train", actor="bench")
        caption_pairs(project, split="train", per_pair=3, writer=simulated_writer(0.3), seed=0)
        captioned = [t for t in annotated_triplets(project) if t.split == "train"]
        combiner, report, seconds = train_subset(project, model, captioned, 0, args.threads)
        source.combiners["captions"] = combiner
        got = evaluate(context, pairs, ["combiner:captions"])["combiner:captions"]
        rows.append(["captions of train pairs (simulated annotators)", f"{len(captioned):,}",
                     fmt(got, 10), fmt(got, 50), f"{report.best_epoch}/{report.epochs_run}",
                     f"{seconds:.0f}"])
        samples = [t.text for t in pool[:5]]
    body = (
        f"{machine_description()}\n\n"
        f"Demo catalog of {args.images} images, model `demo`, no captions: combiners trained "
        f"only on triplets drafted from the {train_images} train images (drafted in "
        f"{draft_seconds:.0f} s; the learned captioner's words). Evaluated on {len(pairs)} "
        "val pairs captioned with held-out phrasings (Fashion IQ protocol, reference kept); "
        "R@10 / R@50 with Wilson intervals.\n\n"
        + markdown_table(["training data", "triplets", "R@10", "R@50", "best/run epochs",
                          "train s"], rows)
        + "\n\nSample drafts: " + "; ".join(f"“{t}”" for t in samples)
        + f"\n\nRun: `.venv/bin/python bench/bench_zero_shot.py --images {args.images} "
        f"--counts {args.counts}`."
    )
    print(body)
    if not args.no_write:
        write_section("zero_shot", "Zero-shot training data from images alone", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
