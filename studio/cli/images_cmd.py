"""``cir-studio images fetch``: download a dataset's pictures from its URL lists."""

from __future__ import annotations

import argparse
from pathlib import Path

from studio.cli.progress import TerminalProgress

LISTED = 10


def register(subparsers: argparse._SubParsersAction) -> None:
    command = subparsers.add_parser("images", help="fetch a dataset's pictures")
    actions = command.add_subparsers(dest="images_command", metavar="ACTION", required=True)
    fetch = actions.add_parser(
        "fetch",
        help="download the pictures of Fashion IQ's asin2url.CATEGORY.txt lists",
        description="Download every picture of the URL lists (lines 'ASIN <tab> URL') into "
        "OUT as ASIN.jpg: a bounded pool, timeouts, retries with back-off, a polite rate "
        "limit, a size limit, only pictures that decode, written atomically. Run it again "
        "after an interruption: saved pictures are skipped. Proxies come from http_proxy / "
        "https_proxy / no_proxy. Every ASIN not saved is reported with the reason.",
    )
    fetch.add_argument("lists", nargs="+", type=Path, metavar="URL_LIST",
                       help="asin2url.CATEGORY.txt files")
    fetch.add_argument("--out", type=Path, required=True, metavar="DIR",
                       help="folder of the pictures (Fashion IQ's images/)")
    fetch.add_argument("--fallback", type=Path, metavar="DIR",
                       help="pictures the maintainers supply for dead links (broken_links/)")
    fetch.add_argument("--workers", type=int, default=8, help="downloads at once (8)")
    fetch.add_argument("--retries", type=int, default=3, help="retries per URL (3)")
    fetch.add_argument("--backoff", type=float, default=1.0,
                       help="seconds before the first retry, doubled each time (1)")
    fetch.add_argument("--timeout", type=float, default=20.0,
                       help="seconds to connect and per read (20)")
    fetch.add_argument("--rate", type=float, default=5.0,
                       help="requests per second, all workers together (5)")
    fetch.add_argument("--max-mb", type=float, default=20.0, help="largest picture in MB (20)")
    fetch.add_argument("--report", type=Path, metavar="FILE",
                       help="where to write the ASINs not fetched and why, .json or .csv "
                       "(default OUT/fetch_report.json)")
    fetch.set_defaults(func=run_fetch)


def run_fetch(args: argparse.Namespace) -> int:
    from studio.errors import StudioError
    from studio.fetch.http import Limits
    from studio.fetch.pictures import FetchOptions, fetch_url_lists
    from studio.jobs import JobCancelled

    if args.workers < 1 or min(args.retries, args.rate, args.backoff) < 0 or min(
        args.timeout, args.max_mb
    ) <= 0:
        raise StudioError("--workers must be at least 1; --retries, --rate and --backoff 0 or "
                          "more (--rate 0: no limit); --timeout and --max-mb above 0.")
    options = FetchOptions(
        workers=args.workers, retries=args.retries, rate=args.rate, backoff=args.backoff,
        limits=Limits(timeout=args.timeout, deadline=max(120.0, 6 * args.timeout),
                      max_bytes=int(args.max_mb * 2**20)),
    )
    with TerminalProgress("Fetching pictures") as progress:
        report, target = fetch_url_lists(args.lists, args.out, fallback=args.fallback,
                                         options=options, report_path=args.report,
                                         progress=progress)
    counts = report.counts
    print(f"{len(report.outcomes)} pictures: " + ", ".join(f"{n} {status}" for status, n in
                                                  sorted(counts.items())))
    for outcome in report.not_fetched[:LISTED]:
        print(f"  {outcome.asin}: {outcome.reason}")
    if len(report.not_fetched) > LISTED:
        print(f"  … and {len(report.not_fetched) - LISTED} more")
    print(f"Report of the {len(report.not_fetched)} not fetched: {target}")
    if report.cancelled:
        raise JobCancelled()
    return 0
