"""Composed-turn latency of a retrieval session on a large demo gallery, after model load.

    python bench/bench_sessions.py [--images 10000] [--queries 60] [--project DIR]

Times ``RetrievalSession.composed_turn`` (text encoding, reference lookup, composition,
search over the whole gallery, history-aware re-ranking, target rank) for random
(reference, modification text) pairs, after one warm-up turn. Goal: under 200 ms on a
10,000-image gallery on this machine's CPU. Writes the ``session-latency`` section.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.demo_project import prepared_demo  # noqa: E402
from bench.report import markdown_table, write_section  # noqa: E402

TEXTS = (
    "is red with long sleeves",
    "is shorter and has a v-neck",
    "is striped and looser",
    "has no print and is navy",
    "is darker with a collar",
    "is floral and midi length",
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--project", type=Path, help="reuse or create the project here")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.project or Path(tmp) / "demo"
        setup = prepared_demo(folder, args.images)
        from studio.sessions.setup import load_session_context
        from studio.store import Project

        with Project.open(folder) as project:
            context = load_session_context(project, "demo", "cpu")
            ids = [image.id for image in project.iter_images()]
            rng = random.Random(0)
            rows, parts = [], {"encode_ms": [], "search_ms": [], "rank_ms": [], "total_ms": []}
            for strategy in ("history", "sum"):
                totals = []
                session = context.new_session(strategy, target_id=rng.choice(ids))
                session.composed_turn(TEXTS[0], reference_id=rng.choice(ids))  # warm-up
                for number in range(args.queries):
                    turn = session.composed_turn(
                        TEXTS[number % len(TEXTS)], reference_id=rng.choice(ids)
                    )
                    totals.append(turn.timings["total_ms"])
                    if strategy == "history":
                        for key in parts:
                            parts[key].append(turn.timings.get(key, 0.0))
                p50, p95 = np.percentile(totals, [50, 95])
                rows.append(
                    [
                        strategy,
                        len(ids),
                        args.queries,
                        f"{p50:.0f}",
                        f"{p95:.0f}",
                        f"{max(totals):.0f}",
                    ]
                )
    breakdown = ", ".join(
        f"{k.removesuffix('_ms')} {np.median(v):.0f} ms" for k, v in parts.items()
    )
    body = (
        markdown_table(["strategy", "gallery", "turns", "p50 ms", "p95 ms", "max ms"], rows)
        + f"\n\nMedian breakdown of a history-aware turn: {breakdown}. One process, model "
        "loaded, flat faiss index on the CPU, turns of one session (later turns carry "
        "earlier ones). Setup of the project: "
        + ", ".join(f"{k.removesuffix('_s')} {v:.0f} s" for k, v in setup.items())
        + ".\n\nRun: `.venv/bin/python bench/bench_sessions.py --images 10000`."
    )
    print(body)
    if not args.no_write:
        write_section(
            "session-latency",
            "Retrieval session turn latency (goal < 200 ms at 10,000 images)",
            body,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
