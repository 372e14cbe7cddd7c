"""The real dataset slices end to end: import, byte-exact export, and each official
protocol over placeholder pictures drawn under the real ids.

    python bench/bench_dataset_protocols.py [--fixtures DIR]

Reads ``../shared/fixtures`` beside the checkout (or ``--fixtures`` / CIR_STUDIO_FIXTURES):
Fashion IQ val (three categories), the first 400 CIRR val entries with the whole val
split, and 150 ChatIR dialogues of two questioners with a 2,000-image search space. The
retrieval figures are over placeholder garments, not the datasets' photos: they show that
each protocol runs over the right galleries with the right counts, not how good a model
is. Writes the ``dataset-protocols`` section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.report import markdown_table, write_section  # noqa: E402

CHECKOUT = Path(__file__).resolve().parents[1]


def cli(*args: str) -> str:
    from studio.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(args))
    if code:
        raise SystemExit(f"cir-studio {' '.join(args)} exited {code}")
    return out.getvalue()


def timed(rows: list[list[object]], what: str, *args: str) -> str:
    start = time.perf_counter()
    out = cli(*args)
    rows.append([what, f"{time.perf_counter() - start:.1f}"])
    return out


def same_files(original: Path, exported: Path) -> tuple[int, int]:
    names = [p.relative_to(original) for p in original.rglob("*.json")]
    same = sum(
        (exported / n).is_file() and (exported / n).read_bytes() == (original / n).read_bytes()
        for n in names
    )
    return same, len(names)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--fixtures",
        type=Path,
        default=Path(
            os.environ.get("CIR_STUDIO_FIXTURES") or CHECKOUT.parent / "shared" / "fixtures"
        ),
    )
    args = parser.parse_args()
    from studio.demo.placeholders import draw_placeholders

    fixtures = args.fixtures
    times: list[list[object]] = []
    body = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        # Fashion IQ
        fiq = fixtures / "fashioniq"
        category_of: dict[str, str] = {}
        for category in ("dress", "shirt", "toptee"):
            for image_id in json.loads(
                (fiq / f"image_splits/split.{category}.val.json").read_text()
            ):
                category_of.setdefault(image_id, category)
        draw_placeholders(work / "fiq-img", sorted(category_of), category_of=category_of)
        report = json.loads(
            timed(
                times,
                "Fashion IQ import",
                "import",
                "fashioniq",
                str(fiq),
                "--project",
                str(work / "fiq"),
                "--images",
                str(work / "fiq-img"),
                "--json",
            )
        )
        timed(
            times,
            "Fashion IQ export",
            "export",
            "fashioniq",
            "--project",
            str(work / "fiq"),
            str(work / "fiq-out"),
        )
        same, total = same_files(fiq, work / "fiq-out")
        counts = [
            [c, g["val"]["entries"], g["val"]["captions"], g["val"]["gallery"]]
            for c, g in sorted(report["groups"].items())
        ]
        body.append(
            "### Fashion IQ val\n\n"
            + markdown_table(["category", "entries", "captions", "gallery"], counts)
            + f"\n\n{report['images_added']} distinct images, {len(report['problems'])} "
            f"problems; {same} of {total} files export byte for byte."
        )
        timed(
            times,
            "Fashion IQ index build",
            "index",
            "build",
            "--project",
            str(work / "fiq"),
            "--model",
            "demo",
        )
        table = timed(
            times, "evaluate fashioniq", "evaluate", "fashioniq", "--project", str(work / "fiq")
        )
        body.append("```\n" + table.strip() + "\n```")
        # CIRR
        cirr = fixtures / "cirr"
        split = json.loads((cirr / "image_splits/split.rc2.val.json").read_text())
        draw_placeholders(work / "cirr-img", split.values())
        report = json.loads(
            timed(
                times,
                "CIRR import",
                "import",
                "cirr",
                str(cirr),
                "--project",
                str(work / "cirr"),
                "--images",
                str(work / "cirr-img"),
                "--json",
            )
        )
        timed(
            times,
            "CIRR export",
            "export",
            "cirr",
            "--project",
            str(work / "cirr"),
            str(work / "cirr-out"),
        )
        counts = report["groups"]["(none)"]["val"]
        timed(
            times,
            "CIRR index build",
            "index",
            "build",
            "--project",
            str(work / "cirr"),
            "--model",
            "demo",
        )
        result = json.loads(
            timed(times, "evaluate cirr", "evaluate", "cirr", "--project", str(work / "cirr"))
        )
        timed(
            times,
            "export cirr-submission (val)",
            "export",
            "cirr-submission",
            "--project",
            str(work / "cirr"),
            "--split",
            "val",
            str(work / "cirr-sub"),
        )
        keys = len(json.loads((work / "cirr-sub/val_pred_ranks_recall.json").read_text())) - 2
        recalls = ", ".join(
            f"{k} {result[k]['value']:.3f}" for k in result if k.startswith("recall")
        )
        body.append(
            f"### CIRR val (first 400 entries, whole split)\n\n{counts['entries']} entries, "
            f"{counts['captions']} captions, {counts['gallery']} gallery images; "
            "the caption and split files export byte for byte: "
            f"{same_files(cirr, work / 'cirr-out')[0]} of 2. `evaluate cirr`: "
            f"{result['queries']} queries, {recalls}. `export cirr-submission --split val`: "
            f"{keys} pair keys."
        )
        # ChatIR
        chat = fixtures / "chatir"
        space = json.loads((chat / "ChatIR_Protocol/Search_Space_val_2k.json").read_text())
        draw_placeholders(work / "chat-img", space)
        timed(
            times,
            "ChatIR import",
            "import",
            "chatir",
            str(chat),
            "--project",
            str(work / "chat"),
            "--images",
            str(work / "chat-img"),
        )
        timed(
            times,
            "ChatIR index build",
            "index",
            "build",
            "--project",
            str(work / "chat"),
            "--model",
            "demo",
        )
        table = timed(
            times, "evaluate chatir", "evaluate", "chatir", "--project", str(work / "chat")
        )
        body.append(
            "### ChatIR (150 dialogues × 2 questioners, 2,000-image search space)\n\n"
            "```\n" + table.strip() + "\n```"
        )
    body.append("### Wall-clock seconds\n\n" + markdown_table(["step", "s"], times))
    text = (
        "Placeholder garments drawn under the real ids (`studio.demo.placeholders`), the "
        "shipped demo model: the recall figures are near chance by design and say nothing "
        "about the datasets; the counts, galleries and round trips are the point.\n\n"
        + "\n\n".join(body)
    )
    write_section(
        "dataset-protocols",
        "Real dataset slices end to end (bench/bench_dataset_protocols.py)",
        text,
    )
    print(text)


if __name__ == "__main__":
    main()
