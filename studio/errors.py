"""Domain errors that reach a person: each carries one clear, complete message.

The CLI prints ``str(error)`` and exits non-zero; dialogs show the same text. Anything that
is not a ``StudioError`` is a bug and keeps its traceback.
"""


class StudioError(Exception):
    """An error caused by input or environment, explained in words a user can act on."""


class ProjectError(StudioError):
    """A project file cannot be created, opened or migrated."""


class SchemaTooNewError(ProjectError):
    """The project was written by a newer CIR Studio; we refuse rather than damage it."""


class ValidationError(StudioError):
    """Input data is malformed; the message names the file and the entry."""


class StoreError(ProjectError):
    """The project's database refused a statement or could not be reached.

    The store raises only these (``studio.store.errors`` lists them all), whatever the
    engine: no ``sqlite3`` or ``psycopg`` type leaves ``studio/store/``.
    """


class ProjectBusyError(StoreError):
    """Another program held the project's write lock for longer than the busy timeout."""


class ProjectReadOnlyError(StoreError):
    """The project file or its folder cannot be written; reading still works."""


class ImagePathError(ProjectError):
    """A stored image path leads outside the project's image folders; it is not read."""
