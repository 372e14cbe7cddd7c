"""Attributes from product text: a word or synonym in the title or description.

A present attribute becomes a 'text' label with confidence 1.0 and status 'suggested'
(the text may describe a photo wrongly, so a person still reviews it). Matching rules are
in ``matcher`` (whole words, case, accents, plurals, hyphens). The job reads every image,
then writes in one transaction at the end, so a cancelled run changes nothing; a second
run over unchanged text changes nothing either.
"""

from __future__ import annotations

from studio.attributes.labels import replace_suggestions
from studio.attributes.matcher import AttributeMatcher
from studio.attributes.vocabulary import load_vocabulary
from studio.attributes.vocabulary_io import ensure_vocabulary
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import Project

BATCH = 500


def extract_from_text(
    project: Project,
    actor: str,
    *,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> dict[str, int]:
    """Label every image with the attributes its text names; returns counts for a summary."""
    ensure_vocabulary(project, actor)
    entries = load_vocabulary(project)
    matcher = AttributeMatcher(entries)
    ids = {e.name: int(e.id or 0) for e in entries}
    total = project.count_images()
    found: dict[str, dict[int, float]] = {}
    progress(0, total, "Reading product text")
    for done, image in enumerate(project.iter_images(), start=1):
        found[image.id] = {ids[name]: 1.0 for name in matcher.find(image.title, image.description)}
        if done % BATCH == 0 or done == total:
            if cancel is not None:
                cancel.raise_if_cancelled()
            progress(done, total, f"Read {done:,} of {total:,} descriptions")
    counts = replace_suggestions(project, actor, "text", "", found, "attributes.extract")
    labelled = sum(1 for attrs in found.values() if attrs)
    return {"images": total, "labelled_images": labelled,
            "labels": sum(len(a) for a in found.values()), **counts}
