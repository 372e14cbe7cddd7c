"""Getting a project ready for retrieval sessions: attribute labels, then the index.

Sessions read each image's facets (colour, sleeves …) from its attribute labels, so a
project without any gets them from its product text first; then the images are embedded
and the index built. The Retrieval pane's *Build index…* and ``cir-studio index build``
both call :func:`prepare_retrieval`, so the rule lives in one place.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from studio.embeddings import NOT_FOUND
from studio.index_service import DEFAULT_KIND, BuildReport, build_index, index_status
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.picture_files import refuse_without_pictures
from studio.store import Project
from studio.store.repos import attributes as attributes_repo


def skipped_text(report: BuildReport) -> str:
    """ "12 skipped (10 pictures not found under /data/images, 2 unreadable)": missing
    pictures (flagged at import, or gone since) count as skipped, with where they were
    looked for."""
    total = len(report.skipped) + report.missing
    not_found = report.missing + sum(reason == NOT_FOUND for _id, reason in report.skipped)
    parts = []
    if not_found:
        where = f" under {report.looked_in}" if report.looked_in else ""
        parts.append(f"{not_found:,} {'picture' if not_found == 1 else 'pictures'} not found"
                     + where)
    if total - not_found:
        parts.append(f"{total - not_found:,} unreadable")
    return f"{total:,} skipped" + (f" ({', '.join(parts)})" if parts else "")


def has_attribute_labels(project: Project) -> bool:
    return attributes_repo.any_labels(project)


@dataclass
class PreparedRetrieval:
    """What preparing did: the index build, and the labels read from text (if any)."""

    index: BuildReport
    extracted: dict[str, int] | None = field(default=None)

    def nothing_readable(self) -> str:
        """One line when pictures were there but none could be read (broken, or too large
        to decode), so nothing was indexed; else ''."""
        from backends.images import TOO_LARGE

        report = self.index
        if report.indexed or not report.skipped:
            return ""
        reasons: dict[str, int] = {}
        for _, reason in report.skipped:
            kind = reason.split(" (")[0]
            kind = "too large to decode" if kind == TOO_LARGE else kind
            reasons[kind] = reasons.get(kind, 0) + 1
        why = ", ".join(f"{n:,} {kind}" for kind, n in sorted(reasons.items()))
        missing = f" ({report.missing:,} more without a picture file)" if report.missing else ""
        return (
            f"Nothing to index: none of the {len(report.skipped):,} pictures can be read "
            f"({why}){missing}; replace or remove them and build again."
        )

    def summary(self) -> str:
        """One line for a status bar or a terminal."""
        if line := self.nothing_readable():
            return line
        report = self.index
        line = (
            f"Index ready: {report.indexed:,} images with '{report.model}' ({report.kind}); "
            f"{report.embedded:,} embedded, {report.cached:,} from the cache, "
            f"{skipped_text(report)}, in {report.seconds:.1f} s."
        )
        if self.extracted is not None:
            line += (
                f" First read {self.extracted.get('labels', 0):,} attribute labels on "
                f"{self.extracted.get('labelled_images', 0):,} images from their product text."
            )
        return line

    def to_dict(self) -> dict[str, Any]:
        return {**self.index.to_dict(), "extracted": self.extracted}


def prepare_retrieval(
    project: Project,
    model_name: str,
    device: str | None = None,
    *,
    actor: str,
    kind: str = DEFAULT_KIND,
    rebuild: bool = False,
    batch_size: int = 64,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> PreparedRetrieval:
    """Extract attributes from text when the project has none, then build the index."""
    from backends.index import index_class
    from studio.attributes.extract import extract_from_text
    from studio.index_service import ensure_index_buildable, load_project_model

    index_class(kind)  # an unknown kind fails before any work
    ensure_index_buildable(project)  # read-only: one clear line before any work
    refuse_without_pictures(project)  # no picture files: say why before reading labels
    extracted = None
    if not has_attribute_labels(project):
        extracted = extract_from_text(project, actor, progress=progress, cancel=cancel)
    model = load_project_model(model_name, device)
    report = build_index(
        project,
        model,
        kind,
        device=device,
        rebuild=rebuild,
        batch_size=batch_size,
        progress=progress,
        cancel=cancel,
    )
    return PreparedRetrieval(report, extracted)


def index_summary(project: Project, model_name: str) -> str | None:
    """ "An index of 60 images for 'demo' exists (flat, updated …)", or None without one."""
    status = index_status(project, model_name)
    if not status.get("built"):
        return None
    pending = status.get("to_add", 0) + status.get("to_remove", 0) + status.get("changed", 0)
    stale = (
        f" {pending:,} images changed since; Build index… brings it up to date." if pending else ""
    )
    return (
        f"An index of {status['indexed']:,} images for '{model_name}' exists "
        f"({status['kind']}, updated {str(status['updated_at'])[:16].replace('T', ' ')})."
        f"{stale}"
    )
