"""Outfit view on a 4,000 × 6,000 photograph: paint, zoom, pan and region-step times.

Builds a project with one large JPEG and 40 polygon regions, opens the Outfit view
offscreen at 1400 × 900 and times, on the UI thread: a full repaint at fit, repaints
zoomed in 4× while panning, and stepping to the next region (list, chips and outlines
redrawn). For comparison it repaints once more with the full-resolution pixmap in the
scene, which is what the view avoids by drawing a 2,048-pixel one.
"""

from __future__ import annotations

import argparse
import math
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

WIDTH, HEIGHT = 4000, 6000


def build(folder: Path, regions: int) -> Path:
    from PIL import Image, ImageDraw

    from studio.outfits import editing
    from studio.outfits.ontology import load_ontology
    from studio.store import Project
    from studio.store.records import ImageRecord

    images = folder / "images"
    images.mkdir(parents=True)
    rng = random.Random(0)
    picture = Image.new("RGB", (WIDTH, HEIGHT), (200, 190, 180))
    draw = ImageDraw.Draw(picture)
    for _ in range(3000):  # texture, so the JPEG is a realistic size to decode
        x, y = rng.randrange(WIDTH), rng.randrange(HEIGHT)
        draw.ellipse((x, y, x + rng.randrange(20, 200), y + rng.randrange(20, 200)),
                     fill=tuple(rng.randrange(256) for _ in range(3)))
    picture.save(images / "big.jpg", quality=90)
    project = Project.create(folder / "p", image_root=images)
    project.add_images([ImageRecord(id="big", path="big.jpg", width=WIDTH, height=HEIGHT)])
    editing.ensure_picture(project, "bench", "big")
    shirt = load_ontology(project).find("category", "shirt, blouse")
    assert shirt is not None
    for index in range(regions):
        cx, cy = rng.uniform(500, 3500), rng.uniform(500, 5500)
        radius = rng.uniform(100, 600)
        ring = tuple(v for k in range(60) for v in (
            round(cx + radius * math.cos(k * math.tau / 60), 1),
            round(cy + radius * math.sin(k * math.tau / 60), 1)))
        editing.add_region(project, "bench", "big", shirt.id, polygon=(ring,),
                           box=(cx - radius, cy - radius, 2 * radius, 2 * radius))
        del index
    project.close()
    return folder / "p"


def timed(function, repeat: int) -> list[float]:  # noqa: ANN001
    out = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        out.append((time.perf_counter() - started) * 1000)
    return out


def run(path: Path, repeat: int) -> dict[str, object]:
    from PySide6.QtGui import QPixmap
    from PySide6.QtWidgets import QApplication

    from studio.workspace import Workspace
    from widgets.outfit_view import OutfitView
    from widgets.services import Services

    app = QApplication.instance() or QApplication([])
    workspace = Workspace()
    workspace.open_project(path)
    services = Services(workspace)  # the one thumbnail cache and its IO lane, as in the studio
    view = OutfitView(workspace, services.thumbnails)
    view.resize(1400, 900)
    started = time.perf_counter()
    view.show_project(workspace.project)
    view.show()
    opened = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    while view.canvas._pixmap_item is None:
        app.processEvents()
        time.sleep(0.005)
    decoded = (time.perf_counter() - started) * 1000
    viewport = view.canvas.viewport()
    result: dict[str, object] = {"open_ms": opened, "decode_ms": decoded}
    result["fit"] = timed(viewport.repaint, repeat)
    view.canvas.zoom(4.0)

    def pan() -> None:
        bar = view.canvas.verticalScrollBar()
        bar.setValue(bar.value() + 40)
        viewport.repaint()

    result["pan"] = timed(pan, repeat)
    view.canvas.fit()

    def step() -> None:
        view.step_region(1)
        viewport.repaint()

    result["step"] = timed(step, repeat)
    full = QPixmap(str(workspace.project.image_root / "big.jpg"))
    view.canvas.set_picture(full, WIDTH, HEIGHT)
    result["fit_full"] = timed(viewport.repaint, max(3, repeat // 5))
    services.shutdown()
    workspace.close_project()
    del app
    return result


def row(name: str, values: list[float]) -> list[object]:
    ordered = sorted(values)
    return [name, len(values), f"{statistics.median(values):.1f}",
            f"{ordered[int(0.95 * (len(ordered) - 1))]:.1f}", f"{max(values):.1f}"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--regions", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--no-write", action="store_true", help="print, do not touch the file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("CIR_STUDIO_HOME", str(Path(tmp) / "home"))
        path = build(Path(tmp), args.regions)
        result = run(path, args.repeat)
    body = "\n\n".join([
        f"One 4,000 × 6,000 JPEG with {args.regions} polygon regions (60 points each) in the "
        f"Outfit view, offscreen at 1400 × 900. Opening the view: {result['open_ms']:.0f} ms; "
        f"the picture, decoded off the UI thread at 2,048 pixels on its long side, arrived "
        f"after {result['decode_ms']:.0f} ms.",
        markdown_table(["UI-thread work", "times", "median ms", "p95 ms", "worst ms"], [
            row("repaint at fit", result["fit"]),  # type: ignore[arg-type]
            row("pan 40 px zoomed 4× + repaint", result["pan"]),  # type: ignore[arg-type]
            row("next region (list, chips, outlines) + repaint",
                result["step"]),  # type: ignore[arg-type]
            row("repaint at fit, full-resolution pixmap (what the view avoids)",
                result["fit_full"]),  # type: ignore[arg-type]
        ]),
        "Run: `.venv/bin/python bench/bench_outfit_view.py`.",
    ])
    print(body)
    if not args.no_write:
        write_section("outfit-view", "Outfit view on a 4,000 × 6,000 photograph", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
