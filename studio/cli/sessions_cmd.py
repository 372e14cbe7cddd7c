"""``cir-studio sessions list|show|export``: recorded retrieval sessions from the terminal."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from studio.cli.project_arg import add_project_argument, open_project
from studio.wording import count


def register(subparsers: argparse._SubParsersAction) -> None:
    command = subparsers.add_parser("sessions", help="recorded retrieval sessions")
    actions = command.add_subparsers(dest="sessions_command", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="every recorded session, newest first")
    add_project_argument(listing)
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(func=run_list)
    show = actions.add_parser("show", help="replay one session's turns as a timeline")
    add_project_argument(show)
    show.add_argument("id", type=int, help="the session id (see 'sessions list')")
    show.add_argument("--json", action="store_true", help="print the recorded turns as JSON")
    show.set_defaults(func=run_show)
    export = actions.add_parser(
        "export", help="write composed sessions as FashionMT-style transactions (JSON)"
    )
    add_project_argument(export)
    export.add_argument("ids", help="comma-separated session ids")
    export.add_argument("out", type=Path, help="the JSON file to write")
    export.set_defaults(func=run_export)


def run_list(args: argparse.Namespace) -> int:
    from studio.sessions.store import list_sessions

    with open_project(args) as project:
        sessions = list_sessions(project)
    if args.json:
        print(json.dumps(sessions))
    elif not sessions:
        print("No recorded sessions yet: run one in the Retrieval pane.")
    for row in [] if args.json else sessions:
        target = f" target {row['target_id']}" if row["target_id"] else ""
        print(f"{row['id']:>4}  {row['created_at'][:19]}  {row['mode']:<8} {row['strategy']:<8} "
              f"{row['turns']} turns{target}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    from studio.sessions.store import load_session

    with open_project(args) as project:
        recorded = load_session(project, args.id)
    if args.json:
        print(json.dumps(recorded.__dict__, default=str))
        return 0
    print(f"Session {recorded.id}: {recorded.mode}, strategy {recorded.strategy}, model "
          f"{recorded.model}" + (f", target {recorded.target_id}" if recorded.target_id else ""))
    for turn in recorded.turns:
        rank = "" if turn["target_rank"] is None else f"  → target rank {turn['target_rank']}"
        text = turn["text"] if turn["question"] is None else f"{turn['question']} {turn['answer']}"
        top = ", ".join(hit[0] for hit in turn["results"][:3])
        reference = f" ref {turn['reference_id']}" if turn["reference_id"] else ""
        print(f"  turn {turn['turn_index']} ({turn['kind']}){reference}: {text}{rank}\n"
              f"      top: {top}")
    return 0


def run_export(args: argparse.Namespace) -> int:
    from studio.errors import StudioError
    from studio.sessions.store import session_transaction
    from studio.simulation.outputs import write_json
    from studio.transactions.fashionmt import to_entry

    try:
        ids = [int(part) for part in args.ids.split(",")]
    except ValueError:
        raise StudioError("Give session ids as numbers, e.g. 3 or 3,4,7.") from None
    with open_project(args) as project:
        entries = [to_entry(session_transaction(project, session_id)) for session_id in ids]
    write_json(args.out, entries)
    print(f"Wrote {count(len(entries), 'transaction')} to {args.out}.")
    return 0
