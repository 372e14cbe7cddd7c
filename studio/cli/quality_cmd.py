"""``cir-studio quality sample|report``: blind rating samples and the quality report."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from studio.cli.project_arg import add_project_argument, cli_user, open_project


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("quality", help="blind rating samples and quality reports")
    actions = parser.add_subparsers(dest="quality_command", metavar="ACTION", required=True)

    sample = actions.add_parser(
        "sample", help="draw a stratified sample of turns and assign it to raters",
        description="Take a share of each dataset's accepted turns, stratified by dataset, "
        "category and turn index; give each to --per-item raters (never the same item twice "
        "to one rater), in a seeded random order per rater. Running it again tops the "
        "sample up to the share.")
    add_project_argument(sample)
    sample.add_argument("--share", type=float, default=0.2, help="share of each dataset (0.2)")
    sample.add_argument("--raters", required=True, help="comma-separated rater names")
    sample.add_argument("--per-item", type=int, default=2, help="raters per item (2)")
    sample.add_argument("--seed", type=int, default=0, help="random seed (0)")
    sample.add_argument("--sample", default="main", help="sample name (main)")
    sample.add_argument("--json", action="store_true", help="print a JSON summary")
    sample.set_defaults(func=run_sample)

    report = actions.add_parser(
        "report", help="scores per dataset and criterion, agreement and indicators",
        description="Per dataset and criterion: mean score as a percentage, "
        "(mean - 1) / 4 x 100, with a 95 % Student's t interval over items and counts; "
        "Krippendorff's alpha (ordinal) per criterion; Spearman correlations of the "
        "automatic indicators with the human scores.")
    add_project_argument(report)
    report.add_argument("--sample", help="only this sample (default: all)")
    report.add_argument("--json", action="store_true", help="print the table as JSON")
    report.add_argument("--csv", type=Path, metavar="FILE", help="write the table as CSV")
    report.add_argument("--markdown", type=Path, metavar="FILE", help="write a Markdown report")
    report.add_argument("--png", type=Path, metavar="FILE", help="write the chart as PNG")
    report.add_argument("--no-indicators", action="store_true",
                        help="skip the automatic indicators")
    report.set_defaults(func=run_report)


def run_sample(args: argparse.Namespace) -> int:
    from studio.quality.sampling import SampleOptions, create_sample

    options = SampleOptions(raters=tuple(args.raters.split(",")), name=args.sample,
                            share=args.share, per_item=args.per_item, seed=args.seed)
    with open_project(args) as project:
        summary = create_sample(project, options, cli_user())
    if args.json:
        print(json.dumps(summary.to_json(), sort_keys=True))
        return 0
    print(f"Sample {summary.name!r}: {summary.added_items} new items, "
          f"{summary.added_assignments} new assignments.")
    for dataset, (sampled, total) in summary.items_per_dataset.items():
        print(f"  {dataset}: {sampled} of {total} turns")
    for rater, count in summary.per_rater.items():
        print(f"  {rater}: {count} items to rate")
    for note in summary.notes:
        print(f"  note: {note}")
    return 0


def run_report(args: argparse.Namespace) -> int:
    from studio.quality.embedding_source import project_embedder
    from studio.quality.report import build_report
    from studio.quality.report_export import table_rows, to_csv, to_markdown, write_text

    with open_project(args) as project:
        embedder, reason = (None, "") if args.no_indicators else project_embedder(
            project, args.model, args.device)
        report = build_report(project, args.sample, indicators=not args.no_indicators,
                              embedder=embedder, no_embedder_reason=reason)
    if args.csv:
        write_text(args.csv, to_csv(report))
    if args.markdown:
        write_text(args.markdown, to_markdown(report))
    if args.png:
        from studio.quality.chart import save_png

        save_png(report, args.png)
    if args.json:
        print(json.dumps(report.to_json(), sort_keys=True, ensure_ascii=False))
        return 0
    headings, rows = table_rows(report)
    widths = [max(len(str(r[i])) for r in [headings, *rows]) for i in range(len(headings))]
    for row in [headings, *rows]:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)))
    from studio.quality.criteria import PERCENT_FORMULA
    from studio.quality.report import CI_METHOD

    print(f"\n{PERCENT_FORMULA}\n{CI_METHOD}")
    for note in report.notes:
        print(f"note: {note}")
    return 0
