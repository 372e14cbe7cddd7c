"""``--project`` for subcommands, and who the command line acts as."""

from __future__ import annotations

import argparse
import getpass
from pathlib import Path

from studio.errors import ProjectError
from studio.settings import Settings
from studio.store import Project, resolve_project_path


def add_project_argument(
    parser: argparse.ArgumentParser, help_text: str = "the project (its .cirdb file or folder)"
) -> None:
    # A separate ``dest``: the top-level ``--project`` would otherwise be overwritten with
    # this parser's default, and ``cir-studio --project P import …`` should work too.
    parser.add_argument("--project", dest="sub_project", metavar="PATH", help=help_text)


def open_project(args: argparse.Namespace) -> Project:
    path = getattr(args, "sub_project", None) or getattr(args, "project", None)
    if not path:
        raise ProjectError("Say which project with --project PATH.")
    return Project.open(Path(path))


def cli_user() -> str:
    """The name recorded with edits: the configured one, else the login name."""
    name = Settings.load().user_name
    if name:
        return name
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return "cli"


def open_or_create_project(args: argparse.Namespace, image_root: Path) -> Project:
    """Open the project, or create it with ``image_root`` when the path does not exist yet."""
    path = getattr(args, "sub_project", None) or getattr(args, "project", None)
    if path and not resolve_project_path(Path(path)).exists():
        return Project.create(Path(path), image_root=image_root)
    return open_project(args)
