"""``cir-studio export fashioniq|cirr|jsonl``: write the project's pairs and captions."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from studio.cli import outfits_cmd
from studio.cli.progress import TerminalProgress
from studio.cli.project_arg import add_project_argument, open_project

FORMATS = {
    "fashioniq": "Fashion IQ files (captions/ and image_splits/) in the folder OUT",
    "cirr": "CIRR files (captions/ and image_splits/) in the folder OUT",
    "jsonl": "one JSON line per pair with every caption's author, reviewer, status and times",
    "ranking": "the top-50 gallery ids per pair (Fashion IQ challenge format) from the index",
    "cirr-submission": "CIRR's test-server files test1_pred_ranks_recall.json and "
    "test1_pred_ranks_recall_subset.json (top 50, reference removed; top 3 of the image set) "
    "in the folder OUT",
    "circo": "CIRCO files (annotations/SPLIT.json, every entry as imported) in the folder OUT",
    "circo-submission": "CIRCO's test-server file: each query id with its top 50 image ids, "
    "ranked with the project's model (OUT a folder or a .json file)",
    "hf": "a Hugging Face dataset folder: Parquet per config and split (triplets, sessions, "
    "gallery) with the pictures embedded, and a dataset card README.md",
}


def register(subparsers: argparse._SubParsersAction) -> None:
    command = subparsers.add_parser(
        "export",
        help="export pairs and captions (Fashion IQ, CIRR, JSON Lines) or outfits "
        "(Fashionpedia, FashionX, OmniFashion)",
        description="Submitted and accepted captions are exported; drafts never are.",
    )
    kinds = command.add_subparsers(dest="export_kind", metavar="FORMAT", required=True)
    for name, help_text in FORMATS.items():
        parser = kinds.add_parser(
            name, help=help_text, description=help_text[0].upper() + help_text[1:] + "."
        )
        parser.add_argument("out", type=Path, help="folder (or .jsonl file) to write")
        add_project_argument(parser)
        parser.add_argument(
            "--source", help="only pairs and images of this source (e.g. fashioniq, cirr, mined)"
        )
        parser.add_argument("--json", action="store_true", help="print a JSON summary")
        parser.set_defaults(func=run_export)
        if name == "cirr-submission":
            parser.add_argument("--split", dest="export_split", default="test1",
                                help="the CIRR split to predict (test1)")
        if name == "hf":
            parser.add_argument("--annotations-only", action="store_true",
                                help="ids and paths, no picture bytes")
            parser.add_argument("--split", dest="export_split",
                                help="only the pairs (and galleries) of this split")
        if name == "circo-submission":
            parser.add_argument("--split", dest="export_split", default="test",
                                help="the CIRCO split to predict (test)")
            parser.add_argument("--strategy", dest="export_strategy", default="sum",
                                help="sum (default), text, image, history or combiner:NAME")
        if name in ("ranking", "cirr-submission", "circo-submission"):
            parser.add_argument(
                "--model",
                dest="export_model",
                help="embedding model (default: the one in Settings)",
            )
            parser.add_argument("--device", dest="export_device", help="cpu, cuda, mps or auto")
            if name == "ranking":
                parser.add_argument("--k", type=int, default=50, help="ids per ranking (50)")
                parser.add_argument("--strategy", dest="export_strategy", default="sum",
                                    help="sum (default), text, image or combiner:NAME")
    outfits_cmd.register_exports(kinds)


def run_export(args: argparse.Namespace) -> int:
    from studio.exporters import EXPORTERS

    options: dict[str, Any] = {}
    if args.export_kind in ("ranking", "cirr-submission", "circo-submission"):
        from studio.settings import Settings

        settings = Settings.load()
        options = {
            "model": args.export_model or args.model or settings.model,
            "device": args.export_device or args.device or settings.device,
        }
        if args.export_kind == "ranking":
            options["k"] = args.k
            options["strategy"] = args.export_strategy
        elif args.export_kind == "circo-submission":
            options["split"] = args.export_split
            options["strategy"] = args.export_strategy
        else:
            options["split"] = args.export_split
    if args.export_kind == "hf":
        options = {"annotations_only": args.annotations_only, "split": args.export_split}
    with open_project(args) as project, TerminalProgress(f"Exporting {args.export_kind}") as bar:
        summary = EXPORTERS[args.export_kind](
            project, args.out, source=args.source, progress=bar, **options
        )
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        files = summary.get("files")
        if files:
            for name, counts in files.items():
                details = ", ".join(
                    f"{value} {key.replace('_', ' ')}" for key, value in counts.items()
                )
                print(f"{name}: {details}")
        else:
            print(f"{summary['pairs']} pairs with {summary['captions']} captions")
        print(f"Written to {summary['out']}")
    return 0
