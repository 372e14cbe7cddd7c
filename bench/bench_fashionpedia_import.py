"""Fashionpedia import and export at scale: a generated file of N pictures × 10 annotations.

Each annotation is a 32-point polygon with a box and one attribute over the five
categories of ``tests/outfit_samples.py`` (garments and parts, so parts are attached by
containment). Times the checked import (one transaction), the export, and checks the
export equals the input.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.report import markdown_table, write_section  # noqa: E402


def document(pictures: int) -> dict:
    from tests.outfit_samples import ATTRIBUTES, CATEGORIES, rect

    rng = random.Random(0)
    doc: dict = {"info": {}, "images": [], "annotations": [], "categories": CATEGORIES,
                 "attributes": ATTRIBUTES}
    next_id = 1
    for image in range(pictures):
        doc["images"].append({"id": image, "width": 600, "height": 900,
                              "file_name": f"{image}.jpg"})
        for _ in range(10):
            x, y = rng.uniform(0, 400), rng.uniform(0, 700)
            ring = [round(v, 1) for v in rect(x, y, 150, 150)] * 8
            doc["annotations"].append({
                "id": next_id, "image_id": image, "category_id": rng.randrange(5),
                "attribute_ids": [rng.randrange(3)], "segmentation": [ring], "area": 1.0,
                "iscrowd": 0, "bbox": [x, y, 150, 150],
            })
            next_id += 1
    return doc


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pictures", type=int, default=2000)
    parser.add_argument("--no-write", action="store_true", help="print, do not touch the file")
    args = parser.parse_args()
    from studio.outfits.fashionpedia import import_fashionpedia
    from studio.outfits.fashionpedia_write import export_fashionpedia
    from studio.store import Project

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        os.environ.setdefault("CIR_STUDIO_HOME", str(folder / "home"))
        doc = document(args.pictures)
        (folder / "ann.json").write_text(json.dumps(doc))
        with Project.create(folder / "p", image_root=folder) as project:
            started = time.perf_counter()
            report = import_fashionpedia(project, folder / "ann.json", folder)
            imported = time.perf_counter() - started
            started = time.perf_counter()
            export_fashionpedia(project, folder / "out.json")
            exported = time.perf_counter() - started
        same = json.loads((folder / "out.json").read_text()) == doc
    body = "\n\n".join([
        f"A generated Fashionpedia file of {args.pictures:,} pictures × 10 annotations "
        f"(32-point polygons, boxes, one attribute each; picture files absent). "
        f"{report.garments_added:,} garments and {report.parts_added:,} parts, "
        f"{report.parts_attached:,} parts attached to a garment by containment.",
        markdown_table(["step", "seconds"], [
            ["import (read, check, write in one transaction, attach parts)",
             f"{imported:.1f}"],
            ["export (parsed JSON equal to the input: " + ("yes" if same else "NO") + ")",
             f"{exported:.1f}"],
        ]),
        "Run: `.venv/bin/python bench/bench_fashionpedia_import.py`.",
    ])
    print(body)
    if not args.no_write:
        write_section("fashionpedia-import", "Fashionpedia import and export at scale", body)
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
