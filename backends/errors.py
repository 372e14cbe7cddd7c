"""Errors the backends raise for conditions a person can fix (not bugs)."""


class ModelUnavailable(RuntimeError):
    """A model's weights cannot be found locally and cannot be downloaded now.

    The message names the model and says how to make it available, so the CLI and the GUI
    can show ``str(error)`` as is.
    """
