"""``cir-studio transactions import|export|build|list``: multi-turn transactions on disk."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from studio.cli.progress import TerminalProgress
from studio.cli.project_arg import add_project_argument, cli_user, open_project


def register(subparsers: argparse._SubParsersAction) -> None:
    from studio.transactions.importer import FORMATS

    parser = subparsers.add_parser("transactions", help="import, export and build multi-turn "
                                   "transactions")
    actions = parser.add_subparsers(dest="transactions_command", metavar="ACTION", required=True)

    imp = actions.add_parser(
        "import", help="import FashionMT or multi-turn Fashion IQ JSON",
        description="Validate a transaction file, then import it in one step. A bad entry "
        "stops the import (nothing is written) unless --skip-invalid is given. Importing "
        "the same file twice adds nothing.")
    add_project_argument(imp)
    imp.add_argument("file", type=Path, help="the JSON file")
    imp.add_argument("--format", default="auto", choices=("auto", *FORMATS),
                     help="file format (auto: by the first entry's keys)")
    imp.add_argument("--dataset", help="dataset name (default: the file name without .json)")
    imp.add_argument("--skip-invalid", action="store_true",
                     help="import the valid entries and report the others")
    imp.add_argument("--id-from", choices=("stem", "path"), default="stem",
                     help="where ref/tarK are image paths (as the MAI authors' scripts write "
                     "them): the image id is the file stem (stem, default) or the path "
                     "relative to the image root (path); the export writes the paths back")
    imp.add_argument("--json", action="store_true", help="print a JSON summary")
    imp.set_defaults(func=run_import)

    exp = actions.add_parser("export", help="write transactions as FashionMT JSON",
                             description="Write transactions as a JSON list (FashionMT by "
                             "default), one dataset or all.")
    add_project_argument(exp)
    exp.add_argument("file", type=Path, help="the JSON file to write")
    exp.add_argument("--format", default="fashionmt", choices=FORMATS, help="file format")
    exp.add_argument("--dataset", help="only this dataset")
    exp.add_argument("--accepted-only", action="store_true",
                     help="leave out transactions with draft turns")
    exp.set_defaults(func=run_export)

    build = actions.add_parser(
        "build", help="draft transactions from similar catalog images",
        description="Pick N+1 similar images of one category by their attributes and draft "
        "each turn's text from their differences, with rollback and combination turns from "
        "turn 3 on. Turns are saved as drafts for an annotator to accept or edit.")
    add_project_argument(build)
    build.add_argument("--count", type=int, default=10, help="transactions to draft (10)")
    build.add_argument("--turns", type=int, default=3, help="turns per transaction (3)")
    build.add_argument("--category", help="only this category (default: each in turn)")
    build.add_argument("--seed", type=int, default=0, help="random seed (0)")
    build.add_argument("--retrospective", type=float, default=0.5, metavar="SHARE",
                       help="share of turns from turn 3 on drafted as rollback or combination")
    build.add_argument("--dataset", default="built", help="dataset name (built)")
    build.add_argument("--voice", choices=("learned", "catalog"), default="learned",
                       help="how drafts are worded: learned (annotators' own words, from the "
                       "shipped captioner) or catalog (fixed phrases) (learned)")
    build.add_argument("--json", action="store_true", help="print the drafts as JSON")
    build.set_defaults(func=run_build)

    listing = actions.add_parser("list", help="datasets with their transaction and turn counts")
    add_project_argument(listing)
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(func=run_list)


def run_import(args: argparse.Namespace) -> int:
    from studio.transactions.importer import import_transactions

    # No progress bar: validation is quick, and a refused file must print one line only.
    with open_project(args) as project:
        report = import_transactions(project, args.file, fmt=args.format, dataset=args.dataset,
                                     skip_invalid=args.skip_invalid, actor=cli_user(),
                                     id_from=args.id_from)
    if args.json:
        print(json.dumps(report.to_json(), sort_keys=True))
        return 0
    print(f"Imported {report.added} transactions into dataset {report.dataset!r} "
          f"({report.already_present} already present, {len(report.skipped)} skipped).")
    if report.mapping_note:
        print(report.mapping_note)
    for problem in report.skipped:
        print(f"  skipped: {problem}")
    return 0


def run_export(args: argparse.Namespace) -> int:
    from studio.transactions.importer import export_transactions

    with open_project(args) as project:
        count = export_transactions(project, args.file, fmt=args.format, dataset=args.dataset,
                                    accepted_only=args.accepted_only)
    print(f"Wrote {count} transactions to {args.file}.")
    return 0


def run_build(args: argparse.Namespace) -> int:
    from studio.quality.embedding_source import project_embedder
    from studio.transactions.builder import BuildOptions, build_and_save

    options = BuildOptions(count=args.count, turns=args.turns, category=args.category,
                           seed=args.seed, retrospective_share=args.retrospective,
                           dataset=args.dataset, voice=args.voice)
    with open_project(args) as project:
        # Ties between equally different images go to the most similar by embedding when
        # the project has cached vectors; otherwise to the seeded draw.
        embedder, reason = project_embedder(project, args.model, args.device)
        similarity = embedder.similarity if embedder is not None else None
        with TerminalProgress("Drafting") as progress:
            result, ids = build_and_save(project, options, cli_user(), similarity=similarity,
                                         progress=progress)
    if args.json:
        print(json.dumps({
            "added": len(ids),
            "attribute_source": result.attribute_source,
            "embedding_tie_break": similarity is not None,
            "notes": result.notes,
            "transactions": [
                {"key": t.external_key, "category": t.category, "images": list(t.image_ids),
                 "turns": [{"text": u.text, "reference_position": u.reference_position}
                           for u in t.turns]}
                for t in result.transactions
            ],
        }, sort_keys=True))
        return 0
    print(f"Drafted {len(result.transactions)} transactions ({len(ids)} new) from "
          f"{result.attribute_source}; accept or edit them in the Quality pane.")
    if similarity is None:
        print(f"  note: ties broken by the seeded draw, not by embeddings: {reason}")
    for note in result.notes:
        print(f"  note: {note}")
    return 0


def run_list(args: argparse.Namespace) -> int:
    from studio.transactions.store import dataset_counts

    with open_project(args) as project:
        counts = dataset_counts(project)
    if args.json:
        print(json.dumps({d: vars(c) for d, c in counts.items()}, sort_keys=True))
        return 0
    for dataset, c in counts.items():
        print(f"{dataset}\t{c.transactions} transactions\t{c.turns} turns\t"
              f"{c.draft_turns} drafts")
    if not counts:
        print("No transactions yet.")
    return 0
