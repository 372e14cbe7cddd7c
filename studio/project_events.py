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
    """One event per kind of project data, plus ``changed`` (any kind) and ``closing``."""

    def __init__(self) -> None:
        self.images = Event()
        self.pairs = Event()
        self.captions = Event()
        self.labels = Event()
        self.vocabulary = Event()
        self.sessions = Event()
        self.transactions = Event()
        self.ratings = Event()
        self.experiments = Event()
        self.people = Event()
        self.settings = Event()
        self.outfits = Event()
        self.changed = Event()
        self.closing = Event()

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
