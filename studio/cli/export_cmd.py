"""``cir-studio export NAME``: write the project's pairs, captions, outfits or transactions.

The formats and their options come from ``studio.exporters.registry`` (the declarations in
``studio/exporters/formats/``); File → Export in the window is built from the same list.
"""

from __future__ import annotations

import argparse
import json

from studio.cli.import_cmd import add_option, values_of
from studio.cli.progress import TerminalProgress
from studio.cli.project_arg import add_project_argument, open_project
from studio.exporters.registry import export_formats


def register(subparsers: argparse._SubParsersAction) -> None:
    formats = export_formats()
    command = subparsers.add_parser(
        "export",
        help="export pairs and captions, outfits or transactions: " + ", ".join(formats),
        description="Submitted and accepted captions are exported; drafts never are. File → "
        "Export in the window offers the same formats.",
    )
    kinds = command.add_subparsers(dest="export_kind", metavar="FORMAT", required=True)
    for fmt in formats.values():
        parser = kinds.add_parser(fmt.name, help=fmt.description,
                                  description=fmt.details or fmt.description[0].upper()
                                  + fmt.description[1:] + ".")
        for option in fmt.options:
            add_option(parser, option)
        add_project_argument(parser)
        parser.add_argument("--json", action="store_true", help="print a JSON summary")
        parser.set_defaults(func=run_export)


def run_export(args: argparse.Namespace) -> int:
    fmt = export_formats()[args.export_kind]
    values = values_of(fmt.options, args)
    with open_project(args) as project, TerminalProgress(f"Exporting {fmt.name}") as bar:
        summary = fmt.run(project, values, progress=bar)
    outcome = fmt.outcome(summary)
    if args.json:
        print(json.dumps(outcome.data, sort_keys=True, default=str))
        return 0
    for line in outcome.terminal:
        print(line)
    return 0
