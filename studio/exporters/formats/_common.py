"""Options and summaries shared by the export declarations."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from studio.importers.registry import Option, OptionKind, Outcome


def out(kind: OptionKind, help_text: str = "", label: str = "Write to") -> Option:
    help_text = help_text or (f"the {kind} to write" if kind == "folder" else "the file to write")
    return Option("out", kind, help_text, label=label, metavar="OUT")


SOURCE = Option("source", "text", "only pairs and images of this source (e.g. fashioniq, cirr, "
                "mined)", label="Only the source", flag="--source", metavar="SOURCE")
MODEL = Option("model", "text", "embedding model (default: the one in Settings)",
               label="Model", flag="--model", metavar="MODEL", dest="export_model")
DEVICE = Option("device", "text", "cpu, cuda, mps or auto (default: the one in Settings)",
                label="Device", flag="--device", metavar="DEVICE", dest="export_device")


def pairs_writer(module: str, function: str) -> Callable[..., Any]:
    """``write`` for a pair exporter ``module.function(project, out, *, source, …)``."""

    def write(project: Any, *, out: Path, source: str | None, **options: Any) -> Any:
        import importlib

        exporter = getattr(importlib.import_module(module), function)
        return exporter(project, Path(out).expanduser(), source=source or None, **options)

    return write


def ranked_writer(module: str, function: str) -> Callable[..., Any]:
    """``pairs_writer`` for an export ranked with a model: Settings' model and device
    unless the options name them."""
    inner = pairs_writer(module, function)

    def write(project: Any, *, model: str | None, device: str | None, **options: Any) -> Any:
        from studio.settings import Settings

        settings = Settings.load()
        return inner(project, model=model or settings.model, device=device or settings.device,
                     **options)

    return write


def pairs_outcome(summary: Any) -> Outcome:
    """Per file its counts, else the pairs and captions; then where it was written."""
    files = summary.get("files")
    lines = []
    if files:
        for name, counts in files.items():
            details = ", ".join(f"{value} {key.replace('_', ' ')}" for key, value in counts.items())
            lines.append(f"{name}: {details}")
        message = f"Wrote {len(files)} files to {summary['out']}."
    else:
        lines.append(f"{summary['pairs']} pairs with {summary['captions']} captions")
        message = (f"Wrote {summary['pairs']:,} pairs with {summary['captions']:,} captions to "
                   f"{summary['out']}.")
    lines.append(f"Written to {summary['out']}")
    return Outcome(message, tuple(lines), tuple(lines[:-1][:50]), summary)


def counts_outcome(summary: Any) -> Outcome:
    """A summary of counts (the outfit formats): one line each, then where."""
    lines = []
    for key, value in summary.items():
        if key == "tasks":
            lines += [f"  {task}: {count}" for task, count in value.items()]
        elif key != "out":
            lines.append(f"{key.replace('_', ' ')}: {value}")
    lines.append(f"Written to {summary['out']}")
    numbers = [f"{value:,} {key.replace('_', ' ')}" for key, value in summary.items()
               if isinstance(value, int) and not isinstance(value, bool)]
    message = f"Wrote {', '.join(numbers) or 'the file'} to {summary['out']}."
    return Outcome(message, tuple(lines), (), summary)
