"""``cir-studio import NAME``: validate a file or folder of one format, then import it.

The formats and their options come from ``studio.importers.registry`` (the declarations in
``studio/importers/formats/``); File → Import in the window is built from the same list.
"""

from __future__ import annotations

import argparse
import json
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from studio.cli.progress import TerminalProgress
from studio.cli.project_arg import add_project_argument, cli_user, open_project, project_for_import
from studio.importers.registry import ImportFormat, Option, import_formats
from studio.store import Project

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
    """One declared option as an argparse argument (``dest``: ``option.argument``)."""
    if option.flag is None:
        parser.add_argument(option.argument, type=CLI_TYPES[option.kind], help=option.help,
                            metavar=option.metavar or option.name.upper())
        return
    if option.kind == "bool":
        parser.add_argument(option.flag, dest=option.argument, action="store_true",
                            help=option.help)
        return
    default = f" ({option.default})" if option.default not in (None, "") else ""
    parser.add_argument(option.flag, dest=option.argument, type=CLI_TYPES[option.kind],
                        default=option.default, metavar=option.metavar,
                        choices=option.choices or None, help=option.help + default)


def values_of(options: tuple[Option, ...], args: argparse.Namespace) -> dict[str, Any]:
    """The options' values; one the command did not set falls back to the same-named
    argument before the command (``cir-studio --model M export ranking …``)."""
    values = {}
    for option in options:
        value = getattr(args, option.argument)
        if value is None and option.argument != option.name:
            value = getattr(args, option.name, None)
        values[option.name] = value
    return values


def run_import(args: argparse.Namespace) -> int:
    fmt: ImportFormat = import_formats()[args.import_kind]
    values = values_of(fmt.options, args)
    opened: AbstractContextManager[Project]
    if fmt.image_root is None:
        opened = open_project(args)
    else:
        given = getattr(args, "sub_project", None) or getattr(args, "project", None)
        opened = project_for_import(args, fmt.image_root(values, Path(given) if given else None))
    with opened as project:
        if fmt.terminal_progress:
            with TerminalProgress(f"Importing {fmt.name}") as bar:
                report = fmt.run(project, values, actor=cli_user(), progress=bar)
        else:
            report = fmt.run(project, values, actor=cli_user())
    outcome = fmt.outcome(report)
    if args.json:
        print(json.dumps(outcome.data, sort_keys=True, default=str))
        return 0
    for line in outcome.terminal:
        print(line)
    return 0


def _sentence(text: str) -> str:
    return text[0].upper() + text[1:] + "."
