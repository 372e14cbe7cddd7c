"""Options and reports shared by the pair datasets' declarations (Fashion IQ, CIRR, CIRCO,
a folder of images): their importers return one ``ImportReport``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from studio.importers.registry import Option, Outcome

LISTED = 10  # entries a terminal report names before "… and N more"

SKIP_INVALID = Option(
    "skip_invalid", "bool", "import the valid entries and report the rest",
    label="Import the valid entries, skip the bad ones", default=False, flag="--skip-invalid",
)


def images_option(help_text: str) -> Option:
    return Option("images", "folder", help_text, label="Pictures folder", flag="--images",
                  metavar="DIR")


def dataset_root(help_text: str) -> Option:
    return Option("root", "folder", help_text, label="Dataset folder", metavar="ROOT")


def images_or(values: Mapping[str, Any], fallback: Path) -> Path:
    images = values.get("images")
    return Path(images) if images else fallback


def pair_report(report: Any) -> Outcome:
    """What an ``ImportReport`` says: in the window one line (the files it could not read
    named in the tooltip), on the terminal one line per category and split and the totals."""
    from studio.wording import count

    missing = (f", {count(len(report.missing_images), 'image file')} missing"
               if report.missing_images else "")
    skipped = f", {count(report.skipped, 'invalid entry')} skipped" if report.problems else ""
    listed = [str(p) for p in report.skipped_files]
    if report.skipped_files:  # bad names, links out of the folder
        skipped += f", {count(len(report.skipped_files), 'file')} skipped (not read)"
    if unreadable := report.unreadable_images:  # broken, or too large to decode
        skipped += f", {count(len(unreadable), 'picture')} that cannot be read"
        listed += [f"cannot be read: {name}" for name in unreadable]
    stopped = report.measures is not None and report.measures.stopped
    message = (
        f"Imported {report.dataset}: {count(report.images_added, 'image')}, "
        f"{count(report.pairs_added, 'pair')}, {count(report.captions_added, 'caption')}"
        f"{missing}{skipped}."
        + (" Measuring colours was stopped; Build index measures the rest." if stopped else "")
    )
    return Outcome(message, tuple(_terminal_lines(report)), tuple(listed[:50]), report.to_dict())


def _terminal_lines(report: Any) -> list[str]:
    lines = [
        f"{category or '(no category)'}/{split or '(no split)'}: "
        f"{counts['entries']} entries, {counts['captions']} captions, "
        f"{counts['gallery']} gallery images, {counts['missing']} missing image files"
        for (category, split), counts in sorted(report.groups.items())
    ]
    lines.append(f"Added {report.images_added} images, {report.pairs_added} pairs and "
                 f"{report.captions_added} captions.")
    if report.missing_images:
        shown = ", ".join(report.missing_images[:LISTED])
        more = " …" if len(report.missing_images) > LISTED else ""
        lines.append(f"{len(report.missing_images)} image files are missing: {shown}{more}")
    if unreadable := report.unreadable_images:
        shown = ", ".join(unreadable[:LISTED]) + (" …" if len(unreadable) > LISTED else "")
        lines.append(f"{len(unreadable)} pictures could not be read (broken, or too large to "
                     f"decode); they are in the project without colours or vectors: {shown}")
    if report.skipped_files:
        lines.append(f"Skipped {len(report.skipped_files)} files (not read):")
        lines += [f"  {problem}" for problem in report.skipped_files[:LISTED]]
        if len(report.skipped_files) > LISTED:
            lines.append(f"  … and {len(report.skipped_files) - LISTED} more (--json lists "
                         "them all)")
    if report.problems:
        lines.append(f"Skipped {report.skipped} invalid entries ({len(report.problems)} "
                     "problems):")
        lines += [f"  {problem}" for problem in report.problems[:LISTED]]
        if len(report.problems) > LISTED:
            lines.append(f"  … and {len(report.problems) - LISTED} more (--json lists them all)")
    return lines


def counts_report(title: str, report: Mapping[str, Any]) -> Outcome:
    """What a report given as a dict of counts says (the outfit formats, the ontology)."""
    from studio.wording import count

    missing = list(report.get("missing_images") or [])
    lines = []
    for key, value in report.items():
        if key == "missing_images":
            if value:
                lines.append(f"{len(value)} picture files are missing: {', '.join(value[:10])}")
        elif key != "file":
            lines.append(f"{key.replace('_', ' ')}: {value}")
    numbers = [f"{value:,} {key.replace('_', ' ')}" for key, value in report.items()
               if isinstance(value, int) and not isinstance(value, bool)]
    tail = f", {count(len(missing), 'picture file')} missing" if missing else ""
    message = f"Imported {title}: {', '.join(numbers) or 'nothing new'}{tail}."
    return Outcome(message, tuple(lines), tuple(missing[:50]), dict(report))


def optional_path(value: Any) -> Path | None:
    """An optional path option: unset (None, or an empty box in a dialog) is None."""
    return Path(value).expanduser() if value not in (None, "") else None
