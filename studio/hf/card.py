"""The dataset card (``README.md``) of an export: YAML configs, licences, sources, counts.

The YAML front matter declares each config's files per split, so ``load_dataset(OUT,
"triplets")`` works for any split name; the body says where the data came from, under
which terms, how many rows each file has and what was left out.
"""

from __future__ import annotations

from pathlib import Path

from studio.exporters.common import write_text_atomic
from studio.hf.schema import file_name

# What each source dataset's terms are; the card repeats them so they travel with the data.
LICENCES = {
    "fashioniq": ("Fashion IQ (Wu et al., CVPR 2021)", "Community Data License Agreement "
                  "(the annotations); the product photos are Amazon's and are not licensed "
                  "with them"),
    "cirr": ("CIRR (Liu et al., ICCV 2021)", "MIT (the annotations); the images are NLVR2's "
             "(Suhr et al.), which are not licensed for redistribution: request them from "
             "NLVR2's authors"),
    "circo": ("CIRCO (Baldrati et al., ICCV 2023)", "CC BY-NC 4.0: non-commercial use only, "
              "with credit; the images are COCO 2017 unlabeled (Flickr terms of use)"),
    "fashionmt": ("FashionMT", "as its authors publish it"),
}
FALLBACK = ("a dataset made in CIR Studio", "as its owner decides")


def write_card(
    out: Path, counts: dict[str, dict[str, int]], sources: list[str], with_images: bool
) -> None:
    write_text_atomic(out / "README.md", card_text(counts, sources, with_images))


def card_text(counts: dict[str, dict[str, int]], sources: list[str], with_images: bool) -> str:
    lines = ["---", "license: other", "license_name: mixed-see-card", "task_categories:",
             "- image-to-image", "- text-to-image", "tags:", "- composed-image-retrieval",
             "configs:"]
    first = True
    for config, splits in counts.items():
        if not splits:
            continue
        lines.append(f"- config_name: {config}")
        if first:
            lines.append("  default: true")
            first = False
        lines.append("  data_files:")
        for split in splits:
            name = file_name(split)
            lines += [f"  - split: {name.split('-')[0]}", f"    path: {config}/{name}"]
    lines += ["---", "", "# Composed image retrieval data exported by CIR Studio", ""]
    lines += ["Load it with the `datasets` library (4.0 or later):", "", "```python",
              "from datasets import load_dataset", "",
              'triplets = load_dataset("path/to/this/folder", "triplets")', "```", ""]
    lines += ["## Sources and licences", ""]
    for source in sources:
        name, terms = LICENCES.get(source.lower(), FALLBACK)
        lines.append(f"- **{source}**: {name}. Terms: {terms}.")
    lines += ["", "Respect each source's terms: this export does not change them.", "",
              "## Contents", "", "| config | split | rows |", "|---|---|---|"]
    for config, splits in counts.items():
        lines += [f"| {config} | {split} | {n:,} |" for split, n in splits.items()]
    lines += ["", "- `triplets`: one row per pair: `reference`, `target`, every correct image "
              "(`ground_truths`), `captions` (text, status, author, reviewer, times), the "
              "source dataset's own fields as JSON (`extra`), the images' paths"
              + (" and the pictures (`reference_image`, `target_image`)." if with_images
                 else "; pictures not included (annotations only)."),
              "- `sessions`: one row per multi-turn transaction: `image_ids` in order "
              "(reference first), `turns` (index, reference position, text, status).",
              "- `gallery`: the retrieval galleries (category, split, image id, position, path); "
              "no picture bytes.", "",
              "## Never exported", "",
              "- draft and rejected captions;",
              "- hidden test ground truth (CIRR `test1`, CIRCO `test`): their authors keep it "
              "on evaluation servers;",
              "- pictures whose file is missing (their image is null, their path kept);",
              "- the studio's audit log and team assignments.", ""]
    return "\n".join(lines)
