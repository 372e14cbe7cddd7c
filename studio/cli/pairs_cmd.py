"""``cir-studio pairs mine``: pair targets with references by TF-IDF or embeddings."""

from __future__ import annotations

import argparse
import json

from studio.cli.progress import TerminalProgress
from studio.cli.project_arg import add_project_argument, cli_user, open_project


def register(subparsers: argparse._SubParsersAction) -> None:
    command = subparsers.add_parser("pairs", help="mine image pairs")
    actions = command.add_subparsers(dest="pairs_command", metavar="ACTION", required=True)
    mine = actions.add_parser(
        "mine",
        help="pair target images with a reference of the same category and split",
        description="tfidf: the reference whose product title shares the most informative "
        "words (Fashion IQ's method); embedding: the nearest image in the index.",
    )
    add_project_argument(mine)
    mine.add_argument(
        "--method",
        choices=("tfidf", "embedding"),
        default="tfidf",
        help="how to choose references (tfidf)",
    )
    mine.add_argument("--count", type=int, required=True, help="how many new pairs, in all")
    mine.add_argument("--category", help="only this category")
    mine.add_argument("--split", help="only this split")
    mine.add_argument(
        "--model",
        dest="mine_model",
        help="embedding model (default: the one in Settings, else demo)",
    )
    mine.add_argument("--device", dest="mine_device", help="cpu, cuda, mps or auto")
    mine.add_argument(
        "--mirrored",
        action="store_true",
        help="also mine B→A when A→B exists (off: two images are paired once)",
    )
    mine.add_argument("--json", action="store_true", help="print a JSON summary")
    mine.set_defaults(func=run_mine)


def run_mine(args: argparse.Namespace) -> int:
    from studio.pairs.mining import mine_pairs
    from studio.settings import Settings

    settings = Settings.load()
    model = args.mine_model or args.model or settings.model
    device = args.mine_device or args.device or settings.device
    with open_project(args) as project, TerminalProgress("Mining pairs") as progress:
        report = mine_pairs(
            project,
            args.method,
            args.count,
            category=args.category,
            split=args.split,
            actor=cli_user(),
            model=model,
            device=device,
            mirrored=args.mirrored,
            progress=progress,
        )
    if args.json:
        print(json.dumps(report.to_dict(), sort_keys=True))
    else:
        groups = ", ".join(f"{k} {v}" for k, v in report.per_group.items())
        print(f"Added {report.added} {report.method} pairs{f' ({groups})' if groups else ''}.")
    return 0
