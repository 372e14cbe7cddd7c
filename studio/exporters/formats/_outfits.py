"""``write`` for the outfit exporters: ``exporter(project, out, progress=, cancel=, …)``."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from studio.exporters.formats._common import out

OUT = out("path", "the file to write")


def writer(module: str, function: str) -> Callable[..., Any]:
    def write(project: Any, *, out: Path, **options: Any) -> Any:
        exporter = getattr(importlib.import_module(module), function)
        return exporter(project, Path(out).expanduser(), **options)

    return write
