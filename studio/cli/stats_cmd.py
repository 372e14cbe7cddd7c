"""``cir-studio stats``: pairs, captions, gallery images and missing files per group."""

from __future__ import annotations

import argparse
import json

from studio.cli.project_arg import add_project_argument, open_project
from studio.wording import count


def register(subparsers: argparse._SubParsersAction) -> None:
    command = subparsers.add_parser(
        "stats",
        help="counts per category and split, and per annotator",
        description="Pairs, captions (submitted or accepted), gallery images and missing "
        "image files per category and split; captions per annotator.",
    )
    add_project_argument(command)
    command.add_argument("--json", action="store_true", help="print JSON")
    command.set_defaults(func=run_stats)


def run_stats(args: argparse.Namespace) -> int:
    from studio.captions.ranks import per_annotator
    from studio.project_stats import annotator_throughput, pair_counts_by_category_split

    with open_project(args) as project:
        groups = pair_counts_by_category_split(project)
        annotators = annotator_throughput(project)
        ranks = per_annotator(project)
    if args.json:
        print(
            json.dumps(
                {"groups": groups, "annotators": annotators, "caption_ranks": ranks},
                sort_keys=True,
                ensure_ascii=False,
            )
        )
        return 0
    print(f"{'category':<14}{'split':<10}{'pairs':>9}{'captions':>10}{'gallery':>9}{'missing':>9}")
    for category, splits in groups.items():
        for split, c in splits.items():
            print(
                f"{category:<14}{split:<10}{c['pairs']:>9}{c['captions']:>10}"
                f"{c['gallery']:>9}{c['missing']:>9}"
            )
    for entry in annotators:
        rate = f", {entry['per_hour']} per hour" if entry["per_hour"] else ""
        print(
            f"{entry['name']}: {count(entry['written'], 'caption')} ({entry['accepted']} "
            f"accepted, {entry['rejected']} rejected, {count(entry['draft'], 'draft')}){rate}"
        )
    for name, figures in ranks.items():
        bars = " ".join(f"{label}:{n}" for label, n in figures["histogram"] if n)
        print(
            f"{name}: target rank median {figures['median_rank']}, top 10 "
            f"{figures['top10']:.0%} of {figures['captions']} ranked captions ({bars})"
        )
    return 0
