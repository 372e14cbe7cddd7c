"""CIR Studio core: the Qt-free layer (project store, importers, sessions, metrics, CLI).

The version below is the single source of truth: pyproject reads it, the CLI prints it,
the About box shows it and the installer is named after it.
"""

__version__ = "0.1.0"
