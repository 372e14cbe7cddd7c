"""``cir-studio project copy SRC DST``, ``project check A B`` and ``project upgrade P``.

A project location is a path (SQLite: the ``.cirdb`` file or its folder) or a
``postgresql://`` URL. ``copy`` moves a whole project between engines; ``check`` compares
two projects record by record and exits 1 when they differ; ``upgrade`` brings a project
to the newest schema now (opening it in the studio does the same), printing from and to.
"""

from __future__ import annotations

import argparse

MAX_SHOWN = 50


def register(subparsers: argparse._SubParsersAction) -> None:
    project = subparsers.add_parser(
        "project",
        help="copy a project between SQLite and PostgreSQL, compare two, or upgrade one",
    )
    actions = project.add_subparsers(dest="project_command", metavar="ACTION", required=True)
    copy = actions.add_parser(
        "copy",
        help="copy every table of SRC into a new project DST (paths or postgresql:// URLs)",
        description="Copy a whole project (every table, the audit log, identities, ranks, "
        "runs) from SRC to DST. DST must not exist (a file path) or be an empty database "
        "(a postgresql:// URL). Interrupted, it leaves nothing at DST.",
    )
    copy.add_argument("source", metavar="SRC", help="the project: .cirdb path, folder or URL")
    copy.add_argument("destination", metavar="DST", help="where the copy goes: path or URL")
    copy.set_defaults(func=run_copy)
    check = actions.add_parser(
        "check",
        help="compare two projects record by record; exit 1 when they differ",
        description="Compare every table of two projects by primary key and print the "
        "differences (machine-local settings such as the cache folder are not compared).",
    )
    check.add_argument("first", metavar="SRC", help="a project: path or URL")
    check.add_argument("second", metavar="DST", help="another project: path or URL")
    check.set_defaults(func=run_check)
    upgrade = actions.add_parser(
        "upgrade",
        help="bring a project to the newest schema now (a file is backed up first)",
        description="Run the schema migrations a project needs, as opening it does: a "
        "file is copied beside itself first (NAME.schemaN.DATE.bak.cirdb). Prints the "
        "schema before and after; a project already current is left untouched.",
    )
    upgrade.add_argument("location", metavar="P", help="the project: .cirdb path, folder or URL")
    upgrade.set_defaults(func=run_upgrade)


def run_copy(args: argparse.Namespace) -> int:
    from studio.cli.progress import TerminalProgress
    from studio.store.pg_database import display
    from studio.store.transfer import copy_project

    with TerminalProgress("copy") as progress:
        counts = copy_project(args.source, args.destination, progress)
    rows = sum(counts.values())
    where = display(args.destination) if "://" in args.destination else args.destination
    print(f"Copied {rows} rows in {len(counts)} tables to {where}.")
    return 0


def run_check(args: argparse.Namespace) -> int:
    from studio.store.transfer import check_projects

    differences = check_projects(args.first, args.second)
    if not differences:
        print("The projects are identical, record by record.")
        return 0
    for difference in differences[:MAX_SHOWN]:
        print(difference)
    if len(differences) > MAX_SHOWN:
        print(f"… and {len(differences) - MAX_SHOWN} more.")
    print(f"{len(differences)} differences.")
    return 1


def run_upgrade(args: argparse.Namespace) -> int:
    from studio.store.schema_upgrade import upgrade_project

    print(upgrade_project(args.location).message())
    return 0
