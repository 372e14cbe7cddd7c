"""Project events: every write announces what kind of thing it changed, after it commits.

The napari pattern without Qt: ``project.events.captions.connect(view.update)``. Each
kind is one :class:`~studio.events.Event`; ``changed`` fires once per kind as well, with
the kind's name, for listeners (such as the workspace) that forward everything.
``closing`` fires before a project's connections close, so nothing writes into a closed
project.

Events fire on the thread that wrote. A view must not touch widgets from a job's thread;
the Qt shell installs a dispatcher on the workspace that re-emits on the UI thread (see
``widgets/project_signals.py``).
"""

from __future__ import annotations

from collections.abc import Callable

from studio.events import Event

KINDS: tuple[str, ...] = (
    "images",
    "pairs",
    "captions",
    "labels",
    "vocabulary",
    "sessions",
    "transactions",
    "ratings",
    "experiments",
    "people",
    "settings",
    "outfits",
)

# The audit-log entity each write path names, and the kinds of data that write changes.
# A write whose entity is missing here announces every kind: a view refreshes once too
# often rather than showing stale data. Add new entities here to keep refreshes narrow.
ENTITY_KINDS: dict[str, tuple[str, ...]] = {
    "dataset": ("images", "pairs", "captions", "people"),
    "images": ("images",),
    "image": ("images",),
    "pairs": ("pairs",),
    "pair": ("pairs", "captions"),
    "caption": ("captions", "people"),
    "image_attributes": ("labels",),
    "attribute_vocab": ("vocabulary", "labels"),
    "retrieval_session": ("sessions", "people"),
    "transactions": ("transactions",),
    "transaction_turn": ("transactions",),
    "rating_sample": ("ratings", "people"),
    "rating": ("ratings",),
    "rating_assignment": ("ratings",),
    "experiment_run": ("experiments",),
    "combiner": ("experiments",),  # a trained combiner (files in the cache, one audit row)
    "settings": ("settings",),
    "people": ("people",),
    "outfits": ("outfits",),
    "outfit_region": ("outfits",),
    "outfit_picture": ("outfits",),
    "outfit_ontology": ("outfits",),
    "outfit_import": ("images", "outfits"),
}


def kinds_for(entity: str) -> tuple[str, ...]:
    """The kinds a write on ``entity`` changes (every kind for an entity not listed)."""
    if entity in KINDS:
        return (entity,)
    return ENTITY_KINDS.get(entity, KINDS)


class ProjectEvents:
    """One event per kind of project data, plus ``changed`` (any kind) and ``closing``.

    ``heard`` is called whenever a listener connects to a kind or to ``changed``: a
    PostgreSQL project then starts hearing other programs' commits (``Project.listen``)."""

    def __init__(self, heard: Callable[[], None] | None = None) -> None:
        self.images = Event(heard)
        self.pairs = Event(heard)
        self.captions = Event(heard)
        self.labels = Event(heard)
        self.vocabulary = Event(heard)
        self.sessions = Event(heard)
        self.transactions = Event(heard)
        self.ratings = Event(heard)
        self.experiments = Event(heard)
        self.people = Event(heard)
        self.settings = Event(heard)
        self.outfits = Event(heard)
        self.changed = Event(heard)
        self.closing = Event()

    @property
    def listened(self) -> bool:
        """Whether anyone listens to a kind of change (``closing`` does not count)."""
        return bool(self.changed) or any(getattr(self, kind) for kind in KINDS)

    def kind(self, name: str) -> Event:
        if name not in KINDS:
            raise ValueError(f"Unknown project event kind {name!r}; the kinds are {KINDS}.")
        event: Event = getattr(self, name)
        return event

    def emit(self, name: str) -> None:
        """Tell the listeners of ``name``, then the listeners of any change."""
        self.kind(name).emit()
        self.changed.emit(name)

    def connect_kinds(self, kinds: tuple[str, ...] | list[str], listener: object) -> None:
        """Connect one listener (called with no arguments) to several kinds."""
        for name in kinds:
            self.kind(name).connect(listener)  # type: ignore[arg-type]

    def disconnect_kinds(self, kinds: tuple[str, ...] | list[str], listener: object) -> None:
        for name in kinds:
            self.kind(name).disconnect(listener)  # type: ignore[arg-type]
