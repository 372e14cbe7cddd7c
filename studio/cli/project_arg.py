"""``--project`` for subcommands, and who the command line acts as."""

from __future__ import annotations

import argparse
import getpass
import shutil
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from studio.errors import ProjectError
from studio.settings import Settings
from studio.store import Project, resolve_project_path
from studio.store.engines import is_url


def add_project_argument(
    parser: argparse.ArgumentParser, help_text: str = "the project (its .cirdb file or folder)"
) -> None:
    # A separate ``dest``: the top-level ``--project`` would otherwise be overwritten with
    # this parser's default, and ``cir-studio --project P import …`` should work too.
    # ``--demo`` likewise, both before the command (``cir-studio --demo stats``) and after.
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--project", dest="sub_project", metavar="PATH", help=help_text)
    where.add_argument(
        "--demo", dest="sub_demo", action="store_true",
        help="the demo project, created on first use",
    )


def project_path_of(args: argparse.Namespace) -> Path | str | None:
    """The project the command line names: ``--project PATH`` or ``--demo`` (drawn on
    first use, with a progress bar), before or after the command; None when neither."""
    path = getattr(args, "sub_project", None) or getattr(args, "project", None)
    if path:
        return str(path) if is_url(str(path)) else Path(path)  # postgresql://… stays a URL
    if getattr(args, "sub_demo", False) or getattr(args, "demo", False):
        from studio.cli.progress import TerminalProgress
        from studio.demo.project import ensure_demo_project
        from studio.settings import demo_project_dir

        with TerminalProgress("Creating the demo project (first use)") as progress:
            return ensure_demo_project(demo_project_dir(), progress=progress)
    return None


def open_project(args: argparse.Namespace) -> Project:
    path = project_path_of(args)
    if path is None:
        raise ProjectError("Say which project with --project PATH (or --demo).")
    return Project.open(path)


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
    if path and is_url(path):
        from studio.store.pg_project import holds_project

        if not holds_project(path):  # an empty database: the import makes the project
            return Project.create(path, image_root=image_root)
        return open_project(args)
    if path and not resolve_project_path(Path(path)).exists():
        return Project.create(Path(path), image_root=image_root)
    return open_project(args)


@contextmanager
def project_for_import(args: argparse.Namespace, image_root: Path) -> Iterator[Project]:
    """``open_or_create_project`` for an import: a project this call created is removed
    again (file, WAL, cache and the folder made for it) when the import is refused or
    fails, so "nothing was written" holds for the project file too."""
    path = getattr(args, "sub_project", None) or getattr(args, "project", None)
    target = resolve_project_path(Path(path)) if path and not is_url(path) else None
    new = target is not None and not target.exists()
    folder_existed = target is not None and target.parent.exists()
    project = open_or_create_project(args, image_root)
    try:
        yield project
    except BaseException:
        project.close()
        if new and target is not None:
            _remove_new_project(project, target.parent if not folder_existed else None)
        raise
    project.close()


def _remove_new_project(project: Project, made_folder: Path | None) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{project.path}{suffix}").unlink(missing_ok=True)
    shutil.rmtree(project.cache_dir, ignore_errors=True)
    if made_folder is not None:
        with suppress(OSError):
            made_folder.rmdir()  # only if empty: never anything the user put there
