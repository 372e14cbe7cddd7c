"""``cir-studio attributes extract|suggest|export|import``: attribute labels from the shell."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from studio.cli.progress import TerminalProgress
from studio.cli.project_arg import add_project_argument, open_project
from studio.errors import StudioError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("attributes", help="attribute vocabulary and labels")
    actions = parser.add_subparsers(dest="attributes_command", metavar="ACTION", required=True)

    def action(name: str, help_text: str, description: str, func) -> argparse.ArgumentParser:
        sub = actions.add_parser(name, help=help_text, description=description)
        add_project_argument(sub, "project file or folder")
        sub.add_argument("--user", default=None, help="name recorded with the change "
                         "(default: the name in Settings, else your login)")
        sub.set_defaults(func=func)
        return sub

    extract = action(
        "extract", "label attributes named in product titles and descriptions",
        "Find every vocabulary word or synonym in each image's title and description "
        "(whole words, any case, plurals, hyphens) and store it as a 'text' suggestion. "
        "A project without a vocabulary gets the starter vocabulary first.", run_extract,
    )
    extract.add_argument("--json", action="store_true", help="print a JSON summary")

    suggest = action(
        "suggest", "suggest attributes with an embedding model (zero-shot, top N per image)",
        "Score every vocabulary attribute on every image with the model's text prompts, "
        "calibrate the scores per type and keep the top N per image as 'model' suggestions. "
        "Each model's suggestions are kept apart.", run_suggest,
    )
    suggest.add_argument("--model", default=None, help="model spec (default: Settings)")
    suggest.add_argument("--device", default=None, help="auto, cpu, cuda, mps (default: Settings)")
    suggest.add_argument("--top", type=int, default=8, help="suggestions per image (8)")
    suggest.add_argument("--json", action="store_true", help="print a JSON summary")

    export = action(
        "export", "write labels (JSONL or CSV) or the vocabulary (JSON or CSV)",
        "Labels: one row per label with image_id, attribute, type, source, model, "
        "confidence and status. With --vocabulary: the project's vocabulary instead.",
        run_export,
    )
    export.add_argument("--format", choices=("jsonl", "csv", "json"), default="jsonl",
                        help="jsonl or csv for labels; json or csv for the vocabulary")
    export.add_argument("--vocabulary", action="store_true", help="export the vocabulary")
    export.add_argument("--out", type=Path, default=None, help="file to write (default: stdout)")

    imp = action(
        "import", "import a vocabulary (JSON or CSV) or labels (JSONL)",
        "A .jsonl file is read as labels, anything else as a vocabulary. The whole file is "
        "checked before anything is stored; errors name the file and the entry.", run_import,
    )
    imp.add_argument("file", type=Path, help="vocabulary .json/.csv or labels .jsonl")


def _open(args: argparse.Namespace):
    return open_project(args)


def _actor(args: argparse.Namespace) -> str:
    from studio.workspace import Workspace

    return args.user or Workspace().user_name


def run_extract(args: argparse.Namespace) -> int:
    from studio.attributes.extract import extract_from_text

    with _open(args) as project, TerminalProgress("Extracting attributes") as progress:
        summary = extract_from_text(project, _actor(args), progress=progress)
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        print(f"{summary['labels']:,} text labels on {summary['labelled_images']:,} of "
              f"{summary['images']:,} images ({summary['added']:,} new, "
              f"{summary['removed']:,} removed).")
    return 0


def run_suggest(args: argparse.Namespace) -> int:
    from studio.attributes.suggest import suggest_attributes
    from studio.settings import Settings

    settings = Settings.load()
    model = args.model or settings.model
    device = args.device or settings.device
    if args.top < 1:
        raise StudioError("--top must be at least 1")
    with _open(args) as project, TerminalProgress(f"Suggesting with {model}") as progress:
        summary = suggest_attributes(project, _actor(args), model, device=device,
                                     top_n_per_image=args.top, progress=progress)
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        print(f"{summary['labels']:,} suggestions from {model} on {summary['images']:,} images "
              f"({summary['added']:,} new, {summary['removed']:,} removed).")
    return 0


def run_export(args: argparse.Namespace) -> int:
    from studio.attributes.labels_io import export_labels
    from studio.attributes.vocabulary_io import export_vocabulary

    if args.vocabulary:
        if args.format == "jsonl":
            args.format = "json"
        if args.out is None:
            raise StudioError("--vocabulary needs --out FILE (.json or .csv)")
        out = args.out.with_suffix("." + args.format) if not args.out.suffix else args.out
        with _open(args) as project:
            count = export_vocabulary(project, out)
        print(f"Wrote {count:,} attributes to {out}.", file=sys.stderr)
        return 0
    if args.format == "json":
        raise StudioError("labels are exported as jsonl or csv; json is for --vocabulary")
    with _open(args) as project:
        if args.out is None:
            try:
                count = export_labels(project, sys.stdout, args.format)
            except BrokenPipeError:  # e.g. piped into `head`
                sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - lives until exit
                return 0
        else:
            try:
                with args.out.open("w", encoding="utf-8", newline="") as stream:
                    count = export_labels(project, stream, args.format)
            except OSError as error:
                raise StudioError(f"{args.out}: cannot write the file ({error})") from error
    print(f"Wrote {count:,} labels.", file=sys.stderr)
    return 0


def run_import(args: argparse.Namespace) -> int:
    from studio.attributes.labels_io import import_labels
    from studio.attributes.vocabulary_io import import_vocabulary

    with _open(args) as project:
        if args.file.suffix.lower() == ".jsonl":
            result = import_labels(project, _actor(args), args.file)
            print(f"Read {result['lines']:,} labels; {result['changed']:,} rows changed, "
                  f"{result['attributes_added']:,} attributes added.")
        else:
            added, updated = import_vocabulary(project, _actor(args), args.file)
            print(f"Vocabulary: {added:,} attributes added, {updated:,} updated.")
    return 0
