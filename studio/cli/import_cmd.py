"""``cir-studio import NAME``: validate a file or folder of one format, then import it.

The formats and their options come from ``studio.importers.registry`` (the declarations in
``studio/importers/formats/``); File → Import in the window is built from the same list.
"""

from __future__ import annotations

import argparse
import json
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from studio.cli.progress import TerminalProgress
from studio.cli.project_arg import add_project_argument, cli_user, open_project, project_for_import
from studio.importers.registry import ImportFormat, Option, import_formats

NEW_PROJECT = ("the project (created, with the images as its image root, when the path does "
               "not exist)")
CLI_TYPES: dict[str, Any] = {"file": Path, "folder": Path, "path": Path, "int": int,
                             "text": str, "choice": str}


def register(subparsers: argparse._SubParsersAction) -> None:
    formats = import_formats()
    command = subparsers.add_parser(
        "import",
        help="import a dataset into a project: " + ", ".join(formats),
        description="Every file is validated first; a problem stops the import before "
        "anything is written, unless --skip-invalid is given (where the format has it). "
        "File → Import in the window offers the same formats.",
    )
    kinds = command.add_subparsers(dest="import_kind", metavar="FORMAT", required=True)
    for fmt in formats.values():
        parser = kinds.add_parser(fmt.name, help=fmt.description,
                                  description=fmt.details or _sentence(fmt.description))
        for option in fmt.options:
            add_option(parser, option)
        if fmt.image_root is None:
            add_project_argument(parser)
        elif fmt.name == "hf":
            add_project_argument(parser, "the project (created, with an images/ folder beside "
                                 "it as its image root, when the path does not exist)")
        else:
            add_project_argument(parser, NEW_PROJECT)
        parser.add_argument("--json", action="store_true", help="print the report as JSON")
        parser.set_defaults(func=run_import)


def add_option(parser: argparse.ArgumentParser, option: Option) -> None:
    """One declared option as an argparse argument (its ``dest`` is the option's name)."""
    if option.flag is None:
        parser.add_argument(option.name, type=CLI_TYPES[option.kind], help=option.help,
                            metavar=option.metavar or option.name.upper())
        return
    if option.kind == "bool":
        parser.add_argument(option.flag, dest=option.name, action="store_true",
                            help=option.help)
        return
    default = f" ({option.default})" if option.default not in (None, "") else ""
    parser.add_argument(option.flag, dest=option.name, type=CLI_TYPES[option.kind],
                        default=option.default, metavar=option.metavar,
                        choices=option.choices or None, help=option.help + default)


def values_of(options: tuple[Option, ...], args: argparse.Namespace) -> dict[str, Any]:
    return {option.name: getattr(args, option.name) for option in options}


def run_import(args: argparse.Namespace) -> int:
    fmt: ImportFormat = import_formats()[args.import_kind]
    values = values_of(fmt.options, args)
    if fmt.image_root is None:
        opened = open_project(args)
    else:
        given = getattr(args, "sub_project", None) or getattr(args, "project", None)
        opened = project_for_import(args, fmt.image_root(values, Path(given) if given else None))
    bar = TerminalProgress(f"Importing {fmt.name}") if fmt.terminal_progress else nullcontext()
    with opened as project, bar as progress:
        report = fmt.run(project, values, actor=cli_user(),
                         **({"progress": progress} if progress is not None else {}))
    outcome = fmt.outcome(report)
    if args.json:
        print(json.dumps(outcome.data, sort_keys=True, default=str))
        return 0
    for line in outcome.terminal:
        print(line)
    return 0


def _sentence(text: str) -> str:
    return text[0].upper() + text[1:] + "."
