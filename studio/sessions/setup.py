"""Open a retrieval session on a project: model, index, facets and strategy in one call."""

from __future__ import annotations

from dataclasses import dataclass, field

from studio.attributes.vocabulary import load_vocabulary
from studio.image_measures import ImageMeasures
from studio.index_service import ProjectIndex, load_project_model
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.language.reader import CaptionReader
from studio.sessions.combiners import ProjectCombiners
from studio.sessions.engine import Mode, RetrievalSession
from studio.sessions.facets import FacetMap, project_facets
from studio.sessions.strategies import Strategy, make_strategy
from studio.store import Project


@dataclass
class SessionContext:
    """What every session on one project and model shares; loading it is the slow part."""

    project: Project
    model_name: str
    index: ProjectIndex
    facet_map: FacetMap
    facets: dict[str, dict[str, str]]
    reader: CaptionReader
    measures: ImageMeasures
    cache: dict = field(default_factory=dict)  # gallery arrays shared by its sessions
    combiners: ProjectCombiners | None = None  # trained for this model; made on first use

    def combiner_source(self) -> ProjectCombiners:
        if self.combiners is None:
            self.combiners = ProjectCombiners(self.project, self.index.model)
        return self.combiners

    def strategy(self, name: str) -> Strategy:
        """``name`` as a strategy; ``combiner:NAME`` loads a combiner trained for this model."""
        return make_strategy(name, self.combiner_source())

    def read_text_facets(self, text: str) -> dict[str, str]:
        """The first value a text asks for per facet (single-turn protocols rank with it)."""
        return self.reader.facets(text)

    def new_session(
        self,
        strategy: str = "history",
        *,
        mode: Mode = "composed",
        target_id: str | None = None,
        k: int = 50,
        category: str | None = None,
        split: str | None = None,
    ) -> RetrievalSession:
        return RetrievalSession(
            self.index, self.strategy(strategy), facets=self.facets,
            read_requests=self.reader.read, measures=self.measures,
            encoder_text=self.reader.affirmative_text, mode=mode, target_id=target_id, k=k,
            category=category, split=split, shared_cache=self.cache,
        )


def load_session_context(
    project: Project,
    model_name: str = "demo",
    device: str | None = None,
    *,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> SessionContext:
    """Load the model and the project's index (built beforehand with ``index build``)."""
    progress(0, 3, f"Loading model {model_name}")
    model = load_project_model(model_name, device)
    if cancel is not None:
        cancel.raise_if_cancelled()
    progress(1, 3, "Loading the index")
    index = ProjectIndex.load(project, model, device)
    progress(2, 3, "Reading attributes")
    facet_map, facets, reader = load_facets(project)
    # Lightness/colourfulness as far as the index build measured them (read on first use;
    # measuring is gallery-wide work and never runs while a session opens).
    measures = ImageMeasures(project)
    progress(3, 3, "Ready")
    return SessionContext(project, model_name, index, facet_map, facets, reader, measures)


def load_facets(project: Project) -> tuple[FacetMap, dict[str, dict[str, str]], CaptionReader]:
    """The facets of every image and the caption reader for the project's vocabulary: what
    sessions and simulated people see (the captioner's salience learns from the same)."""
    entries = load_vocabulary(project)
    facet_map = FacetMap.for_vocabulary(entries)
    facets = project_facets(project, facet_map)
    # Outfit annotations add part words ("with no pocket", "has a belt") and part facets.
    from studio.outfits.part_words import part_facets, part_vocabulary

    parts = part_facets(project)
    for image_id, values in parts.items():
        facets.setdefault(image_id, {}).update(values)
    reader = CaptionReader.for_vocabulary(
        entries, facet_map.facet_of, part_vocabulary(project) if parts else None
    )
    return facet_map, facets, reader
