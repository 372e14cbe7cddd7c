"""One list of the formats the studio writes, declared like the formats it reads
(``studio.importers.registry``): one module per format in ``studio/exporters/formats/``
holding ``FORMAT = ExportFormat(...)``. ``cir-studio export NAME`` and File → Export are
built from it. Exports read the project only: they take no actor."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from studio.importers.registry import (
    Option,
    Outcome,
    by_name,
    check_options,
    complete,
    declared,
    import_formats,
    named,
    options_markdown,
)
from studio.jobs import CancelToken, ProgressCallback, no_progress


@dataclass(frozen=True)
class ExportFormat:
    """``write(project, *, progress, cancel, **options)`` returns the exporter's summary
    (a dict with at least ``out``); ``outcome(summary)`` says it to each face."""

    name: str
    title: str
    description: str
    options: tuple[Option, ...]
    write: Callable[..., Any]
    outcome: Callable[[Any], Outcome]
    details: str = ""

    def __post_init__(self) -> None:
        check_options(self.name, self.options)

    @property
    def input(self) -> Option:
        """The positional option: the file or folder written."""
        return next(o for o in self.options if o.flag is None)

    def defaults(self) -> dict[str, Any]:
        return {o.name: o.default for o in self.options}

    def run(
        self,
        project: Any,
        values: Mapping[str, Any],
        *,
        progress: ProgressCallback = no_progress,
        cancel: CancelToken | None = None,
    ) -> Any:
        options = complete(self, values, "write")
        return self.write(project, progress=progress, cancel=cancel, **options)


@cache
def export_formats() -> dict[str, ExportFormat]:
    """Every format the studio writes, by name."""
    return by_name(declared("studio.exporters.formats"), "export")


def export_format(name: str) -> ExportFormat:
    return named(export_formats(), name, "export")


def formats_markdown() -> str:
    """The manual's "Formats in" and "Formats out" page, generated from the declarations."""
    lines = ["# Formats in", "",
             "File → Import and `cir-studio import NAME` offer the same formats, with the "
             "same options: each is one declaration in `studio/importers/formats/`. Every "
             "file is checked before anything is written.", ""]
    for fmt in import_formats().values():
        lines.append(f"- **{fmt.title}** (`cir-studio import {fmt.name}`): {fmt.description}")
        lines += options_markdown(fmt.options)
    lines += ["", "# Formats out", "",
              "File → Export and `cir-studio export NAME` write these; each is one "
              "declaration in `studio/exporters/formats/`.", ""]
    for out in export_formats().values():
        lines.append(f"- **{out.title}** (`cir-studio export {out.name}`): {out.description}")
        lines += options_markdown(out.options)
    return "\n".join(lines) + "\n"
