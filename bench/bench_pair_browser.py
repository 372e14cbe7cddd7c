"""Pair browser with 100,000 pairs: the worst UI-thread stall while scrolling, offscreen.

Builds a project of 100,000 pairs over 2,000 small generated images (a third of the
pairs captioned), opens the real Pairs pane offscreen and drives it as a person would:
page-down scrolling, dragging the scroll bar to random places, changing filters and
searching. Every step is timed from the input to the end of its event processing, i.e.
how long the UI thread was busy and the window unresponsive. Thumbnails decode on the
worker pool meanwhile. Writes its figures into BENCHMARKS.md between
``<!-- bench:pair-browser -->`` and ``<!-- /bench:pair-browser -->``.

    .venv/bin/python bench/bench_pair_browser.py [--pairs 100000] [--steps 300]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from bench.report import markdown_table, write_section  # noqa: E402
from studio.store import Project  # noqa: E402
from studio.store.database import utc_now  # noqa: E402

COLOURS = ("Red", "Blue", "Black", "White", "Green", "Pink", "Grey", "Beige")
KINDS = ("Maxi Dress", "Mini Dress", "Shirt", "Tee", "Blouse", "Midi Dress")


def build_project(folder: Path, pairs: int, images: int) -> Path:
    """Images on disk, pairs and captions inserted in bulk (the browser is what is timed)."""
    from PIL import Image

    rng = random.Random(0)
    root = folder / "images"
    root.mkdir(parents=True)
    project = Project.create(folder / "project.cirdb", name="pair-browser bench", image_root=root)
    now = utc_now()
    rows = []
    for n in range(images):
        colour = (rng.randrange(256), rng.randrange(256), rng.randrange(256))
        Image.new("RGB", (192, 256), colour).save(root / f"img{n}.jpg", quality=80)
        category = ("dress", "shirt", "toptee")[n % 3]
        rows.append(
            (
                f"img{n}",
                f"img{n}.jpg",
                category,
                ("train", "val", "test")[n % 5 % 3],
                f"{rng.choice(COLOURS)} {rng.choice(KINDS)} {n}",
                now,
            )
        )
    db = project.db
    with db.atomic():
        db.conn.executemany(
            "INSERT INTO images (id, path, category, split, title, added_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            rows,
        )
        db.conn.executemany(
            "INSERT INTO pairs (reference_id, target_id, category, split, method, score, "
            "source, external_key, created_at) VALUES (?, ?, ?, ?, 'tfidf', ?, 'bench', ?, ?)",
            [
                (
                    f"img{n % images}",
                    f"img{(n * 7 + 3) % images}",
                    rows[n % images][2],
                    rows[n % images][3],
                    rng.random() * 20,
                    str(n),
                    now,
                )
                for n in range(pairs)
            ],
        )
        author = project.ensure_person("bench-annotator").id
        db.conn.executemany(
            "INSERT INTO captions (pair_id, position, text, author_id, status, created_at, "
            "updated_at) VALUES (?, 0, ?, ?, 'submitted', ?, ?)",
            [
                (pair_id, f"is {rng.choice(COLOURS).lower()} and longer", author, now, now)
                for pair_id in range(1, pairs + 1, 3)
            ],
        )
    project.close()
    return folder / "project.cirdb"


def timed(app, action) -> float:
    """Milliseconds the UI thread spends on ``action`` plus the events it causes."""
    started = time.perf_counter()
    action()
    app.processEvents()
    return (time.perf_counter() - started) * 1000


def run(path: Path, steps: int) -> dict[str, object]:
    from PySide6.QtWidgets import QApplication

    from studio.workspace import Workspace
    from widgets.panes.pairs_pane import PairsPane
    from widgets.services import Services

    app = QApplication.instance() or QApplication([])
    workspace = Workspace()
    services = Services(workspace)
    pane = PairsPane(services)
    pane.resize(1400, 900)
    pane.show()
    app.processEvents()
    open_ms = timed(app, lambda: workspace.open_project(path))
    bar = pane.table.verticalScrollBar()
    rng = random.Random(1)
    scroll, jumps = [], []
    for _ in range(steps):
        scroll.append(timed(app, lambda: bar.setValue(bar.value() + bar.pageStep())))
    for _ in range(steps // 3):
        jumps.append(timed(app, lambda: bar.setValue(rng.randrange(bar.maximum()))))
    for _ in range(50):  # let thumbnails land while idle, as they would between scrolls
        app.processEvents()
        time.sleep(0.01)
    filters = {
        "status: needs caption": lambda: pane.status.setCurrentIndex(
            pane.status.findData("needs_caption")
        ),
        "status: any": lambda: pane.status.setCurrentIndex(0),
        "category: shirt": lambda: pane.category.setCurrentIndex(pane.category.findData("shirt")),
        "search 'Maxi Dress 1'": lambda: (
            pane.search.setText("Maxi Dress 1"),
            pane.apply_filters(),
        ),
    }
    filter_ms = {name: timed(app, action) for name, action in filters.items()}
    model = pane.model
    result = {
        "pairs": workspace.project.table_counts()["pairs"],
        "open_ms": open_ms,
        "scroll": scroll,
        "jumps": jumps,
        "filters": filter_ms,
        "pages": model.page_fetches,
        "decoded": pane.thumbnails.decoded,
    }
    pane.thumbnails.wait_idle()
    services.shutdown()
    return result


def summary(values: list[float]) -> list[str]:
    ordered = sorted(values)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    return [f"{statistics.median(values):.1f}", f"{p95:.1f}", f"{max(values):.1f}"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--images", type=int, default=2000)
    parser.add_argument("--steps", type=int, default=300, help="page-down scroll steps")
    parser.add_argument("--no-write", action="store_true", help="print, do not touch the file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("CIR_STUDIO_HOME", str(Path(tmp) / "home"))
        started = time.perf_counter()
        path = build_project(Path(tmp) / "bench", args.pairs, args.images)
        built = time.perf_counter() - started
        result = run(path, args.steps)
    worst = max(max(result["scroll"]), max(result["jumps"]))
    body = "\n\n".join(
        [
            f"Pairs pane over {result['pairs']:,} pairs ({args.images:,} images, a third of the "
            f"pairs captioned), offscreen. **Worst UI-thread stall while scrolling: "
            f"{worst:.1f} ms.** Opening the project (filter query and first page): "
            f"{result['open_ms']:.0f} ms. {result['pages']} pages of 100 rows were read from "
            f"SQLite in all; {result['decoded']} thumbnails were decoded off the UI thread.",
            markdown_table(
                ["interaction", "steps", "median ms", "p95 ms", "worst ms"],
                [
                    ["page down", len(result["scroll"]), *summary(result["scroll"])],
                    ["drag to a random place", len(result["jumps"]), *summary(result["jumps"])],
                ],
            ),
            markdown_table(
                ["filter change (one step)", "ms"],
                [[name, f"{ms:.0f}"] for name, ms in result["filters"].items()],
            ),
            f"Building the project took {built:.0f} s. Run: "
            "`.venv/bin/python bench/bench_pair_browser.py`.",
        ]
    )
    print(body)
    if not args.no_write:
        write_section("pair-browser", "Pair browser (100,000 pairs)", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
