"""``cir-studio import fashioniq|cirr|folder``: validate a dataset, then import it."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from studio.cli import outfits_cmd
from studio.cli.progress import TerminalProgress
from studio.cli.project_arg import add_project_argument, cli_user, project_for_import

LISTED = 10


def register(subparsers: argparse._SubParsersAction) -> None:
    command = subparsers.add_parser(
        "import",
        help="import Fashion IQ, CIRR, ChatIR, Fashionpedia, FashionX or a folder of images "
        "into a project",
        description="Every file is validated first; a problem stops the import before "
        "anything is written, unless --skip-invalid is given.",
    )
    kinds = command.add_subparsers(dest="import_kind", metavar="FORMAT", required=True)
    fashioniq = kinds.add_parser(
        "fashioniq",
        help="captions/cap.CAT.SPLIT.json and image_splits/split.CAT.SPLIT.json",
        description="Import Fashion IQ: pairs with their two captions, and the gallery of "
        "each category and split. Missing image files are counted and listed.",
    )
    cirr = kinds.add_parser(
        "cirr",
        help="captions/cap.rc2.SPLIT.json and image_splits/split.rc2.SPLIT.json",
        description="Import CIRR: pairs with their caption, image sets and soft targets.",
    )
    circo = kinds.add_parser(
        "circo",
        help="CIRCO: annotations/SPLIT.json and the COCO 2017 unlabeled images",
        description="Import CIRCO: every query as its file has it (reference, relative "
        "caption, shared concept, named target, all ground truths, semantic aspects; the "
        "test split without targets), and the gallery of the COCO unlabeled images found in "
        "--images (DIR/unlabeled2017/ followed by the 12-digit image id and .jpg). Images the queries name but the folder "
        "lacks are counted as missing.",
    )
    circo.add_argument("root", type=Path, help="the CIRCO folder (holds annotations/)")
    circo.add_argument(
        "--images",
        type=Path,
        metavar="DIR",
        help="the COCO unlabeled folder holding unlabeled2017/ (default: "
        "ROOT/COCO2017_unlabeled)",
    )
    for parser in (fashioniq, cirr):
        parser.add_argument(
            "root", type=Path, help="the dataset folder (holds captions/ and image_splits/)"
        )
        parser.add_argument(
            "--images",
            type=Path,
            metavar="DIR",
            help="folder of the image files (default: ROOT/images for Fashion "
            "IQ, ROOT/img_raw for CIRR, else the project's image root)",
        )
    folder = kinds.add_parser(
        "folder",
        help="a folder of images with optional product metadata",
        description="Import every image below a folder (hashing each), with metadata from a "
        "CSV, JSON or JSON Lines file (id, title, description, category, split).",
    )
    folder.add_argument("root", type=Path, help="the folder of images")
    folder.add_argument(
        "--metadata",
        type=Path,
        metavar="FILE",
        help="metadata file (default: metadata.csv/.json/.jsonl in the folder)",
    )
    chatir = kinds.add_parser(
        "chatir",
        help="ChatIR: dialogues/NAME.json (one per questioner) and "
        "ChatIR_Protocol/Search_Space_*.json",
        description="Import ChatIR's protocol files: every dialogue file (dataset = its file "
        "name) as recorded chat dialogs, and the search space as the gallery. Image paths "
        "are relative to --images (COCO's layout).",
    )
    chatir.add_argument("root", type=Path, help="the folder holding dialogues/ and "
                        "ChatIR_Protocol/")
    chatir.add_argument("--images", type=Path, metavar="DIR",
                        help="the folder the image paths start in (default: the project's "
                        "image root)")
    hf = kinds.add_parser(
        "hf",
        help="a Hugging Face dataset folder written by 'export hf' (Parquet)",
        description="Import triplets (pairs with their captions, authors, statuses and "
        "ground truths), sessions (multi-turn transactions) and galleries from a folder "
        "written by 'cir-studio export hf'. Embedded pictures are written under the "
        "project's image root at their recorded paths (never over an existing file).",
    )
    hf.add_argument("root", type=Path, help="the exported folder")
    add_project_argument(hf, "the project (created, with an images/ folder beside it as "
                         "its image root, when the path does not exist)")
    hf.add_argument("--json", action="store_true", help="print the report as JSON")
    hf.set_defaults(func=run_import_hf)
    for parser in (fashioniq, cirr, folder, chatir, circo):
        add_project_argument(
            parser,
            "the project (created, with the images as its image "
            "root, when the path does not exist)",
        )
        parser.add_argument(
            "--skip-invalid",
            action="store_true",
            help="import the valid entries and report the rest",
        )
        parser.add_argument("--json", action="store_true", help="print the report as JSON")
        parser.set_defaults(func=run_import)
    outfits_cmd.register_imports(kinds)


def run_import(args: argparse.Namespace) -> int:
    from studio.importers import import_cirr, import_fashioniq, import_folder

    with project_for_import(args, _image_root(args)) as project:
        options = {"skip_invalid": args.skip_invalid, "actor": cli_user()}
        with TerminalProgress(f"Importing {args.import_kind}") as progress:
            if args.import_kind == "chatir":
                from studio.chatir.importer import import_chatir
                from studio.cli.chatir_cmd import print_import_report

                chat = import_chatir(project, args.root, args.images, progress=progress,
                                     **options)
            elif args.import_kind == "fashioniq":
                report = import_fashioniq(
                    project, args.root, args.images, progress=progress, **options
                )
            elif args.import_kind == "circo":
                from studio.importers.circo import import_circo

                report = import_circo(project, args.root, args.images, progress=progress,
                                      **options)
            elif args.import_kind == "cirr":
                report = import_cirr(project, args.root, args.images, progress=progress, **options)
            else:
                report = import_folder(
                    project, args.root, args.metadata, progress=progress, **options
                )
    if args.import_kind == "chatir":
        print_import_report(chat, args.json)
        return 0
    if args.json:
        print(json.dumps(report.to_dict(), sort_keys=True))
        return 0
    for (category, split), counts in sorted(report.groups.items()):
        print(
            f"{category or '(no category)'}/{split or '(no split)'}: "
            f"{counts['entries']} entries, {counts['captions']} captions, "
            f"{counts['gallery']} gallery images, {counts['missing']} missing image files"
        )
    print(
        f"Added {report.images_added} images, {report.pairs_added} pairs and "
        f"{report.captions_added} captions."
    )
    if report.missing_images:
        shown = ", ".join(report.missing_images[:LISTED])
        more = " …" if len(report.missing_images) > LISTED else ""
        print(f"{len(report.missing_images)} image files are missing: {shown}{more}")
    if report.unreadable_images:
        unreadable = report.unreadable_images
        shown = ", ".join(unreadable[:LISTED]) + (" …" if len(unreadable) > LISTED else "")
        print(f"{len(unreadable)} pictures could not be read (broken, or too large to "
              f"decode); they are in the project without colours or vectors: {shown}")
    if report.skipped_files:
        print(f"Skipped {len(report.skipped_files)} files (not read):")
        for problem in report.skipped_files[:LISTED]:
            print(f"  {problem}")
        if len(report.skipped_files) > LISTED:
            print(f"  … and {len(report.skipped_files) - LISTED} more (--json lists them all)")
    if report.problems:
        print(f"Skipped {report.skipped} invalid entries ({len(report.problems)} problems):")
        for problem in report.problems[:LISTED]:
            print(f"  {problem}")
        if len(report.problems) > LISTED:
            print(f"  … and {len(report.problems) - LISTED} more (--json lists them all)")
    return 0


def run_import_hf(args: argparse.Namespace) -> int:
    from studio.hf.importer import import_hf
    from studio.store import resolve_project_path

    where = getattr(args, "sub_project", None) or getattr(args, "project", None) or "."
    pictures = resolve_project_path(Path(where)).parent / "images"
    with project_for_import(args, pictures) as project, TerminalProgress("Importing hf") as bar:
        report = import_hf(project, args.root, actor=cli_user(), progress=bar)
    if args.json:
        print(json.dumps(report.to_dict(), sort_keys=True))
        return 0
    print(f"Added {report.images_added} images ({report.pictures_written} pictures written), "
          f"{report.pairs_added} pairs, {report.captions_added} captions and "
          f"{report.transactions_added} transactions.")
    if report.missing_images:
        print(f"{len(report.missing_images)} images have no picture: "
              + ", ".join(report.missing_images[:LISTED]))
    return 0


def _image_root(args: argparse.Namespace) -> Path:
    """Where a project created by this import keeps its images."""
    if args.import_kind == "folder":
        return args.root
    if args.images:
        return args.images
    if args.import_kind in ("chatir", "circo"):
        return args.root
    default = args.root / ("images" if args.import_kind == "fashioniq" else "img_raw")
    return default if default.is_dir() else args.root
