"""Attribute suggestions on the demo: precision@8 and recall@8 against the catalog's truth.

Creates (or reuses, with ``--dir``) a demo project, extracts attributes from its text
(which must match the catalog exactly), embeds the images once with the model, then
suggests the top 8 attributes per image with each calibration and scores them against
the true attributes of ``catalog.jsonl``. Writes the figures into BENCHMARKS.md between
``<!-- bench:attributes -->`` and ``<!-- /bench:attributes -->``.

    .venv/bin/python bench/bench_attribute_suggestions.py --images 2000
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.report import markdown_table, write_section  # noqa: E402
from studio.attributes.extract import extract_from_text  # noqa: E402
from studio.attributes.quality import mean_precision_recall_at_k, precision_recall  # noqa: E402
from studio.attributes.query import suggestions  # noqa: E402
from studio.attributes.scoring import CALIBRATIONS  # noqa: E402
from studio.attributes.suggest import prompt_vectors, suggest_attributes  # noqa: E402
from studio.attributes.vocabulary import load_vocabulary  # noqa: E402
from studio.demo.project import create_demo_project  # noqa: E402
from studio.demo.truth import catalog_truth  # noqa: E402
from studio.embeddings import embed_project_images  # noqa: E402
from studio.index_service import load_project_model  # noqa: E402
from studio.store import Project, resolve_project_path  # noqa: E402

ACTOR = "bench"


def fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def run(folder: Path, args: argparse.Namespace) -> str:
    started = time.perf_counter()
    created = "reused"
    if not resolve_project_path(folder).exists():
        create_demo_project(folder, args.images, args.seed, attributes=False)  # timed below
        created = f"created in {time.perf_counter() - started:.1f} s"
    truth = catalog_truth(folder)
    with Project.open(folder) as project:
        started = time.perf_counter()
        extract_from_text(project, ACTOR)
        extract_s = time.perf_counter() - started
        text = suggestions(project, "text")
        exact = sum(text.get(i, set()) == t for i, t in truth.items())
        model = load_project_model(args.model, args.device)
        started = time.perf_counter()
        embed_project_images(project, model)
        embed_s = time.perf_counter() - started
        entries = load_vocabulary(project)
        types = {e.name: e.type for e in entries}
        started = time.perf_counter()
        for category in project.categories():
            prompt_vectors(model, entries, category)  # encoded once, then remembered
        prompts_s = time.perf_counter() - started
        rows, per_type = [], {}
        for calibration in CALIBRATIONS:
            started = time.perf_counter()
            suggest_attributes(
                project,
                ACTOR,
                args.model,
                top_n_per_image=args.top,
                calibration=calibration,
                model=model,
            )
            seconds = time.perf_counter() - started
            predicted = suggestions(project, "model", args.model)
            p_at_k, r_at_k = mean_precision_recall_at_k(predicted, truth, args.top)
            report = precision_recall(predicted, truth, types)
            per_type[calibration] = report.per_type
            rows.append([f"`{calibration}`", fmt(p_at_k), fmt(r_at_k), f"{seconds:.1f}"])
            print(
                f"{calibration}: precision@{args.top} {p_at_k:.3f}, "
                f"recall@{args.top} {r_at_k:.3f} ({seconds:.1f} s)",
                flush=True,
            )
        images = project.count_images()
    k = args.top
    type_rows = [
        [t, fmt(c.precision), fmt(c.recall), c.tp, c.fp, c.fn]
        for t, c in sorted(per_type["type-softmax"].items())
    ]
    return "\n\n".join(
        [
            f"Demo project of {images:,} images (seed {args.seed}; {created}), "
            f"starter vocabulary of {len(types)} attributes, model `{args.model}` on "
            f"`{model.device}`. Truth: the catalog's attributes in starter words (6 per dress, "
            "7 per shirt or top). Precision@k = true attributes among the k kept / k, recall@k "
            "= true attributes kept / true attributes, both averaged over images.",
            f"Text extraction: exact on {exact:,} of {len(truth):,} images in {extract_s:.2f} s. "
            f"Embedding the images (once, into the project's cache): {embed_s:.1f} s; "
            f"encoding every attribute's prompts for each category (once): {prompts_s:.1f} s.",
            markdown_table(
                ["calibration", f"precision@{k}", f"recall@{k}", "suggest s (vectors cached)"],
                rows,
            ),
            "Per type, default calibration (`type-softmax`), pooled over images:",
            markdown_table(["type", "precision", "recall", "TP", "FP", "FN"], type_rows),
            "Reproduce: `.venv/bin/python bench/bench_attribute_suggestions.py "
            f"--images {args.images}`.",
        ]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dir", type=Path, default=None, help="demo folder to create or reuse")
    parser.add_argument("--model", default="demo")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    if args.dir is not None:
        body = run(args.dir, args)
    else:
        with tempfile.TemporaryDirectory(prefix="bench-attributes-") as tmp:
            body = run(Path(tmp) / "demo", args)
    print(body)
    if not args.no_write:
        write_section("attributes", "Attribute suggestions (zero-shot, top 8)", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
