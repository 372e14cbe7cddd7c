"""CIRCO's gallery at full size: importing about 120,000 COCO unlabeled pictures.

    python bench/bench_circo_gallery.py [--images 120000] [--no-write]

Makes a synthetic ``unlabeled2017/`` of empty ``%012d.jpg`` files (the real pictures are
not in the repository; an empty file costs the scan, the hash call, the header attempt
and the insert, not the bytes), a 220-query ``val.json`` over them with a few ids left
missing, then times ``import_circo`` (scan, hash, batched inserts, gallery membership),
importing the same again (nothing added, nothing hashed) and ``export_circo``. Writes the
``circo-gallery`` section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.report import markdown_table, write_section  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--images", type=int, default=120_000)
    parser.add_argument("--no-write", action="store_true", help="print, do not touch BENCHMARKS.md")
    args = parser.parse_args()
    from studio.exporters import export_circo
    from studio.importers.circo import import_circo
    from studio.store import Project
    from studio.store.galleries import galleries

    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "circo"
        folder = root / "COCO2017_unlabeled" / "unlabeled2017"
        folder.mkdir(parents=True)
        ids = rng.sample(range(1, 600_000), args.images)
        started = time.perf_counter()
        for image_id in ids:
            (folder / f"{image_id:012d}.jpg").touch()
        made = time.perf_counter() - started
        entries = []
        for number in range(220):
            truths = rng.sample(ids, rng.randint(1, 5))
            entries.append({"reference_img_id": rng.choice(ids), "target_img_id": truths[0],
                            "relative_caption": f"caption {number}", "shared_concept": "a thing",
                            "gt_img_ids": truths, "id": number, "semantic_aspects": ["addition"]})
        entries[0]["gt_img_ids"].append(600_001)  # named, never on disk
        (root / "annotations").mkdir()
        (root / "annotations" / "val.json").write_text(json.dumps(entries, indent=4))
        rows = []
        with Project.create(Path(tmp) / "p", image_root=root) as project:
            start = time.perf_counter()
            report = import_circo(project, root)
            rows.append(["import (scan, hash, insert)", f"{time.perf_counter() - start:.1f}",
                         f"{report.images_added:,} images, {report.pairs_added} queries"])
            start = time.perf_counter()
            again = import_circo(project, root)
            rows.append(["import again", f"{time.perf_counter() - start:.1f}",
                         f"{again.images_added} images added"])
            start = time.perf_counter()
            export_circo(project, Path(tmp) / "out")
            rows.append(["export annotations", f"{time.perf_counter() - start:.2f}", ""])
            size = galleries(project)[("", "unlabeled2017")]
    body = (
        f"A synthetic gallery of {args.images:,} empty `%012d.jpg` files ({made:.1f} s to "
        f"make) and 220 queries, one ground truth missing. Gallery after import: {size:,} "
        "images.\n\n" + markdown_table(["step", "seconds", "result"], rows)
        + "\n\nRun: `.venv/bin/python bench/bench_circo_gallery.py`."
    )
    print(body)
    if not args.no_write:
        write_section("circo-gallery", f"CIRCO gallery ({args.images:,} images)", body)


if __name__ == "__main__":
    main()
