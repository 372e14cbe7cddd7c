"""``cir-studio demo create DIR``: build the offline demo catalog and its project."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from studio.cli.progress import TerminalProgress


def register(subparsers: argparse._SubParsersAction) -> None:
    demo = subparsers.add_parser("demo", help="the generated demo catalog and project")
    actions = demo.add_subparsers(dest="demo_command", metavar="ACTION", required=True)
    create = actions.add_parser(
        "create",
        help="generate the demo catalog (images + catalog.jsonl) and its project in DIR",
        description="Generate, offline and deterministically, a fashion-like catalog of "
        "dresses, shirts and tops with known attributes, and a project over it.",
    )
    create.add_argument("dir", type=Path, help="folder to create (must be empty or absent)")
    create.add_argument("--images", type=int, default=2000, help="number of images (2000)")
    create.add_argument("--seed", type=int, default=0, help="random seed (0)")
    create.add_argument("--pairs", type=int, default=500,
                        help="TF-IDF pairs to mine for captioning (500; 0 for none)")
    create.add_argument("--outfits", type=int, default=300,
                        help="generated outfit pictures with garments and parts (300; 0 for "
                        "none)")
    create.add_argument("--json", action="store_true", help="print a JSON summary")
    create.set_defaults(func=run_create)


def run_create(args: argparse.Namespace) -> int:
    from studio.demo.project import create_demo_project

    with TerminalProgress("Drawing catalog") as progress:
        summary = create_demo_project(args.dir, args.images, args.seed, pairs=args.pairs,
                                      outfits=args.outfits, progress=progress)
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        print(
            f"Demo project with {summary['images']} images, {summary['pairs']} pairs and "
            f"{summary['attribute_labels']} attribute labels from the product text and "
            f"{summary['outfits']} outfit pictures created at "
            f"{summary['project']} "
            f"in {summary['seconds']:.1f} s."
        )
    return 0
