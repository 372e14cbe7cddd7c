"""``cir-studio captions read|rank|rank-settings``: read relative captions into requests, and
check whether each caption finds its target."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from studio.cli.progress import TerminalProgress
from studio.cli.project_arg import add_project_argument, cli_user, open_project
from studio.errors import StudioError


def register(subparsers: argparse._SubParsersAction) -> None:
    captions = subparsers.add_parser(
        "captions",
        help="read relative captions into requests; rank captions by whether they find the target",
        description="Tools for relative captions.",
    )
    sub = captions.add_subparsers(dest="captions_command", metavar="ACTION", required=True)
    _register_read(sub)
    _register_rank(sub)


def _register_read(sub: argparse._SubParsersAction) -> None:
    read = sub.add_parser(
        "read",
        help="print the requests {facet, op, value} a caption makes",
        description="Read relative captions into requests {facet, op, value} following "
        "CAPTION_READING.md: is/not on colour, pattern, sleeve, neckline, length, fit and "
        "graphic, more/less on length, sleeve, lightness, fit and colorful.",
    )
    read.add_argument("texts", nargs="*", metavar="TEXT", help="captions to read")
    read.add_argument(
        "--file", type=Path, help="a text file with one caption per line ('-' for standard input)"
    )
    read.add_argument(
        "--json",
        action="store_true",
        help='one {"text": ..., "requests": [...]} JSON object per line',
    )
    read.set_defaults(func=run_read)


def _register_rank(sub: argparse._SubParsersAction) -> None:
    rank = sub.add_parser(
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

    settings = sub.add_parser(
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


def _captions(args: argparse.Namespace) -> list[str]:
    if args.file is not None and args.texts:
        raise StudioError("Give captions as arguments or with --file, not both.")
    if args.file is None:
        if not args.texts:
            raise StudioError("Give at least one caption, or --file with one caption per line.")
        return list(args.texts)
    if str(args.file) == "-":
        return sys.stdin.read().splitlines()
    try:
        return args.file.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise StudioError(f"Cannot read captions from {args.file}: {error}") from None


def run_read(args: argparse.Namespace) -> int:
    from studio.language.reader import read_caption

    for text in _captions(args):
        requests = read_caption(text)
        if args.json:
            print(json.dumps({"text": text, "requests": [r.to_json() for r in requests]}))
        else:
            said = "; ".join(r.describe() for r in requests) or "(nothing the schema reads)"
            print(f"{text}\n  -> {said}")
    return 0


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
