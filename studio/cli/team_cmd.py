"""``cir-studio team assign|pack|merge|status``: hand work out, bring it back, see progress."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from studio.cli.project_arg import add_project_argument, cli_user, open_project
from studio.wording import count


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "team",
        help="team work on several machines: assign, pack, merge, status",
        description="A coordinator assigns work to named people, packs one work package "
        "(a project file) per person, and merges the packages back when they return.",
    )
    actions = parser.add_subparsers(dest="team_command", metavar="ACTION", required=True)

    assign = actions.add_parser(
        "assign",
        help="assign captions, reviews, attribute batches or ratings to people",
        description="Assigning again adds only what is still missing. Caption queues keep "
        "the project's 'N captions per pair, each from a different person' rule across "
        "people.",
    )
    assign.add_argument("what", choices=("captions", "reviews", "attributes", "ratings"))
    add_project_argument(assign)
    assign.add_argument("--people", required=True, help="comma-separated names")
    assign.add_argument("--category", help="only pairs or images of this category")
    assign.add_argument("--attribute", help="attributes: the batch of one attribute")
    assign.add_argument("--per-person", type=int, help="captions: at most this many pairs each")
    assign.add_argument("--per-pair", type=int, default=1, help="reviews: reviewers per pair (1)")
    assign.add_argument(
        "--share", type=float, default=0.2, help="ratings: share of each dataset's turns (0.2)"
    )
    assign.add_argument("--per-item", type=int, default=2, help="ratings: raters per item (2)")
    assign.add_argument("--sample", default="main", help="ratings: sample name (main)")
    assign.add_argument("--seed", type=int, default=0, help="ratings: random seed (0)")
    assign.add_argument("--json", action="store_true", help="print counts as JSON")
    assign.set_defaults(func=run_assign)

    pack = actions.add_parser(
        "pack",
        help="write one person's work package (a self-contained project file)",
        description="OUT is the package file, or a folder to write PROJECT-PERSON.cirdb in. "
        "The package holds the person's queues and nothing of others' hidden data (blind "
        "ratings). Images are found under the project's image root unless --with-images "
        "copies the ones the package needs beside it.",
    )
    add_project_argument(pack)
    pack.add_argument("--person", required=True, help="whose work")
    pack.add_argument("out", type=Path, metavar="OUT")
    pack.add_argument(
        "--with-images",
        action="store_true",
        help="copy the needed images into OUT's folder (OUT-NAME.images/)",
    )
    pack.add_argument(
        "--image-root",
        metavar="PATH",
        help="where the person's machine has the images (absolute, or relative to the "
        "package's folder); default: this project's image root",
    )
    pack.set_defaults(func=run_pack)

    merge = actions.add_parser(
        "merge",
        help="merge returned work packages into the project",
        description="Idempotent and order-independent; nothing is lost. A record changed "
        "both in the package and in the project since packing keeps the later edit (ties: "
        "the larger content hash); the other version goes to the audit log and the report, "
        "and a conflicting caption goes back to the review queue. One transaction per "
        "package.",
    )
    add_project_argument(merge)
    merge.add_argument("packages", type=Path, nargs="+", metavar="PACKAGE")
    merge.add_argument("--json", action="store_true", help="print the merge reports as JSON")
    merge.set_defaults(func=run_merge)

    status = actions.add_parser(
        "status", help="per person: work assigned, handed out, back, outstanding"
    )
    add_project_argument(status)
    status.add_argument("--json", action="store_true", help="print as JSON")
    status.set_defaults(func=run_status)


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def run_assign(args: argparse.Namespace) -> int:
    from studio.team import assignments

    people = _names(args.people)
    with open_project(args) as project:
        actor = cli_user()
        if args.what == "captions":
            given = assignments.assign_captions(
                project, people, actor, args.category, args.per_person
            )
        elif args.what == "reviews":
            given = assignments.assign_reviews(project, people, actor, args.category, args.per_pair)
        elif args.what == "attributes":
            given = assignments.assign_attributes(
                project, people, actor, args.category, args.attribute
            )
        else:
            from studio.quality.sampling import SampleOptions, create_sample

            summary = create_sample(
                project,
                SampleOptions(
                    raters=tuple(people),
                    name=args.sample,
                    share=args.share,
                    per_item=args.per_item,
                    seed=args.seed,
                ),
                actor,
            )
            given = summary.per_rater
    if args.json:
        print(json.dumps({"assigned": args.what, "per_person": given}, sort_keys=True))
        return 0
    for name, n in given.items():
        print(f"{name}: {count(n, 'new item')} ({args.what})")
    return 0


def run_pack(args: argparse.Namespace) -> int:
    from studio.cli.progress import TerminalProgress
    from studio.team.pack import handed_out_text, pack

    with open_project(args) as project, TerminalProgress("Packing") as progress:
        result = pack(
            project,
            args.person,
            args.out,
            cli_user(),
            args.with_images,
            progress=progress,
            image_root=args.image_root,
        )
    counts = handed_out_text(result.handed_out)
    images = f"; {result.images_copied} images copied" if args.with_images else ""
    print(f"Wrote {result.path} for {result.person}: {counts}{images}.")
    return 0


def run_merge(args: argparse.Namespace) -> int:
    from studio.cli.progress import TerminalProgress
    from studio.team.merge import merge_packages

    with open_project(args) as project, TerminalProgress("Merging") as progress:
        reports = merge_packages(project, args.packages, cli_user(), progress=progress)
    if args.json:
        print(json.dumps([r.to_json() for r in reports], sort_keys=True, default=str))
        return 0
    for report in reports:
        print(report.summary())
        for conflict in report.conflicts:
            print(
                f"  conflict on {conflict['kind']} {conflict['uid']}: kept the later edit; "
                "the other version is in the audit log"
            )
        for item in report.unplaced:
            why = item.get("reason") or "what it refers to is no longer in the project"
            print(
                f"  not placed: {item['kind']} {item['uid']} ({why}); its content is kept "
                "in the audit log's team.merge row"
            )
    return 0


def run_status(args: argparse.Namespace) -> int:
    from studio.team.assignments import team_progress

    with open_project(args) as project:
        rows = team_progress(project)
    if args.json:
        print(json.dumps([row.__dict__ for row in rows], sort_keys=True))
        return 0
    if not rows:
        print("Nobody has team work yet; assign some with cir-studio team assign.")
    for row in rows:
        work = ", ".join(
            f"{kind} {row.outstanding.get(kind, 0)}/{n} left"
            for kind, n in sorted(row.assigned.items())
        )
        back = row.came_back_at or "not yet"
        print(
            f"{row.name}: {work}; {count(row.packages, 'package')}, last handed out "
            f"{row.handed_out_at or 'never'}, back {back} ({count(row.edits_back, 'edit')})"
        )
    return 0
