"""``cir-studio captions read``: what the caption reader makes of relative captions."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from studio.errors import StudioError


def register(subparsers: argparse._SubParsersAction) -> None:
    captions = subparsers.add_parser(
        "captions",
        help="read relative captions into requests",
        description="Tools for relative captions.",
    )
    sub = captions.add_subparsers(dest="captions_command", metavar="ACTION", required=True)
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
    from studio.captions.reading import read_caption

    for text in _captions(args):
        requests = read_caption(text)
        if args.json:
            print(json.dumps({"text": text, "requests": [r.to_json() for r in requests]}))
        else:
            said = "; ".join(r.describe() for r in requests) or "(nothing the schema reads)"
            print(f"{text}\n  -> {said}")
    return 0
