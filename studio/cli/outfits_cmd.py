"""``cir-studio outfits suggest|review``: model help on outfit annotations (issue #25).

Their import and export are declared with every other format, in
``studio/importers/formats/`` and ``studio/exporters/formats/``."""

from __future__ import annotations

import argparse
import json

from studio.cli.progress import TerminalProgress
from studio.cli.project_arg import add_project_argument, cli_user, open_project


def register(subparsers: argparse._SubParsersAction) -> None:
    """``cir-studio outfits suggest``: model help on outfit regions."""
    command = subparsers.add_parser("outfits", help="model help on outfit annotations")
    actions = command.add_subparsers(dest="outfits_command", metavar="ACTION", required=True)
    suggest = actions.add_parser(
        "suggest",
        help="zero-shot attribute suggestions for every garment and part",
        description="Score the ontology's attributes on every region's crop with the "
        "embedding model and keep the top K per region as suggestions to review; a "
        "person's decision is never changed.",
    )
    add_project_argument(suggest)
    suggest.add_argument("--model", dest="suggest_model",
                         help="embedding model (default: the one in Settings)")
    suggest.add_argument("--device", dest="suggest_device", help="cpu, cuda, mps or auto")
    suggest.add_argument("--top-k", type=int, default=5, help="suggestions per region (5)")
    suggest.add_argument("--json", action="store_true", help="print a JSON summary")
    suggest.set_defaults(func=run_suggest)
    review = actions.add_parser(
        "review",
        help="accept or reject one attribute's undecided suggestions on every region",
        description="Bulk review: decide every undecided model suggestion of one attribute "
        "at once (one audited change).",
    )
    add_project_argument(review)
    review.add_argument("--attribute", required=True,
                        help="the attribute, as 'name' or 'name — supercategory'")
    decision = review.add_mutually_exclusive_group(required=True)
    decision.add_argument("--accept", action="store_true", help="accept them")
    decision.add_argument("--reject", action="store_true", help="reject them")
    review.add_argument("--from-model", dest="review_model",
                        help="only this model's suggestions (default: any model)")
    review.set_defaults(func=run_review)


def run_suggest(args: argparse.Namespace) -> int:
    from studio.outfits.suggest import suggest_region_attributes
    from studio.settings import Settings

    settings = Settings.load()
    model = args.suggest_model or args.model or settings.model
    device = args.suggest_device or args.device or settings.device
    with open_project(args) as project, TerminalProgress("Suggesting") as progress:
        summary = suggest_region_attributes(project, cli_user(), model, device=device,
                                            top_k=args.top_k, progress=progress)
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        print(f"{summary['labels']} suggestions on {summary['regions']} regions from "
              f"{summary['model']} ({summary['replaced']} earlier undecided ones replaced)")
    return 0


def run_review(args: argparse.Namespace) -> int:
    from studio.errors import StudioError
    from studio.outfits.controller import lookup
    from studio.outfits.ontology import load_ontology
    from studio.outfits.suggest import review_suggestions
    from studio.store.repos.outfits import undecided_suggestions

    status = "accepted" if args.accept else "rejected"
    with open_project(args) as project:
        entry = lookup(load_ontology(project), "attribute", args.attribute)
        if entry is None:
            raise StudioError(f"{args.attribute!r} is not one attribute of the outfit ontology "
                              "(add ' — supercategory' when the name is ambiguous).")
        regions = undecided_suggestions(project, entry.id, args.review_model)
        count = review_suggestions(project, cli_user(), entry.id, regions, status) if regions \
            else 0
    print(f"{status.capitalize()} {entry.name!r} on {count} regions.")
    return 0
