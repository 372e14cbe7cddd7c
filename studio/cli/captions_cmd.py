"""``cir-studio captions rank|rank-settings``: does each caption find its target?"""

from __future__ import annotations

import argparse
import json

from studio.cli.progress import TerminalProgress
from studio.cli.project_arg import add_project_argument, cli_user, open_project


def register(subparsers: argparse._SubParsersAction) -> None:
    command = subparsers.add_parser(
        "captions", help="rank captions by whether they find the target"
    )
    actions = command.add_subparsers(dest="captions_command", metavar="ACTION", required=True)

    rank = actions.add_parser(
        "rank",
        help="rank every submitted caption's target and keep the ranks",
        description="For every submitted or accepted caption, search the pair's gallery with "
        "the reference image + the caption (the project's model and strategy unless given) "
        "and keep the target's rank with the caption. Needs the model's index "
        "('cir-studio index build').",
    )
    add_project_argument(rank)
    rank.add_argument(
        "--model",
        dest="sub_model",
        metavar="NAME",
        help="embedding model (default: the project's rank model, else demo)",
    )
    rank.add_argument(
        "--strategy", metavar="S", help="composition strategy: history (default), sum, text, image"
    )
    rank.add_argument(
        "--source", metavar="S", help="only pairs from this source (fashioniq, cirr, tfidf, …)"
    )
    rank.add_argument("--device", dest="sub_device", metavar="D", help="auto, cpu, cuda or mps")
    rank.add_argument(
        "--json",
        action="store_true",
        help="print per-caption ranks, a summary and per-annotator figures",
    )
    rank.set_defaults(func=run_rank)

    settings = actions.add_parser(
        "rank-settings",
        help="show or set the project's rank model, strategy and flag threshold",
        description="The model and strategy that rank captions in the Captions pane and "
        "'captions rank', and the rank above which a caption is flagged 'does not find the "
        "target'. Without options it prints them.",
    )
    add_project_argument(settings)
    settings.add_argument("--model", dest="sub_model", metavar="NAME", help="rank model")
    settings.add_argument("--strategy", metavar="S", help="composition strategy")
    settings.add_argument(
        "--threshold",
        type=int,
        metavar="N",
        help="flag captions whose target ranks above N (default 50)",
    )
    settings.set_defaults(func=run_settings)


def run_rank(args: argparse.Namespace) -> int:
    from studio.captions.ranks import rank_captions

    device = getattr(args, "sub_device", None) or getattr(args, "device", None)
    with open_project(args) as project, TerminalProgress("Ranking captions") as progress:
        report = rank_captions(
            project,
            getattr(args, "sub_model", None),
            args.strategy,
            args.source,
            None if device in (None, "auto") else device,
            progress=progress,
        )
    if args.json:
        print(json.dumps(report, sort_keys=True, ensure_ascii=False))
        return 0
    summary = report["summary"]
    print(f"{summary['captions']} captions ranked with {report['model']} · {report['strategy']}")
    print(
        f"median rank {summary['median_rank']}, top 10: {summary['top10']:.1%}, "
        f"top 50: {summary['top50']:.1%}, target not in gallery: {summary['not_found']}"
    )
    for name, figures in report["annotators"].items():
        print(
            f"  {name}: {figures['captions']} captions, median rank {figures['median_rank']}, "
            f"top 10: {figures['top10']:.1%}"
        )
    return 0


def run_settings(args: argparse.Namespace) -> int:
    from studio.captions.ranking import RankSettings, rank_settings, save_rank_settings

    with open_project(args) as project:
        current = rank_settings(project)
        model = getattr(args, "sub_model", None)
        if model or args.strategy or args.threshold is not None:
            current = RankSettings(
                model or current.model,
                args.strategy or current.strategy,
                current.threshold if args.threshold is None else args.threshold,
            )
            save_rank_settings(project, current, cli_user())
    print(json.dumps(current.__dict__, sort_keys=True))
    return 0
